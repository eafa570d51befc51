/*
 * Evaluating node sets, placing jobs and solving shifts, through orrery.h,
 * on fabrics small enough to check by hand.  Leaf uplinks carry exactly one
 * job's demand (100 Gb/s), so two 50%-duty jobs fit a link only when their
 * Up phases are interleaved: one shifted by half a period.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orrery.h"
#include "unit_helpers.h"

#define HALF "period=100ms;up=0ms+50ms@100Gbps"  /* 50% duty */
#define HEAVY "period=100ms;up=0ms+80ms@100Gbps" /* 80% duty */
#define EPS 1e-6

/* spine over leaves leaf1..leafL of `per` nodes each; leaf uplinks of
 * uplink_mbps (0 = unknown). */
static orrery_cluster_t *two_tier(int leaves, int per, uint64_t uplink_mbps)
{
	orrery_topology_t *t = orrery_topology_new();
	orrery_cluster_t *c = NULL;
	orrery_error_t err;
	char leaf[32], node[32];
	assert_int_equal(orrery_topology_add_switch(t, "spine", NULL, &err), ORRERY_OK);
	for (int l = 1; l <= leaves; l++) {
		snprintf(leaf, sizeof leaf, "leaf%d", l);
		assert_int_equal(orrery_topology_add_switch(t, leaf, "spine", &err), ORRERY_OK);
		for (int n = 0; n < per; n++) {
			snprintf(node, sizeof node, "n%02d", (l - 1) * per + n);
			assert_int_equal(orrery_topology_add_node(t, node, leaf, &err), ORRERY_OK);
		}
	}
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_OK);
	if (uplink_mbps)
		assert_int_equal(orrery_topology_set_level_uplink(t, 0, uplink_mbps,
								  uplink_mbps, &err), ORRERY_OK);
	assert_int_equal(orrery_cluster_new(t, NULL, &c, &err), ORRERY_OK);
	orrery_topology_free(t);
	return c;
}

static void mark_busy(uint8_t *free_nodes, size_t n, const uint32_t *busy, size_t nb)
{
	memset(free_nodes, 1, n);
	for (size_t i = 0; i < nb; i++)
		free_nodes[busy[i]] = 0;
}

/* Job A (50%) on leaf1+leaf2, job C (80%) on leaf3+leaf4. */
static orrery_cluster_t *scenario(void)
{
	orrery_cluster_t *c = two_tier(4, 4, 100000);
	uint32_t a[] = {0, 1, 4, 5}, cc[] = {8, 12};
	add_job(c, 1, a, 4, HALF, 0);
	add_job(c, 3, cc, 2, HEAVY, 0);
	return c;
}

static void test_evaluate_shares_link(void **state)
{
	orrery_cluster_t *c = scenario();
	orrery_profile_t *b = profile(HALF);
	orrery_eval_t *e = NULL;
	orrery_error_t err;
	orrery_link_eval_t l;
	uint32_t nodes[] = {2, 3, 6, 7};

	assert_int_equal(orrery_cluster_evaluate(c, nodes, 4, b, &e, &err), ORRERY_OK);
	assert_int_equal(orrery_eval_shift_us(e), 50000);
	assert_int_equal(orrery_eval_period_us(e), 100000);
	assert_true(fabs(orrery_eval_score_min(e) - 1.0) < EPS);
	assert_int_equal(orrery_eval_link_count(e), 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(orrery_eval_link(e, i, &l), ORRERY_OK);
		assert_int_equal(l.switch_index, i + 1);  /* leaf1, leaf2 */
		assert_int_equal(l.capacity_mbps, 100000);
		assert_int_equal(l.other_jobs, 1);
		assert_true(fabs(l.score - 1.0) < EPS);
		assert_true(fabs(l.over_fraction) < EPS);
		/* In step with A, both Up phases collide for 50 ms. */
		assert_true(fabs(l.score_unshifted - 0.5) < EPS);
	}
	assert_int_equal(orrery_eval_link(e, 2, &l), ORRERY_ERANGE);
	orrery_eval_free(e);

	/* Across job C's uplinks: 80 + 50 ms of Up in 100 ms overlap by at
	 * least 30 ms whatever the shift. */
	uint32_t other[] = {9, 10, 13, 14};
	assert_int_equal(orrery_cluster_evaluate(c, other, 4, b, &e, &err), ORRERY_OK);
	assert_true(fabs(orrery_eval_score_min(e) - 0.7) < EPS);
	assert_true(fabs(orrery_eval_score_mean(e) - 0.7) < EPS);
	orrery_eval_free(e);

	/* One leaf: no uplink crossed. */
	uint32_t one[] = {13, 14, 15};
	assert_int_equal(orrery_cluster_evaluate(c, one, 3, b, &e, &err), ORRERY_OK);
	assert_int_equal(orrery_eval_link_count(e), 0);
	assert_true(orrery_eval_score_min(e) == 1.0);
	assert_int_equal(orrery_eval_shift_us(e), 0);
	assert_int_equal(orrery_eval_period_us(e), 100000);
	orrery_eval_free(e);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}


static uint32_t seed = 2024;
static uint32_t rnd(void)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 16) & 0x7fff;
}

/* Periods 90/180/360 ms share a 360 ms circle of 1 ms bins, so shifts in
 * whole milliseconds are exact rotations and a brute force over them is
 * the search's own candidate set (or a subset of it). */
static orrery_profile_t *random_ring_profile(void)
{
	static const int64_t periods[] = {90000, 180000, 360000};
	int64_t period = periods[rnd() % 3];
	orrery_phase_t ph = {0};
	orrery_profile_t *p = NULL;
	orrery_error_t err;
	ph.duration_us = (int64_t)(10 + rnd() % 50) * period / 100 / 1000 * 1000;
	ph.offset_us = (int64_t)(rnd() % (uint32_t)((period - ph.duration_us) / 1000 + 1)) * 1000;
	ph.demand_mbps = (20 + rnd() % 81) * 1000ULL;
	ph.collective = ORRERY_COLL_RING;
	assert_int_equal(orrery_profile_new(period, &ph, 1, &p, &err), ORRERY_OK);
	return p;
}

/* Score of one link with everybody pinned, through the public link API. */
static double link_score_pinned(const orrery_profile_t *const *profs, const int64_t *shifts,
				size_t n, uint64_t cap)
{
	orrery_circle_opts_t o;
	orrery_link_result_t *r = NULL;
	orrery_error_t err;
	orrery_circle_opts_default(&o);
	if (orrery_link_score(profs, n, cap, shifts, &o, &r, &err) != ORRERY_OK)
		fail_msg("orrery_link_score: %s", err.message);
	double s = orrery_link_result_score(r);
	orrery_link_result_free(r);
	return s;
}

/* Property: each link outcome the evaluation reports equals that link
 * scored on its own with the chosen shift, and no whole-millisecond shift
 * gives a better worst link. */
static void test_evaluate_matches_brute_force(void **state)
{
	int contended = 0;
	for (int iter = 0; iter < 12; iter++) {
		orrery_cluster_t *c = two_tier(5, 4, 100000);
		const orrery_topology_t *t = orrery_cluster_topology(c);
		orrery_profile_t *jp[16];
		uint32_t jn[16][2];
		int64_t js[16];
		size_t njobs = 0;
		uint8_t used[20] = {0};
		for (uint32_t id = 1; id <= 7; id++) {
			uint32_t a = rnd() % 20, b = rnd() % 20;
			if (a / 4 == b / 4 || used[a] || used[b])
				continue;
			used[a] = used[b] = 1;
			jp[njobs] = random_ring_profile();
			jn[njobs][0] = a;
			jn[njobs][1] = b;
			js[njobs] = (int64_t)(rnd() % (uint32_t)(orrery_profile_period_us(jp[njobs]) / 1000)) * 1000;
			orrery_error_t err;
			assert_int_equal(orrery_cluster_add_job(c, id, jn[njobs], 2, jp[njobs],
								js[njobs], &err), ORRERY_OK);
			njobs++;
		}
		orrery_profile_t *nc = random_ring_profile();
		uint32_t nodes[3];
		size_t nn = 0;
		for (uint32_t leaf = rnd() % 5; nn < 3; leaf = (leaf + 2) % 5)
			nodes[nn++] = leaf * 4 + rnd() % 4;
		orrery_eval_t *e = NULL;
		orrery_error_t err;
		assert_int_equal(orrery_cluster_evaluate(c, nodes, nn, nc, &e, &err), ORRERY_OK);
		size_t nl = orrery_eval_link_count(e);
		int64_t gate = orrery_eval_period_us(e);
		assert_int_equal(gate, orrery_profile_period_us(nc));

		/* Per link: the jobs crossing it (one of their two nodes below). */
		const orrery_profile_t *lp[17][17];
		int64_t ls[17][17];
		size_t lk[17];
		uint64_t cap[17];
		for (size_t i = 0; i < nl; i++) {
			orrery_link_eval_t l;
			assert_int_equal(orrery_eval_link(e, i, &l), ORRERY_OK);
			cap[i] = l.capacity_mbps;
			lk[i] = 0;
			for (size_t j = 0; j < njobs; j++) {
				int below = (orrery_topology_node_leaf(t, jn[j][0]) == (long)l.switch_index) +
					    (orrery_topology_node_leaf(t, jn[j][1]) == (long)l.switch_index);
				if (below == 1) {
					lp[i][lk[i]] = jp[j];
					ls[i][lk[i]++] = js[j];
				}
			}
			assert_int_equal(lk[i], l.other_jobs);
			if (l.score_unshifted < 1.0 - EPS)
				contended++;
			lp[i][lk[i]] = nc;
			ls[i][lk[i]] = orrery_eval_shift_us(e);
			double alone = link_score_pinned(lp[i], ls[i], lk[i] + 1, cap[i]);
			if (fabs(alone - l.score) > EPS)
				fail_msg("iter %d link %zu: evaluation says %f, link alone %f",
					 iter, i, l.score, alone);
		}
		for (int64_t s = 0; s < gate; s += 1000) {
			double worst = 1.0;
			for (size_t i = 0; i < nl; i++) {
				ls[i][lk[i]] = s;
				double v = link_score_pinned(lp[i], ls[i], lk[i] + 1, cap[i]);
				if (v < worst)
					worst = v;
			}
			if (worst > orrery_eval_score_min(e) + EPS)
				fail_msg("iter %d: shift %lld gives worst %f > chosen %f at %lld",
					 iter, (long long)s, worst, orrery_eval_score_min(e),
					 (long long)orrery_eval_shift_us(e));
		}
		orrery_eval_free(e);
		orrery_profile_free(nc);
		for (size_t j = 0; j < njobs; j++)
			orrery_profile_free(jp[j]);
		orrery_cluster_free(c);
	}
	/* The random clusters did exercise the shift search. */
	assert_true(contended >= 3);
}

static void test_evaluate_errors(void **state)
{
	orrery_cluster_t *c = scenario();
	orrery_profile_t *b = profile(HALF), *m = profile("resnet50");
	orrery_eval_t *e = (orrery_eval_t *)&e;
	orrery_error_t err;
	uint32_t bad[] = {2, 99}, twice[] = {2, 2}, ok[] = {2, 6};
	assert_int_equal(orrery_cluster_evaluate(c, bad, 2, b, &e, &err), ORRERY_ERANGE);
	assert_null(e);
	assert_int_equal(orrery_cluster_evaluate(c, twice, 2, b, &e, &err), ORRERY_EINVAL);
	assert_int_equal(orrery_cluster_evaluate(c, ok, 2, m, &e, &err), ORRERY_ESTATE);
	setenv("ORRERY_FAULT", "evaluate", 1);
	assert_int_equal(orrery_cluster_evaluate(c, ok, 2, b, &e, &err), ORRERY_EINTERNAL);
	unsetenv("ORRERY_FAULT");
	orrery_profile_free(b);
	orrery_profile_free(m);
	orrery_cluster_free(c);
}

/* Unknown uplink capacity is unconstrained: score 1 even in step. */
static void test_unknown_capacity(void **state)
{
	orrery_cluster_t *c = two_tier(2, 2, 0);
	orrery_profile_t *b = profile(HALF);
	orrery_eval_t *e = NULL;
	orrery_error_t err;
	orrery_link_eval_t l;
	uint32_t a[] = {0, 2}, n[] = {1, 3};
	add_job(c, 1, a, 2, HALF, 0);
	assert_int_equal(orrery_cluster_evaluate(c, n, 2, b, &e, &err), ORRERY_OK);
	assert_true(orrery_eval_score_min(e) == 1.0);
	assert_int_equal(orrery_eval_link(e, 0, &l), ORRERY_OK);
	assert_int_equal(l.capacity_mbps, 0);
	assert_int_equal(l.other_jobs, 1);
	orrery_eval_free(e);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* 4 free nodes wanted; free: leaf1 {2,3}, leaf2 {6,7}, leaf3 {9,10,11},
 * leaf4 {13,14,15}.  No leaf fits; every pair of leaves does (6 pairs).
 * Only {leaf1, leaf2} avoids job C; it shares A's uplinks, which a 50 ms
 * shift makes free of conflict. */
static void test_place_prefers_interleavable_links(void **state)
{
	orrery_cluster_t *c = scenario();
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	orrery_error_t err;
	uint8_t f[16];
	uint32_t busy[] = {0, 1, 4, 5, 8, 12}, nodes[8];
	mark_busy(f, 16, busy, 6);

	assert_int_equal(orrery_cluster_place(c, f, 4, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_enumerated(p), 6);
	assert_int_equal(orrery_placement_count(p), 6);
	assert_int_equal(orrery_placement_nodes(p, 0, nodes, 8), 4);
	assert_int_equal(nodes[0], 2);
	assert_int_equal(nodes[1], 3);
	assert_int_equal(nodes[2], 6);
	assert_int_equal(nodes[3], 7);
	const orrery_eval_t *e = orrery_placement_eval(p, 0);
	assert_int_equal(orrery_eval_shift_us(e), 50000);
	assert_true(fabs(orrery_eval_score_min(e) - 1.0) < EPS);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(orrery_placement_lca_level(p, i), 1);
		assert_int_equal(orrery_placement_leaf_count(p, i), 2);
		if (i > 0) {
			/* Every other pair crosses one of C's uplinks. */
			assert_true(fabs(orrery_eval_score_min(orrery_placement_eval(p, i)) - 0.7) < EPS);
			assert_true(orrery_eval_score_mean(orrery_placement_eval(p, i - 1)) >=
				    orrery_eval_score_mean(orrery_placement_eval(p, i)) - EPS);
		}
	}
	assert_null(orrery_placement_eval(p, 6));
	assert_int_equal(orrery_placement_lca_level(p, 6), -1);
	orrery_placement_free(p);

	/* The cap scores fewer but counts them all. */
	orrery_cluster_opts_t o;
	orrery_cluster_t *small = NULL;
	orrery_cluster_opts_default(&o);
	o.max_candidates = 2;
	assert_int_equal(orrery_cluster_new(orrery_cluster_topology(c), &o, &small, &err),
			 ORRERY_OK);
	assert_int_equal(orrery_cluster_place(small, f, 4, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 2);
	assert_int_equal(orrery_placement_enumerated(p), 6);
	orrery_placement_free(p);
	orrery_cluster_free(small);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

static void test_place_single_leaf(void **state)
{
	orrery_cluster_t *c = scenario();
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	orrery_error_t err;
	uint8_t f[16];
	uint32_t busy[] = {0, 1, 4, 5, 8, 12}, nodes[4];
	mark_busy(f, 16, busy, 6);
	/* Three nodes fit in leaf3 or leaf4 alone (3 free each). */
	assert_int_equal(orrery_cluster_place(c, f, 3, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 2);
	for (size_t i = 0; i < 2; i++) {
		const orrery_eval_t *e = orrery_placement_eval(p, i);
		assert_int_equal(orrery_placement_lca_level(p, i), 0);
		assert_int_equal(orrery_placement_leaf_count(p, i), 1);
		assert_int_equal(orrery_eval_link_count(e), 0);
		assert_true(orrery_eval_score_min(e) == 1.0);
	}
	orrery_placement_nodes(p, 0, nodes, 4);
	assert_int_equal(nodes[0], 9);  /* equal scores, equally full: index order */
	orrery_placement_free(p);

	/* Not enough free nodes: zero candidates, no error. */
	assert_int_equal(orrery_cluster_place(c, f, 11, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 0);
	assert_int_equal(orrery_placement_enumerated(p), 0);
	orrery_placement_free(p);

	setenv("ORRERY_FAULT", "place", 1);
	assert_int_equal(orrery_cluster_place(c, f, 3, b, &p, &err), ORRERY_EINTERNAL);
	unsetenv("ORRERY_FAULT");
	assert_int_equal(orrery_cluster_place(c, f, 0, b, &p, &err), ORRERY_EINVAL);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* A one-node job resolves to a pattern without Up phases: it loads no
 * uplink, so it is placed by locality alone (best fit), never refused. */
static void test_place_no_traffic(void **state)
{
	orrery_cluster_t *c = scenario();
	orrery_profile_t *m = profile("resnet50"), *r = NULL;
	orrery_shape_t one = { 1, 8, 100000 };
	orrery_placement_t *p = NULL;
	orrery_eval_t *e = NULL;
	orrery_error_t err;
	uint8_t f[16];
	uint32_t busy[] = {0, 1, 4, 5, 8, 12}, nodes[8];

	assert_int_equal(orrery_profile_resolve(m, &one, &r, &err), ORRERY_OK);
	assert_int_equal(orrery_profile_phase_count(r), 0);
	mark_busy(f, 16, busy, 6);
	assert_int_equal(orrery_cluster_place(c, f, 1, r, &p, &err), ORRERY_OK);
	assert_true(orrery_placement_count(p) > 0);
	assert_true(orrery_eval_score_min(orrery_placement_eval(p, 0)) == 1.0);
	assert_int_equal(orrery_placement_leaf_count(p, 0), 1);
	orrery_placement_free(p);
	/* Even spread over leaves next to busy jobs, it scores 1 everywhere. */
	nodes[0] = 2; nodes[1] = 6;
	assert_int_equal(orrery_cluster_evaluate(c, nodes, 2, r, &e, &err), ORRERY_OK);
	assert_true(orrery_eval_score_min(e) == 1.0);
	assert_int_equal(orrery_eval_shift_us(e), 0);
	orrery_eval_free(e);
	orrery_profile_free(r);
	orrery_profile_free(m);
	orrery_cluster_free(c);
}

/* Two candidates both score 1 once shifted; the one whose uplinks nobody
 * else uses (score 1 even unshifted) ranks first, although Slurm's node
 * order alone would pick the one sharing job A's uplink. */
static void test_prefers_less_shift_dependence(void **state)
{
	orrery_cluster_t *c = two_tier(4, 4, 100000);
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	orrery_error_t err;
	uint32_t a[] = {0, 1, 4, 5}, nodes[6];
	uint8_t f[16];

	add_job(c, 1, a, 4, HALF, 0);
	mark_busy(f, 16, a, 4);
	assert_int_equal(orrery_cluster_place(c, f, 6, b, &p, &err), ORRERY_OK);
	assert_true(orrery_placement_count(p) >= 2);
	/* Every 2-leaf candidate reaches 1 with its shift... */
	for (size_t i = 0; i < orrery_placement_count(p); i++)
		assert_true(orrery_eval_score_min(orrery_placement_eval(p, i)) > 1.0 - EPS);
	/* ...but leaf3 + leaf4 needs none. */
	assert_int_equal(orrery_placement_nodes(p, 0, nodes, 6), 6);
	assert_int_equal(nodes[0], 8);
	assert_int_equal(nodes[5], 13);
	assert_int_equal(orrery_eval_shift_us(orrery_placement_eval(p, 0)), 0);
	orrery_placement_free(p);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* core -> pod1, pod2 -> 3 leaves each -> 4 nodes (n00..n23), leaf uplinks
 * 100 Gb/s; rank_spread as given. */
static orrery_cluster_t *pods(uint32_t rank_spread)
{
	orrery_topology_t *t = orrery_topology_new();
	orrery_cluster_t *c = NULL;
	orrery_cluster_opts_t o;
	orrery_error_t err;
	char sw[32], node[32];
	int id = 0;
	orrery_topology_add_switch(t, "core", NULL, &err);
	for (int p = 1; p <= 2; p++) {
		snprintf(sw, sizeof sw, "pod%d", p);
		orrery_topology_add_switch(t, sw, "core", &err);
		for (int l = 0; l < 3; l++) {
			char leaf[32];
			snprintf(leaf, sizeof leaf, "pod%dleaf%d", p, l);
			orrery_topology_add_switch(t, leaf, sw, &err);
			for (int n = 0; n < 4; n++) {
				snprintf(node, sizeof node, "n%02d", id++);
				assert_int_equal(orrery_topology_add_node(t, node, leaf, &err),
						 ORRERY_OK);
			}
		}
	}
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_OK);
	assert_int_equal(orrery_topology_set_level_uplink(t, 0, 100000, 100000, &err),
			 ORRERY_OK);
	orrery_cluster_opts_default(&o);
	o.rank_spread = rank_spread;
	assert_int_equal(orrery_cluster_new(t, &o, &c, &err), ORRERY_OK);
	orrery_topology_free(t);
	return c;
}

/* pods(): pod1 has 2 free nodes on each leaf (a 5-node job needs 3 leaves
 * there, all uncontended); pod2 has 3 free on two leaves (2 leaves, but
 * crossing job X's uplinks).  With rank_spread 0, locality first: pod2's
 * 2-leaf candidates rank above pod1's 3-leaf one although they score
 * worse; the first is predicted (it crosses a contended uplink), the
 * wider one is not. */
static void test_locality_first(void **state)
{
	orrery_cluster_t *c = pods(0);
	orrery_error_t err;
	uint32_t x[] = {12, 16};
	add_job(c, 9, x, 2, HEAVY, 0);

	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL, *q = NULL;
	uint8_t f[24];
	uint32_t busy[] = {0, 1, 4, 5, 8, 9, 12, 16, 20, 21, 22, 23};
	mark_busy(f, 24, busy, 12);
	assert_int_equal(orrery_cluster_place(c, f, 5, b, &p, &err), ORRERY_OK);
	size_t n = orrery_placement_count(p);
	assert_int_equal(n, 2);  /* pod2: {leaf0, leaf1}; pod1: all 3 leaves */
	assert_int_equal(orrery_placement_leaf_count(p, 0), 2);
	assert_int_equal(orrery_placement_lca_level(p, 0), 1);
	assert_true(orrery_eval_score_min(orrery_placement_eval(p, 0)) < 0.9);
	assert_int_equal(orrery_placement_leaf_count(p, 1), 3);
	assert_true(fabs(orrery_eval_score_min(orrery_placement_eval(p, 1)) - 1.0) < EPS);
	/* rank_spread 0: today's locality only is predicted. */
	assert_true(orrery_placement_cost(p, 0) > 0.5);
	assert_true(orrery_placement_cost(p, 1) < 0);

	/* Deterministic: the same call gives the same answer. */
	assert_int_equal(orrery_cluster_place(c, f, 5, b, &q, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(q), n);
	for (size_t i = 0; i < n; i++) {
		uint32_t u[8], v[8];
		size_t k = orrery_placement_nodes(p, i, u, 8);
		assert_int_equal(orrery_placement_nodes(q, i, v, 8), k);
		assert_memory_equal(u, v, k * sizeof u[0]);
		assert_int_equal(orrery_eval_shift_us(orrery_placement_eval(p, i)),
				 orrery_eval_shift_us(orrery_placement_eval(q, i)));
		assert_true(orrery_eval_score_mean(orrery_placement_eval(p, i)) ==
			    orrery_eval_score_mean(orrery_placement_eval(q, i)));
	}
	orrery_placement_free(p);
	orrery_placement_free(q);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* pods()'s free nodes of test_locality_first, a 5-node job of profile
 * spec placed: two candidates (pod2's 2 leaves, pod1's 3). */
static orrery_placement_t *place_five_as(orrery_cluster_t *c, const char *spec)
{
	orrery_profile_t *b = profile(spec);
	orrery_placement_t *p = NULL;
	orrery_error_t err;
	uint8_t f[24];
	uint32_t busy[] = {0, 1, 4, 5, 8, 9, 12, 16, 20, 21, 22, 23};
	mark_busy(f, 24, busy, 12);
	assert_int_equal(orrery_cluster_place(c, f, 5, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 2);
	orrery_profile_free(b);
	return p;
}

/* The same, a 50 %-duty job. */
static orrery_placement_t *place_five(orrery_cluster_t *c)
{
	return place_five_as(c, HALF);
}

/* Admission: test_locality_first's contended first candidate is held
 * while its predicted cost is above the threshold and the job has waited
 * less than the limit; never for a candidate whose cost was not predicted,
 * nor with the rule off. */
static void test_hold(void **state)
{
	orrery_cluster_t *c = pods(0);
	uint32_t x[] = {12, 16};
	add_job(c, 9, x, 2, HEAVY, 0);
	orrery_placement_t *p = place_five(c);
	double cost = orrery_placement_cost(p, 0);
	assert_true(cost > 0.5);
	/* Alone, the newcomer fits the uplinks: all of it is the neighbour's. */
	assert_true(fabs(orrery_placement_hold_cost(p, 0) - cost) < 1e-9);
	assert_true(orrery_placement_hold_cost(p, 1) < 0);
	assert_true(orrery_placement_hold_cost(NULL, 0) < 0);
	/* Below the cost: held until the limit, then placed. */
	assert_int_equal(orrery_placement_hold(p, 0, cost / 2, 0, 3600), 1);
	assert_int_equal(orrery_placement_hold(p, 0, cost / 2, 3599, 3600), 1);
	assert_int_equal(orrery_placement_hold(p, 0, cost / 2, 3600, 3600), 0);
	/* At or above the cost: placed. */
	assert_int_equal(orrery_placement_hold(p, 0, cost, 0, 3600), 0);
	assert_int_equal(orrery_placement_hold(p, 0, cost * 2, 0, 3600), 0);
	/* Not predicted (the wider candidate), off, bad input: placed. */
	assert_true(orrery_placement_cost(p, 1) < 0);
	assert_int_equal(orrery_placement_hold(p, 1, 0.01, 0, 3600), 0);
	assert_int_equal(orrery_placement_hold(p, 0, cost / 2, 0, 0), 0);
	assert_int_equal(orrery_placement_hold(p, 0, 0, 0, 3600), 0);
	assert_int_equal(orrery_placement_hold(p, 0, NAN, 0, 3600), 0);
	assert_int_equal(orrery_placement_hold(p, 0, cost / 2, NAN, 3600), 0);
	assert_int_equal(orrery_placement_hold(p, 7, cost / 2, 0, 3600), 0);
	assert_int_equal(orrery_placement_hold(NULL, 0, cost / 2, 0, 3600), 0);
	/* The rule on a kept cost is the same rule. */
	assert_int_equal(orrery_hold_decide(cost, cost / 2, 0, 3600), 1);
	assert_int_equal(orrery_hold_decide(-1, cost / 2, 0, 3600), 0);
	assert_int_equal(orrery_hold_decide(NAN, cost / 2, 0, 3600), 0);
	orrery_placement_free(p);
	orrery_cluster_free(c);
}

/* A newcomer whose own traffic is twice the uplink's rate pays for it
 * wherever it crosses one, alone or not: waiting for neighbours to leave
 * takes none of that back, so admission weighs only what a neighbour
 * adds.  No neighbour: a cost, none of it to hold for; one neighbour
 * (X, 80 % duty, on both of its uplinks): held for the neighbour's part
 * only. */
static void test_hold_not_for_own_traffic(void **state)
{
	const char *wide = "period=100ms;up=0ms+50ms@200Gbps";
	orrery_cluster_t *c = pods(0);
	orrery_placement_t *p = place_five_as(c, wide);
	double cost = orrery_placement_cost(p, 0);
	assert_true(cost > 0.1);
	assert_true(fabs(orrery_placement_hold_cost(p, 0)) < 1e-9);
	assert_int_equal(orrery_placement_hold(p, 0, cost / 4, 0, 3600), 0);
	orrery_placement_free(p);

	uint32_t x[] = {12, 16};
	add_job(c, 9, x, 2, HEAVY, 0);
	p = place_five_as(c, wide);
	double with = orrery_placement_cost(p, 0), held = orrery_placement_hold_cost(p, 0);
	assert_true(held > 0.1);
	assert_true(held < with - 0.1);
	assert_int_equal(orrery_placement_hold(p, 0, held / 2, 0, 3600), 1);
	assert_int_equal(orrery_placement_hold(p, 0, (held + with) / 2, 0, 3600), 0);
	orrery_placement_free(p);
	orrery_cluster_free(c);
}

/* The same cluster, rank_spread 1: pod2's 2-leaf candidate crosses job X's
 * two uplinks (X 80 % duty, the newcomer 50 %, both at the 100 Gb/s
 * uplink's rate), so whatever the arrangement they collide.  By hand, free
 * sharing in step: both send at 50 Gb/s for 100 ms, the newcomer is done,
 * X sends its last 30 ms alone: both iterate in 150 ms (isolated 100 ms),
 * total slowdown 3.0 against X's 1.0 alone: +1.0.  Time division can do no
 * better than serialising the 80 + 50 ms of communication in a 130 ms
 * period: +0.6 at least.  pod1's 3-leaf candidate crosses no contended
 * uplink: +0, one leaf more than the local one costs 0.05, so it ranks
 * first. */
static void test_spread_when_local_collides(void **state)
{
	orrery_cluster_t *c = pods(1);
	uint32_t x[] = {12, 16}, nodes[8];
	add_job(c, 9, x, 2, HEAVY, 0);
	orrery_placement_t *p = place_five(c);
	assert_int_equal(orrery_placement_leaf_count(p, 0), 3);
	assert_int_equal(orrery_placement_nodes(p, 0, nodes, 8), 5);
	for (size_t i = 0; i < 5; i++)
		assert_true(nodes[i] < 12);  /* pod1 */
	assert_true(fabs(orrery_placement_cost(p, 0)) < EPS);
	assert_int_equal(orrery_placement_leaf_count(p, 1), 2);
	double local = orrery_placement_cost(p, 1);
	print_message("local candidate: predicted +%.3f\n", local);
	assert_true(local > 0.6 - 0.01 && local < 1.0 + 0.01);
	orrery_placement_free(p);
	orrery_cluster_free(c);
}

/* Not worth it: a job Y like X sits across pod1's leaves 0 and 1, so
 * pod1's 3-leaf candidate meets the same 80 %-duty collision on its
 * uplinks as pod2's 2-leaf one meets with X (same patterns, same shifts:
 * the same predicted slowdown).  Spreading gains nothing, less than the
 * 0.05 a leaf more costs: the local candidate stays first. */
static void test_spread_not_worth_it(void **state)
{
	orrery_cluster_t *c = pods(1);
	uint32_t x[] = {12, 16}, y[] = {0, 4};
	add_job(c, 9, x, 2, HEAVY, 0);
	add_job(c, 10, y, 2, HEAVY, 0);
	orrery_placement_t *p = place_five(c);
	assert_int_equal(orrery_placement_leaf_count(p, 0), 2);
	assert_int_equal(orrery_placement_lca_level(p, 0), 1);
	double c0 = orrery_placement_cost(p, 0), c1 = orrery_placement_cost(p, 1);
	print_message("local +%.3f, one leaf more +%.3f\n", c0, c1);
	assert_true(c0 > 0.5);
	assert_true(c1 > c0 - 0.05);
	orrery_placement_free(p);
	orrery_cluster_free(c);
}

/* A first candidate on no contended link is never re-ranked: a 2-node job
 * fits leaf1's 2 free nodes (best fit) beside a heavy job A whose uplink it
 * does not cross; with rank_spread 0 and 1 the same candidate comes first
 * and nothing is predicted. */
static void test_spread_keeps_uncontended_order(void **state)
{
	for (uint32_t spread = 0; spread <= 1; spread++) {
		orrery_cluster_t *base = two_tier(4, 4, 100000), *c = NULL;
		orrery_cluster_opts_t o;
		orrery_error_t err;
		orrery_cluster_opts_default(&o);
		o.rank_spread = spread;
		assert_int_equal(orrery_cluster_new(orrery_cluster_topology(base), &o, &c, &err),
				 ORRERY_OK);
		orrery_cluster_free(base);
		uint32_t a[] = {0, 1, 4, 5}, nodes[4];
		add_job(c, 1, a, 4, HEAVY, 0);
		orrery_profile_t *b = profile(HALF);
		orrery_placement_t *p = NULL;
		uint8_t f[16];
		mark_busy(f, 16, a, 4);
		assert_int_equal(orrery_cluster_place(c, f, 2, b, &p, &err), ORRERY_OK);
		assert_int_equal(orrery_placement_leaf_count(p, 0), 1);
		assert_int_equal(orrery_placement_nodes(p, 0, nodes, 4), 2);
		assert_int_equal(nodes[0], 2);  /* best fit: leaf1's 2 free nodes */
		assert_true(orrery_placement_cost(p, 0) < 0);
		orrery_placement_free(p);
		orrery_profile_free(b);
		orrery_cluster_free(c);
	}
}

/* Among candidates of one locality the prediction decides, not the score.
 * Six leaves of 4 nodes behind 100 Gb/s uplinks; one free node on each of
 * leaf1..leaf3, so a 2-node job needs two leaves: {1,2}, {1,3} or {2,3},
 * in best-fit (here index) order.  Heavy job X spans leaf1 and leaf5, Y
 * leaf2 and leaf3: every candidate's two uplinks each carry one heavy job
 * beside the newcomer, so all three score alike and today's order takes
 * {1,2}.  But {1,2} and {1,3} collide with X and Y, slowing both, while
 * {2,3} meets Y alone on both of its uplinks: predicted cheaper, first,
 * with rank_spread 0 (no wider candidate involved). */
static void test_prediction_ranks_same_locality(void **state)
{
	orrery_cluster_t *c = two_tier(6, 4, 100000);
	orrery_error_t err;
	uint32_t x[] = {0, 16}, y[] = {4, 8}, nodes[2];
	add_job(c, 1, x, 2, HEAVY, 0);
	add_job(c, 2, y, 2, HEAVY, 0);
	uint8_t f[24];
	memset(f, 0, sizeof f);
	f[3] = f[7] = f[11] = 1;
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	assert_int_equal(orrery_cluster_place(c, f, 2, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 3);
	double s0 = orrery_eval_score_min(orrery_placement_eval(p, 0));
	for (size_t i = 1; i < 3; i++) {
		assert_true(orrery_eval_score_min(orrery_placement_eval(p, i)) == s0);
		assert_int_equal(orrery_placement_leaf_count(p, i), 2);
	}
	assert_true(s0 < 1.0);
	assert_int_equal(orrery_placement_nodes(p, 0, nodes, 2), 2);
	assert_int_equal(nodes[0], 7);  /* leaf2 + leaf3: Y only */
	assert_int_equal(nodes[1], 11);
	double c0 = orrery_placement_cost(p, 0), c1 = orrery_placement_cost(p, 1),
	       c2 = orrery_placement_cost(p, 2);
	print_message("{2,3} +%.3f, then +%.3f, +%.3f\n", c0, c1, c2);
	assert_true(c0 > 0);
	assert_true(c0 < c1 && c0 < c2);
	orrery_placement_free(p);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* Where the prediction cannot tell candidates apart, the ranking keeps
 * whole leaves whole for the jobs to come.  Leaves of 4: leaf1 3 free,
 * leaf2 2 free, leaf3 4 free, leaf4 busy; X (heavy) crosses leaf1 and
 * leaf2.  A 5-node newcomer needs two leaves and every pair meets X on
 * one uplink or both (one collision either way: the same prediction).
 * cons_tres's best fit takes leaf3 and one node of leaf2, leaving three
 * leaves partly free; leaf1 + leaf2 fills both and keeps leaf3 whole, so
 * that a later 4-node job still fits one leaf. */
static void test_ranking_keeps_leaves_whole(void **state)
{
	orrery_cluster_t *c = two_tier(4, 4, 100000);
	orrery_error_t err;
	uint32_t x[] = {0, 4}, nodes[5];
	add_job(c, 1, x, 2, HEAVY, 0);
	uint8_t f[16];
	uint32_t busy[] = {0, 4, 5, 12, 13, 14, 15};
	mark_busy(f, 16, busy, 7);
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	assert_int_equal(orrery_cluster_place(c, f, 5, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 3);
	double cost[3];
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(orrery_placement_leaf_count(p, i), 2);
		cost[i] = orrery_placement_cost(p, i);
		assert_int_equal(orrery_placement_nodes(p, i, nodes, 5), 5);
		print_message("candidate %zu: n%02u n%02u n%02u n%02u n%02u, predicted +%.3f\n", i,
			      nodes[0], nodes[1], nodes[2], nodes[3], nodes[4], cost[i]);
		assert_true(cost[i] > 0);
	}
	assert_true(fabs(cost[0] - cost[1]) < EPS && fabs(cost[0] - cost[2]) < EPS);
	uint32_t want[] = {1, 2, 3, 6, 7};
	assert_int_equal(orrery_placement_nodes(p, 0, nodes, 5), 5);
	assert_memory_equal(nodes, want, sizeof want);
	orrery_placement_free(p);
	orrery_profile_free(b);
	orrery_cluster_free(c);
}

/* The nodes of candidate i, and its score, into nodes[]/score. */
static size_t nodes_of(const orrery_placement_t *p, size_t i, uint32_t *nodes,
		       size_t cap, double *score_min, double *score_mean)
{
	const orrery_eval_t *e = orrery_placement_eval(p, i);
	assert_non_null(e);
	*score_min = orrery_eval_score_min(e);
	*score_mean = orrery_eval_score_mean(e);
	return orrery_placement_nodes(p, i, nodes, cap);
}

/* Candidates that tie in locality and score go to topology/tree's best
 * fit, as cons_tres would place the job, not to the lowest-numbered
 * nodes: the fuller leaf, the fuller switch, the fuller last leaf. */
static void test_ties_go_to_best_fit(void **state)
{
	orrery_profile_t *b = profile(HALF);
	orrery_placement_t *p = NULL;
	orrery_error_t err;
	uint32_t nodes[8], other[8];
	double min0, mean0, min1, mean1;

	/* Leaf: 3 nodes fit leaf1 (4 free) and leaf2 (3 free, n04 busy);
	 * both cross no uplink.  Best fit: leaf2, n05-n07. */
	orrery_cluster_t *c = two_tier(4, 4, 100000);
	uint8_t f[24];
	uint32_t busy1[] = {4, 8, 9, 10, 11, 12, 13, 14, 15};
	mark_busy(f, 16, busy1, 9);
	assert_int_equal(orrery_cluster_place(c, f, 3, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 2);
	assert_int_equal(nodes_of(p, 0, nodes, 8, &min0, &mean0), 3);
	assert_int_equal(nodes_of(p, 1, other, 8, &min1, &mean1), 3);
	assert_true(min0 == min1 && mean0 == mean1);
	assert_int_equal(orrery_placement_lca_level(p, 0), orrery_placement_lca_level(p, 1));
	assert_int_equal(nodes[0], 5);
	assert_int_equal(nodes[2], 7);
	assert_int_equal(other[0], 0);  /* leaf1 second */
	orrery_placement_free(p);

	/* Last leaf: 6 nodes need two leaves; free leaf1 4, leaf2 4, leaf3 2
	 * (n08, n09 busy), leaf4 none.  cons_tres takes the largest leaf
	 * first (leaf1, the lower index of two equal), then the fullest
	 * leaf that completes the job: leaf3's 2, not 2 of leaf2's 4. */
	uint32_t busy2[] = {8, 9, 12, 13, 14, 15};
	mark_busy(f, 16, busy2, 6);
	assert_int_equal(orrery_cluster_place(c, f, 6, b, &p, &err), ORRERY_OK);
	assert_int_equal(orrery_placement_count(p), 3);
	assert_int_equal(nodes_of(p, 0, nodes, 8, &min0, &mean0), 6);
	for (size_t i = 1; i < 3; i++) {
		assert_int_equal(nodes_of(p, i, other, 8, &min1, &mean1), 6);
		assert_int_equal(orrery_placement_leaf_count(p, i), 2);
		assert_true(min0 == min1 && mean0 == mean1);
	}
	uint32_t want2[] = {0, 1, 2, 3, 10, 11};
	assert_memory_equal(nodes, want2, sizeof want2);
	orrery_placement_free(p);
	orrery_cluster_free(c);

	/* Switch: 6 nodes need two leaves in pod1 (8 free: 4 + 4) or pod2
	 * (7 free: 4 + 3).  Both fill 4 + 2 across two leaf uplinks that
	 * nobody else uses; best fit takes the fuller pod2: n12-n17. */
	c = pods(0);
	uint32_t busy3[] = {8, 9, 10, 11, 16, 20, 21, 22, 23};
	mark_busy(f, 24, busy3, 9);
	assert_int_equal(orrery_cluster_place(c, f, 6, b, &p, &err), ORRERY_OK);
	assert_true(orrery_placement_count(p) >= 2);
	assert_int_equal(nodes_of(p, 0, nodes, 8, &min0, &mean0), 6);
	assert_int_equal(orrery_placement_lca_level(p, 0), 1);
	assert_int_equal(orrery_placement_leaf_count(p, 0), 2);
	uint32_t want3[] = {12, 13, 14, 15, 17, 18};
	assert_memory_equal(nodes, want3, sizeof want3);
	int in_pod1 = 0;
	for (size_t i = 1; i < orrery_placement_count(p); i++) {
		assert_int_equal(nodes_of(p, i, other, 8, &min1, &mean1), 6);
		assert_int_equal(orrery_placement_leaf_count(p, i), 2);
		assert_true(min0 == min1 && mean0 == mean1);
		in_pod1 |= other[5] < 12;
	}
	assert_true(in_pod1);  /* pod1's candidate is there, ranked behind */
	orrery_placement_free(p);
	orrery_cluster_free(c);
	orrery_profile_free(b);
}

/* rank_spread outside 0..ORRERY_RANK_SPREAD_MAX is refused. */
static void test_spread_range(void **state)
{
	orrery_cluster_t *base = two_tier(2, 2, 100000), *c = NULL;
	orrery_cluster_opts_t o;
	orrery_error_t err;
	orrery_cluster_opts_default(&o);
	assert_int_equal(o.rank_spread, ORRERY_RANK_SPREAD_DEFAULT);
	o.rank_spread = ORRERY_RANK_SPREAD_MAX + 1;
	assert_int_equal(orrery_cluster_new(orrery_cluster_topology(base), &o, &c, &err),
			 ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "rank_spread"));
	orrery_cluster_free(base);
}

/* Two 50% jobs chained through leaf2: no loop, both links perfect, the
 * shifts half a period apart. */
static void test_solve_chain(void **state)
{
	orrery_cluster_t *c = two_tier(3, 4, 100000);
	orrery_solve_t *s = NULL;
	orrery_error_t err;
	orrery_solve_link_t l;
	uint32_t j1[] = {0, 4}, j2[] = {5, 8};
	int64_t s1, s2, old;
	add_job(c, 1, j1, 2, HALF, 0);
	add_job(c, 2, j2, 2, HALF, 0);
	assert_int_equal(orrery_cluster_solve(c, 0, &s, &err), ORRERY_OK);
	assert_int_equal(orrery_solve_loops(s), 0);
	assert_int_equal(orrery_solve_link_count(s), 1);  /* only leaf2 is shared */
	assert_int_equal(orrery_solve_link(s, 0, &l), ORRERY_OK);
	assert_int_equal(l.switch_index, 2);
	assert_int_equal(l.jobs, 2);
	assert_false(l.loop_closing);
	assert_true(fabs(l.score_optimal - 1.0) < EPS);
	assert_true(fabs(l.score_achieved - 1.0) < EPS);
	assert_int_equal(orrery_solve_job_shift(s, 1, &s1), ORRERY_OK);
	assert_int_equal(orrery_solve_job_shift(s, 2, &s2), ORRERY_OK);
	assert_int_equal(((s2 - s1) % 100000 + 100000) % 100000, 50000);
	assert_int_equal(orrery_solve_job_shift(s, 3, &s1), ORRERY_ENOENT);
	/* apply = 0 leaves the cluster alone. */
	orrery_cluster_job_shift_us(c, 2, &old, NULL);
	assert_int_equal(old, 0);
	orrery_solve_free(s);
	orrery_cluster_free(c);
}

/* Three 50% jobs pairwise sharing three leaf uplinks: an odd loop, so not
 * every pair can be half a period apart.  The solve reports the loop and
 * what the closing link achieves; apply writes the shifts. */
static void test_solve_loop(void **state)
{
	orrery_cluster_t *c = two_tier(3, 4, 100000);
	orrery_solve_t *s = NULL;
	orrery_error_t err;
	uint32_t j1[] = {0, 4}, j2[] = {5, 8}, j3[] = {1, 9};
	add_job(c, 1, j1, 2, HALF, 0);
	add_job(c, 2, j2, 2, HALF, 0);
	add_job(c, 3, j3, 2, HALF, 0);
	uint64_t v = orrery_cluster_version(c);
	assert_int_equal(orrery_cluster_solve(c, 1, &s, &err), ORRERY_OK);
	assert_true(orrery_solve_loops(s) >= 1);
	assert_int_equal(orrery_solve_link_count(s), 3);
	int closing = 0;
	double worst = 2.0;
	for (size_t i = 0; i < 3; i++) {
		orrery_solve_link_t l;
		assert_int_equal(orrery_solve_link(s, i, &l), ORRERY_OK);
		assert_int_equal(l.jobs, 2);
		assert_true(fabs(l.score_optimal - 1.0) < EPS);
		if (l.loop_closing)
			closing++;
		else
			assert_true(fabs(l.score_achieved - 1.0) < EPS);
		if (l.score_achieved < worst)
			worst = l.score_achieved;
	}
	assert_int_equal(closing, 1);
	/* Two pairs half a period apart force the third pair into step. */
	assert_true(fabs(worst - 0.5) < EPS);
	assert_true(orrery_cluster_version(c) > v);
	for (uint32_t id = 1; id <= 3; id++) {
		int64_t want, got;
		assert_int_equal(orrery_solve_job_shift(s, id, &want), ORRERY_OK);
		assert_int_equal(orrery_cluster_job_shift_us(c, id, &got, NULL), ORRERY_OK);
		assert_int_equal(got, want);
	}
	orrery_solve_free(s);
	setenv("ORRERY_FAULT", "solve", 1);
	assert_int_equal(orrery_cluster_solve(c, 1, &s, &err), ORRERY_EINTERNAL);
	unsetenv("ORRERY_FAULT");
	orrery_cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluate_shares_link),
		cmocka_unit_test(test_evaluate_matches_brute_force),
		cmocka_unit_test(test_evaluate_errors),
		cmocka_unit_test(test_unknown_capacity),
		cmocka_unit_test(test_place_prefers_interleavable_links),
		cmocka_unit_test(test_place_single_leaf),
		cmocka_unit_test(test_place_no_traffic),
		cmocka_unit_test(test_prefers_less_shift_dependence),
		cmocka_unit_test(test_locality_first),
		cmocka_unit_test(test_spread_when_local_collides),
		cmocka_unit_test(test_spread_not_worth_it),
		cmocka_unit_test(test_spread_keeps_uncontended_order),
		cmocka_unit_test(test_prediction_ranks_same_locality),
		cmocka_unit_test(test_ranking_keeps_leaves_whole),
		cmocka_unit_test(test_spread_range),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_not_for_own_traffic),
		cmocka_unit_test(test_ties_go_to_best_fit),
		cmocka_unit_test(test_solve_chain),
		cmocka_unit_test(test_solve_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
