/*
 * bench_place - time one placement decision (orrery_cluster_place) on a
 * generated 3-tier fabric with many running multi-leaf jobs.
 *
 * For each fabric and job size it prints the candidates enumerated and
 * scored, the milliseconds per decision (median of the repetitions), and a
 * baseline measured in the same run: the same decision on the same fabric
 * and free-node map with no running jobs recorded (enumeration plus scoring
 * against empty links).  The ratio is what the running jobs' demand costs.
 *
 * The decision is timed twice on the same running jobs: with liborrery's
 * default rank_spread (0: the most local candidates, those of a contended
 * first one ranked by predicted slowdown) and with rank_spread 1 (wider
 * ones predicted too, orrery-score(7)); the "predicted" column says how
 * many candidates the latter predicted.
 * Times are the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so
 * a loaded machine stretches them less than wall time.
 *
 * Everything is generated from a fixed seed, so runs are comparable.
 * Usage: bench_place [-d] [repetitions]   (default 5)
 *   -d: also print every ranked candidate of every decision (nodes,
 *       shift, gate period, scores and cost as exact hex floats), so that
 *       a change meant to be only faster can be diffed against the build
 *       before it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orrery.h"

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint32_t rnd(void)
{
	/* xorshift64*: fixed seed, same sequence everywhere */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what, const orrery_error_t *err)
{
	fprintf(stderr, "bench_place: %s: %s\n", what, err ? err->message : "");
	exit(1);
}

/* A catalogue-free explicit profile: period 50-500 ms, 1-3 Up phases of
 * 5-30% of the period each, 10-100 Gb/s. */
static orrery_profile_t *random_profile(void)
{
	orrery_phase_t ph[3];
	orrery_profile_t *p = NULL;
	orrery_error_t err;
	int64_t period = (50 + rnd() % 451) * 1000LL;
	size_t n = 1 + rnd() % 3;
	int64_t slot = period / (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		int64_t dur = period * (5 + rnd() % 26) / 100;
		if (dur > slot)
			dur = slot;
		ph[i].offset_us = (int64_t)i * slot + (int64_t)(rnd() % (uint32_t)(slot - dur + 1));
		ph[i].duration_us = dur;
		ph[i].demand_mbps = (10 + rnd() % 91) * 1000ULL;
		ph[i].collective = (rnd() % 4 == 0) ? ORRERY_COLL_ALLTOALL : ORRERY_COLL_RING;
		ph[i].groups = 0;
	}
	if (orrery_profile_new(period, ph, n, &p, &err))
		die("orrery_profile_new", &err);
	return p;
}

static int dump;

/* One decision, every candidate, bit for bit (-d). */
static void dump_placement(const orrery_placement_t *pl, uint32_t n, const char *which)
{
	size_t count = orrery_placement_count(pl);
	uint32_t *nodes = malloc(sizeof *nodes * n);
	printf("decision %s %u nodes: %zu enumerated, %zu ranked\n", which, n,
	       orrery_placement_enumerated(pl), count);
	for (size_t i = 0; i < count; i++) {
		const orrery_eval_t *e = orrery_placement_eval(pl, i);
		size_t k = orrery_placement_nodes(pl, i, nodes, n);
		printf(" cand %zu lca %d leaves %u shift %lld period %lld min %a mean %a cost %a\n  nodes",
		       i, orrery_placement_lca_level(pl, i), orrery_placement_leaf_count(pl, i),
		       (long long)orrery_eval_shift_us(e), (long long)orrery_eval_period_us(e),
		       orrery_eval_score_min(e), orrery_eval_score_mean(e),
		       orrery_placement_cost(pl, i));
		for (size_t j = 0; j < k && j < n; j++)
			printf(" %u", nodes[j]);
		printf("\n");
		for (size_t l = 0; l < orrery_eval_link_count(e); l++) {
			orrery_link_eval_t le;
			if (orrery_eval_link(e, l, &le))
				continue;
			printf("  link %u cap %llu others %u score %a over %a unshifted %a\n",
			       le.switch_index, (unsigned long long)le.capacity_mbps,
			       le.other_jobs, le.score, le.over_fraction, le.score_unshifted);
		}
	}
	free(nodes);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct timing {
	double ms;          /* median */
	size_t enumerated, scored, predicted;
	double best_score;
};

static struct timing time_place(const orrery_cluster_t *c, const uint8_t *free_nodes,
				uint32_t n, const orrery_profile_t *p, int reps,
				const char *which)
{
	struct timing t = {0};
	double *ms = calloc((size_t)reps, sizeof *ms);
	orrery_error_t err;
	for (int r = 0; r < reps; r++) {
		orrery_placement_t *pl = NULL;
		double t0 = now_ms();
		if (orrery_cluster_place(c, free_nodes, n, p, &pl, &err))
			die("orrery_cluster_place", &err);
		ms[r] = now_ms() - t0;
		if (dump && r == 0)
			dump_placement(pl, n, which);
		t.enumerated = orrery_placement_enumerated(pl);
		t.scored = orrery_placement_count(pl);
		t.best_score = t.scored ? orrery_eval_score_min(orrery_placement_eval(pl, 0)) : 0;
		t.predicted = 0;
		for (size_t i = 0; i < t.scored; i++)
			t.predicted += orrery_placement_cost(pl, i) >= 0;
		orrery_placement_free(pl);
	}
	qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
	t.ms = ms[reps / 2];
	free(ms);
	return t;
}

/* The live channel's re-solve when one running job ends: what the select
 * plugin's job_fini (and, the other way round, job_begin) pays on this
 * cluster, as it does it: prev is the division the jobs follow, the job
 * goes, the cluster is re-solved against prev (apply 0), and the job is
 * put back for the next repetition.  Median, thread CPU time. */
static double time_realign(orrery_cluster_t *c, uint32_t job_id, const uint32_t *nodes,
			   uint32_t n, const orrery_profile_t *p, int64_t shift, int reps)
{
	double *ms = calloc((size_t)reps, sizeof *ms), med;
	orrery_division_t *prev = NULL;
	orrery_error_t err;
	if (orrery_cluster_realign(c, NULL, 0, &prev, &err))
		die("orrery_cluster_realign", &err);
	for (int r = 0; r < reps; r++) {
		orrery_division_t *d = NULL;
		if (orrery_cluster_remove_job(c, job_id))
			die("orrery_cluster_remove_job", NULL);
		double t0 = now_ms();
		if (orrery_cluster_realign(c, prev, 0, &d, &err))
			die("orrery_cluster_realign", &err);
		ms[r] = now_ms() - t0;
		orrery_division_free(d);
		if (orrery_cluster_add_job(c, job_id, nodes, n, p, shift, &err))
			die("orrery_cluster_add_job", &err);
	}
	orrery_division_free(prev);
	qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
	med = ms[reps / 2];
	free(ms);
	return med;
}

static void run(uint32_t leaves, uint32_t leaves_per_pod, uint32_t jobs,
		const uint32_t *sizes, size_t n_sizes, int reps)
{
	orrery_fabric_t f = {
		.tiers = 3, .nodes_per_leaf = 32, .leaves = leaves,
		.leaves_per_pod = leaves_per_pod, .node_link_mbps = 100000,
		.oversub_leaf = 4.0, .oversub_pod = 2.0, .node_prefix = "node",
	};
	orrery_topology_t *t = NULL;
	orrery_cluster_t *c = NULL, *c1 = NULL, *empty = NULL;
	orrery_cluster_opts_t o1;
	orrery_error_t err;
	if (orrery_topology_generate(&f, &t, &err))
		die("orrery_topology_generate", &err);
	orrery_cluster_opts_default(&o1);
	o1.rank_spread = 1;
	if (orrery_cluster_new(t, NULL, &c, &err) || orrery_cluster_new(t, NULL, &empty, &err) ||
	    orrery_cluster_new(t, &o1, &c1, &err))
		die("orrery_cluster_new", &err);
	size_t nodes = orrery_topology_node_count(t);
	uint32_t pod_nodes = 32 * leaves_per_pod, pods = leaves / leaves_per_pod;
	uint8_t *free_nodes = malloc(nodes);
	memset(free_nodes, 1, nodes);

	/* Running jobs: random free nodes of one random pod (so they span
	 * several leaves), 60% of the nodes busy in all. */
	uint32_t mean = (uint32_t)(0.6 * (double)nodes / jobs);
	uint32_t spread = mean > 2 ? 2 * (mean - 2) + 1 : 1;
	uint32_t *jn = malloc(sizeof *jn * nodes), *last_nodes = malloc(sizeof *jn * nodes);
	uint32_t last_n = 0;
	int64_t last_shift = 0;
	orrery_profile_t *last_p = NULL;
	size_t busy = 0;
	for (uint32_t id = 1; id <= jobs; id++) {
		uint32_t size = 2 + rnd() % spread, got = 0;
		uint32_t pod = rnd() % pods;
		for (uint32_t tries = 0; got < size && tries < 64 * size; tries++) {
			uint32_t node = pod * pod_nodes + rnd() % pod_nodes;
			if (!free_nodes[node])
				continue;
			free_nodes[node] = 0;
			jn[got++] = node;
		}
		orrery_profile_t *p = random_profile();
		int64_t shift = rnd() % (uint32_t)orrery_profile_period_us(p);
		if (got && (orrery_cluster_add_job(c, id, jn, got, p, shift, &err) ||
			    orrery_cluster_add_job(c1, id, jn, got, p, shift, &err)))
			die("orrery_cluster_add_job", &err);
		busy += got;
		if (id == jobs && got) {	/* the job that ends, below */
			last_p = p;
			last_n = got;
			last_shift = shift;
			memcpy(last_nodes, jn, sizeof *jn * got);
			continue;
		}
		orrery_profile_free(p);
	}
	printf("fabric: 3 tiers, %zu nodes, %u leaves of 32, %u pods, oversubscribed 4:1 "
	       "at leaf, 2:1 at pod; %zu running jobs on %zu nodes\n",
	       nodes, leaves, pods, orrery_cluster_job_count(c), busy);
	printf("  %6s %10s %7s %10s %10s %12s %7s %9s %10s\n", "nodes", "enumerated", "scored",
	       "best-min", "ms/place", "ms/baseline", "ratio", "predicted", "ms/spread1");
	for (size_t i = 0; i < n_sizes; i++) {
		orrery_profile_t *p = random_profile();
		struct timing loaded = time_place(c, free_nodes, sizes[i], p, reps, "loaded");
		struct timing s1 = time_place(c1, free_nodes, sizes[i], p, reps, "spread1");
		struct timing base = time_place(empty, free_nodes, sizes[i], p, reps, "baseline");
		printf("  %6u %10zu %7zu %10.3f %10.3f %12.3f %7.1f %9zu %10.3f\n", sizes[i],
		       loaded.enumerated, loaded.scored, loaded.best_score, loaded.ms,
		       base.ms, base.ms > 0 ? loaded.ms / base.ms : 0.0, s1.predicted,
		       s1.ms);
		orrery_profile_free(p);
	}
	if (last_p) {
		printf("  re-solve of every link group when one of the %zu running jobs ends "
		       "(the live channel, per job start or end): %.3f ms\n",
		       orrery_cluster_job_count(c),
		       time_realign(c, jobs, last_nodes, last_n, last_p, last_shift, reps));
		orrery_profile_free(last_p);
	}
	free(last_nodes);
	free(jn);
	free(free_nodes);
	orrery_cluster_free(c);
	orrery_cluster_free(c1);
	orrery_cluster_free(empty);
	orrery_topology_free(t);
}

int main(int argc, char **argv)
{
	int a = 1;
	if (argc > a && strcmp(argv[a], "-d") == 0) {
		dump = 1;
		a++;
	}
	int reps = argc > a ? atoi(argv[a]) : 5;
	if (reps < 1)
		reps = 1;
	printf("bench_place: one orrery_cluster_place() decision, median of %d; "
	       "baseline = same decision with no running jobs recorded "
	       "(max_candidates 64, 360 bins, rank_spread %d; ms/spread1: rank_spread 1); "
	       "thread CPU time\n", reps, ORRERY_RANK_SPREAD_DEFAULT);
	static const uint32_t small[] = {8, 40, 96};
	static const uint32_t large[] = {8, 40, 96, 256};
	run(32, 8, 256, small, sizeof small / sizeof small[0], reps);
	run(312, 24, 2000, large, sizeof large / sizeof large[0], reps);
	return 0;
}
