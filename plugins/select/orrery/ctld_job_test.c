/*
 * ctld_job_test.c - job_test for a job with a comm profile that cons_tres
 * can start now: rank candidate node sets and hand cons_tres the best
 * one; next candidates, then cons_tres's own answer on the full set.  A
 * job that cannot start costs one cons_tres call and no ranking.
 * Rankings are cached per job (place_cache.h) and read-only: job_test
 * runs many times per job.  Advise mode only logs the best candidate.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/job_resources.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "ctld_state.h"

#include "src/common/node_conf.h"

#include "free_cpus.h"
#include "options.h"

/* slurmctld's own: weak, the plugin also loads in client commands. */
#pragma weak last_job_update

/* Candidates handed to cons_tres before the unnarrowed bitmap. */
#define MAX_TRIES ORR_CACHE_MAX_CANDS

/* cons_tres's job_test, timed.  Called with and without orr_ctld_lock (always
 * under slurmctld's job write lock), hence the atomic adds. */
static int delegate(orrery_job_test_args_t *a, bitstr_t *bitmap)
{
	uint64_t c0 = orr_cpu_ns(), t0 = orr_now_ns();
	int rc = a->delegate(a, bitmap);

	__atomic_fetch_add(&orr_stats.ct_ns, orr_now_ns() - t0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&orr_stats.ct_cpu_ns, orr_cpu_ns() - c0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&orr_stats.ct_calls, 1, __ATOMIC_RELAXED);
	return rc;
}

/* What cons_tres's answer depends on besides the bitmap and the state
 * version: cores held by reservations and the job's size. */
static uint64_t req_hash(const orrery_job_test_args_t *a)
{
	job_details_t *d = a->job_ptr->details;
	uint64_t v[7] = {
		a->max_nodes, a->req_nodes,
		d ? d->min_cpus : 0, d ? d->max_cpus : 0,
		d ? d->num_tasks : 0, d ? d->pn_min_cpus : 0,
		d ? d->pn_min_memory : 0,
	};

	return orr_hash_bytes(a->hash_exclusions(a, ORR_HASH_INIT), v,
			      sizeof(v));
}

/*
 * Nodes orrery ranks among, from the offered `bitmap': those with CPUs
 * enough for the job (free_cpus.c), and of those the ones that run no job
 * when there are at least `want' of them.  slurmctld already removes busy
 * nodes from the bitmap of an exclusive job, but a job that may share
 * nodes is offered every node, however few cores it has left; ranking
 * among those put the best candidates on nodes that could not take the
 * job, cons_tres refused them all and the job landed where cons_tres
 * alone would put it (doc/benchmark-report.md).  Idle nodes first: a
 * communication-heavy job also wants its node's NIC to itself, a shared
 * NIC being a link orrery does not model.  Should fewer than `want' nodes
 * pass the CPU count (it ignores memory and GRES), every offered node is
 * ranked and cons_tres sorts it out.
 */
static void mark_free_nodes(job_record_t *job_ptr, bitstr_t *bitmap,
			    uint8_t *free_nodes, uint32_t want)
{
	bitstr_t *idle = &idle_node_bitmap ? idle_node_bitmap : NULL;
	uint32_t need = job_ptr->details ? job_ptr->details->pn_min_cpus : 1;
	bitstr_t *fit = orr_nodes_with_free_cpus(bitmap, need ? need : 1,
						 &job_list ? job_list : NULL);
	bitstr_t *from = bitmap;
	uint32_t n_idle = 0;

	if (fit && bit_set_count(fit) >= want)
		from = fit;
	for (size_t i = 0; i < orr_g.orr_nodes; i++) {
		uint32_t s = orr_g.orr2slurm[i];

		free_nodes[i] = (s < bit_size(from)) && bit_test(from, s);
		if (free_nodes[i] && idle && s < bit_size(idle) &&
		    bit_test(idle, s))
			n_idle++;
	}
	if (idle && n_idle >= want) {
		for (size_t i = 0; i < orr_g.orr_nodes; i++) {
			uint32_t s = orr_g.orr2slurm[i];

			if (free_nodes[i] &&
			    !(s < bit_size(idle) && bit_test(idle, s)))
				free_nodes[i] = 0;
		}
	}
	FREE_NULL_BITMAP(fit);
}

/* Rank candidate node sets of n_nodes among a->bitmap and keep the
 * first MAX_TRIES in e under key.  false: placement failed (reported). */
static bool rank_locked(orrery_job_test_args_t *a, orr_entry_t *e,
			const orrery_profile_t *prof,
			const orr_rank_key_t *key, uint32_t n_nodes)
{
	orrery_placement_t *pl = NULL;
	orrery_error_t err = { 0 };
	orr_cand_t cands[MAX_TRIES];
	uint8_t *free_nodes;
	uint32_t *nodes = NULL;
	uint32_t want = n_nodes ? n_nodes : 1;
	size_t cnt, n_c = 0;
	bool ok = false;

	free_nodes = xcalloc(orr_g.orr_nodes ? orr_g.orr_nodes : 1, 1);
	mark_free_nodes(a->job_ptr, a->bitmap, free_nodes, want);
	if (orrery_cluster_place(orr_g.cluster, free_nodes, want, prof,
				 &pl, &err)) {
		snprintf(e->fallback, sizeof(e->fallback), "placement_error");
		orr_fallback(a->job_ptr, "placement failed: %s", err.message);
		goto out;
	}
	cnt = orrery_placement_count(pl);
	nodes = xcalloc((size_t) MAX_TRIES * want, sizeof(uint32_t));
	for (size_t c = 0; c < cnt && n_c < MAX_TRIES; c++) {
		uint32_t *dst = nodes + n_c * want;
		size_t n = orrery_placement_nodes(pl, c, dst, want);
		const orrery_eval_t *ev = orrery_placement_eval(pl, c);
		size_t k = 0;

		if (!ev)
			break;
		if (n > want)	/* only `want' were copied */
			n = want;
		for (size_t i = 0; i < n; i++)	/* to Slurm node indices */
			if (dst[i] < orr_g.orr_nodes)
				dst[k++] = orr_g.orr2slurm[dst[i]];
		cands[n_c++] = (orr_cand_t) {
			.nodes = dst, .n = k,
			.score_min = orrery_eval_score_min(ev),
			.score_mean = orrery_eval_score_mean(ev),
			.cost = orrery_placement_cost(pl, c),
			.hold_cost = orrery_placement_hold_cost(pl, c),
			.shift_us = orrery_eval_shift_us(ev),
		};
	}
	ok = orr_cache_set_ranking(orr_g.cache, e, key, cnt, cands, n_c);
out:
	xfree(nodes);
	xfree(free_nodes);
	orrery_placement_free(pl);
	return ok;
}

/* A narrowed answer that changes what the job's options mean is refused
 * like one cons_tres refused itself. */
static bool answer_keeps_options(job_record_t *job_ptr, bitstr_t *full,
				 bitstr_t *answer, size_t c)
{
	char why[96];

	if (orr_answer_keeps_options(job_ptr, full, answer, why, sizeof(why)))
		return true;
	info("select/orrery: %pJ candidate %zu not taken: %s", job_ptr, c + 1,
	     why);
	return false;
}

static void log_candidate(job_record_t *job_ptr, const orr_entry_t *e,
			  size_t c, bitstr_t *try, bool narrow)
{
	char *names = bitmap2node_name(try);
	char cost[40] = "";

	if (e->cand[c].cost >= 0)	/* contention-aware ranking predicted it */
		snprintf(cost, sizeof(cost), " slowdown=+%.3f", e->cand[c].cost);
	info("select/orrery: %s %pJ candidate %zu/%zu %s score_min=%.3f score_mean=%.3f shift=%"PRId64"us%s",
	     narrow ? "trying" : "advise:", job_ptr, c + 1, e->n_total, names,
	     e->cand[c].score_min, e->cand[c].score_mean,
	     e->cand[c].shift_us, cost);
	xfree(names);
}

/*
 * Admission (orrery.conf hold=COST,SECONDS; orrery-score(7), HOLDING A
 * JOB): sharing the links of the candidate to be tried first is predicted
 * to add more than COST jobs of slowdown (what the job would pay there
 * alone does not count: waiting does not take it back) and the job became
 * eligible less than SECONDS ago: it waits, as a job cons_tres cannot
 * place now does.  Each time it starts waiting: one log line, and
 * AdminComment gets a fallback-only ORR1: record with fallback=held
 * (squeue says Resources, and select plugins cannot set the reason:
 * the scheduler overwrites it after job_test); its entry's fallback is
 * "held" while it does (cleared when orrery places it), and the record
 * it starts with says for how long (held_s, from the first hold).
 */
static bool hold_locked(job_record_t *job_ptr, orr_entry_t *e, size_t first)
{
	job_details_t *d = job_ptr->details;
	time_t now = time(NULL), since;
	double cost;

	if (!orr_ocnf.hold_max_s || first >= e->n_cand || !d)
		return false;
	since = d->begin_time > d->submit_time ? d->begin_time : d->submit_time;
	cost = e->cand[first].hold_cost;
	if (!orrery_hold_decide(cost, orr_ocnf.hold_cost, difftime(now, since),
				orr_ocnf.hold_max_s))
		return false;
	if (!e->held_since)
		e->held_since = now;
	/* The start backfill plans for it (plan_held): the hold's end. */
	e->clear_at = since + (time_t) orr_ocnf.hold_max_s;
	if (strcmp(e->fallback, "held")) {
		snprintf(e->fallback, sizeof(e->fallback), "held");
		orr_stats.holds++;
		info("select/orrery: %pJ held: its neighbours would add %.2f jobs of slowdown on its placement's links (hold=%g,%u); waiting up to %lds more",
		     job_ptr, cost, orr_ocnf.hold_cost, orr_ocnf.hold_max_s,
		     (long) (orr_ocnf.hold_max_s - difftime(now, since)));
		orr_record_unplaced_locked(job_ptr,
					   orr_job_profile_spec(job_ptr), e,
					   "held");
		if (&last_job_update)
			last_job_update = now;
	}
	return true;
}

/*
 * Rank (or reuse the ranking of) the job among a->bitmap; with narrow,
 * try the candidates: SLURM_SUCCESS with a->bitmap narrowed, or
 * SLURM_ERROR when cons_tres took none (*tries: how many it was
 * offered), ESLURM_NODES_BUSY when the job is held (hold_locked).  The ranking is reused while its
 * key holds (same state version, bitmap, request); so is what cons_tres
 * answered: candidates it refused under that key are not offered again.
 * `answer': the nodes cons_tres just chose on the full set; candidates
 * are of its size (options.c: -N min-max, --spread-job, ... keep their
 * meaning), and a narrowed answer is taken only if it keeps what the
 * job's options define (orr_answer_keeps_options()).  A first candidate
 * equal to it is taken without asking cons_tres again, since nothing
 * has rewritten the job's resources since that answer.
 */
static int place_locked(orrery_job_test_args_t *a, bool narrow,
			bitstr_t *answer, size_t *tries)
{
	uint32_t n_nodes = bit_set_count(answer);
	job_record_t *job_ptr = a->job_ptr;
	orr_entry_t *e;
	orr_rank_key_t key;
	int rc = SLURM_ERROR;
	size_t first;

	if (!(e = orr_job_entry_locked(job_ptr, orr_job_profile_spec(job_ptr))))
		return SLURM_ERROR;
	orr_stats.tested++;
	key = (orr_rank_key_t) {
		.version = orr_g.version,
		.bitmap_hash = orr_hash_bitmap(ORR_HASH_INIT, a->bitmap),
		.req_hash = req_hash(a),
		.min_nodes = n_nodes,
	};
	if (e->ranked && orr_key_equal(&e->key, &key)) {
		orr_stats.rank_hits++;
	} else {
		uint64_t t0 = orr_now_ns();
		const orrery_profile_t *prof;
		bool ok;

		orr_stats.rank_misses++;
		orr_cache_unrank(orr_g.cache, e);
		prof = orr_entry_profile_locked(job_ptr, e, n_nodes);
		ok = prof && rank_locked(a, e, prof, &key, n_nodes);
		orr_stats.rank_ns += orr_now_ns() - t0;
		if (!ok)
			goto out;
	}
	if (!e->n_cand) {
		snprintf(e->fallback, sizeof(e->fallback), "no_candidate");
		if (orr_debug())
			info("select/orrery: no candidate of %u nodes among the free ones for %pJ",
			     n_nodes, job_ptr);
		goto out;
	}
	orr_stats.placements++;
	first = e->outcome == ORR_OUTCOME_UNKNOWN ? 0 : (size_t) e->outcome;
	if (narrow && hold_locked(job_ptr, e, first)) {
		rc = ESLURM_NODES_BUSY;
		goto out;
	}
	for (size_t c = narrow ? first : 0; c < e->n_cand; c++) {
		bitstr_t *try = bit_alloc(bit_size(a->bitmap));
		bool kept;

		for (uint32_t i = 0; i < e->cand[c].n; i++)
			if (e->cand[c].nodes[i] < bit_size(try))
				bit_set(try, e->cand[c].nodes[i]);
		if (!narrow || orr_debug())
			log_candidate(job_ptr, e, c, try, narrow);
		if (!narrow) {
			FREE_NULL_BITMAP(try);
			break;
		}
		kept = !*tries && answer && bit_equal(try, answer);
		if (kept) {
			orr_stats.kept++;
			if (orr_debug())
				info("select/orrery: %pJ candidate %zu is cons_tres's own choice: kept",
				     job_ptr, c + 1);
		} else {
			(*tries)++;
		}
		if (kept || (delegate(a, try) == SLURM_SUCCESS &&
			     answer_keeps_options(job_ptr, answer, try, c))) {
			bit_copybits(a->bitmap, try);
			e->fallback[0] = '\0';
			FREE_NULL_BITMAP(try);
			e->outcome = (int) c;
			orr_stats.narrowed++;
			rc = SLURM_SUCCESS;
			break;
		}
		FREE_NULL_BITMAP(try);
		e->outcome = (int) c + 1;
	}
	if (narrow)
		orr_stats.tries_skipped += first;
	if (narrow && rc != SLURM_SUCCESS)
		snprintf(e->fallback, sizeof(e->fallback),
			 "candidates_refused");
	else if (!narrow)
		snprintf(e->fallback, sizeof(e->fallback), "advise");
out:
	orr_log_stats_locked(false);
	return rc;
}

static int job_test(orrery_job_test_args_t *a);

/*
 * Will-run for a job admission holds (hold_locked): cons_tres says when it
 * could start; orrery says not before the hold's end at the latest
 * (eligible + hold's SECONDS), so backfill reserves its nodes from then
 * and lets other jobs use them until then, instead of reserving them
 * from now (the start it planned fails; backfill.c then reserves what it
 * planned).  Run-now still starts the job as soon as its placement's
 * neighbours no longer hold it, with the nodes then free.  squeue
 * --start shows the planned time.  orrery-sim measured it
 * (doc/benchmark-report.md, "Planning a held job").
 */
static void plan_held(job_record_t *job_ptr)
{
	orr_entry_t *e;

	/* Backfill asks this of every job it plans: with hold= off (the
	 * default) it costs one load, not a lock. */
	if (!__atomic_load_n(&orr_hold_on, __ATOMIC_RELAXED))
		return;
	slurm_mutex_lock(&orr_ctld_lock);
	if (orr_ocnf.hold_max_s &&
	    (e = orr_cache_find(orr_g.cache, job_ptr->job_id)) &&
	    !strcmp(e->fallback, "held") && e->clear_at > job_ptr->start_time) {
		if (orr_debug())
			info("select/orrery: %pJ held: planned from its hold's end, in %lds",
			     job_ptr, (long) (e->clear_at - time(NULL)));
		job_ptr->start_time = e->clear_at;
	}
	slurm_mutex_unlock(&orr_ctld_lock);
}

int orrery_ctld_job_test(orrery_job_test_args_t *a)
{
	bool run_now = SELECT_IS_MODE_RUN_NOW(a->mode);
	uint64_t c0 = orr_cpu_ns(), t0 = orr_now_ns();
	/* Will-run (backfill's plan), test-only and reservation tests:
	 * cons_tres's, untouched (a held job's will-run start excepted,
	 * plan_held).  Timed once for both counters: the CPU clock is a
	 * system call (1.1 us on the CI machine), and backfill makes
	 * several such calls per job it plans, for which timing it twice
	 * cost about 5% of a cycle. */
	int rc = run_now ? job_test(a) : a->delegate(a, a->bitmap);
	uint64_t dt = orr_now_ns() - t0, dc = orr_cpu_ns() - c0;

	if (rc == SLURM_SUCCESS && SELECT_IS_MODE_WILL_RUN(a->mode))
		plan_held(a->job_ptr);

	__atomic_fetch_add(&orr_stats.jt_ns, dt, __ATOMIC_RELAXED);
	__atomic_fetch_add(&orr_stats.jt_cpu_ns, dc, __ATOMIC_RELAXED);
	__atomic_fetch_add(&orr_stats.jt_calls, 1, __ATOMIC_RELAXED);
	if (run_now) {
		__atomic_fetch_add(&orr_stats.run_ns, dt, __ATOMIC_RELAXED);
		__atomic_fetch_add(&orr_stats.run_cpu_ns, dc, __ATOMIC_RELAXED);
		__atomic_fetch_add(&orr_stats.run_calls, 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&orr_stats.ct_ns, dt, __ATOMIC_RELAXED);
		__atomic_fetch_add(&orr_stats.ct_cpu_ns, dc, __ATOMIC_RELAXED);
		__atomic_fetch_add(&orr_stats.ct_calls, 1, __ATOMIC_RELAXED);
	}
	return rc;
}

/*
 * Enforce mode, a job to start now.  cons_tres first answers on the full
 * set: a job that cannot start anywhere (most calls: a waiting job is
 * tested on every pass) costs what it costs without orrery, and no
 * ranking.  A job that can start is then offered orrery's candidates;
 * if cons_tres refuses them all, it answers on the full set again.  (Its
 * first answer cannot be kept once another call ran: every job_test
 * call also rewrites the job's job_resrcs, total_cpus and GRES
 * selection.)  Called with orr_ctld_lock held;
 * returns with it released.
 */
static int narrow_locked(orrery_job_test_args_t *a)
{
	bitstr_t *full = bit_copy(a->bitmap);
	size_t tries = 0;
	int rc;

	slurm_mutex_unlock(&orr_ctld_lock);
	rc = delegate(a, full);
	if (rc != SLURM_SUCCESS)
		goto out;
	slurm_mutex_lock(&orr_ctld_lock);
	rc = place_locked(a, true, full, &tries);	/* a->bitmap: offered set */
	slurm_mutex_unlock(&orr_ctld_lock);
	if (rc == SLURM_SUCCESS)
		goto out;
	if (rc == ESLURM_NODES_BUSY) {
		/* Held: leave the job as a failed cons_tres test leaves it. */
		free_job_resources(&a->job_ptr->job_resrcs);
		goto out;
	}
	if (!tries) {	/* nothing ran since the full answer: it stands */
		bit_copybits(a->bitmap, full);
		rc = SLURM_SUCCESS;
		goto out;
	}
	rc = delegate(a, a->bitmap);
out:
	FREE_NULL_BITMAP(full);
	return rc;
}

/* Advise mode: cons_tres decides on the full set; for a job that can
 * start, the best candidate among the offered nodes is logged.  Called
 * with orr_ctld_lock held; returns with it released. */
static int advise_locked(orrery_job_test_args_t *a)
{
	orrery_job_test_args_t offered = *a;
	int rc;

	offered.bitmap = bit_copy(a->bitmap);
	slurm_mutex_unlock(&orr_ctld_lock);
	rc = delegate(a, a->bitmap);
	if (rc == SLURM_SUCCESS) {
		slurm_mutex_lock(&orr_ctld_lock);
		size_t tries = 0;

		place_locked(&offered, false, a->bitmap, &tries);
		slurm_mutex_unlock(&orr_ctld_lock);
	}
	FREE_NULL_BITMAP(offered.bitmap);
	return rc;
}

static int job_test(orrery_job_test_args_t *a)
{
	job_record_t *job_ptr = a->job_ptr;
	const char *unkept;
	bool narrow;

	/* Run-now only (orrery_ctld_job_test passes the others through). */
	slurm_mutex_lock(&orr_ctld_lock);
	if (!orr_ensure_cluster_locked() || !orr_job_profile_spec(job_ptr))
		goto unlocked_delegate;
	/* Options a narrowed bitmap would not keep (options.c): the job is
	 * cons_tres's, and its record says why. */
	narrow = orr_ocnf.mode == ORRERY_MODE_ENFORCE;
	if (narrow && (unkept = orr_option_unkept(job_ptr,
						  a->preemptee_candidates))) {
		orr_entry_t *e = orr_job_entry_locked(job_ptr,
						  orr_job_profile_spec(job_ptr));

		if (e && strcmp(e->fallback, unkept)) {
			snprintf(e->fallback, sizeof(e->fallback), "%s",
				 unkept);
			info("select/orrery: %pJ has %s, left to cons_tres as it is",
			     job_ptr, unkept);
		}
		goto unlocked_delegate;
	}
	if (!narrow && orr_ocnf.mode != ORRERY_MODE_ADVISE)
		goto unlocked_delegate;
	if (narrow)
		return narrow_locked(a);	/* unlocks */
	return advise_locked(a);	/* unlocks */
unlocked_delegate:
	slurm_mutex_unlock(&orr_ctld_lock);
	return delegate(a, a->bitmap);
}
