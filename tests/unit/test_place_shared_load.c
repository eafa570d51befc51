/*
 * One placement decision shares work across its candidates (each uplink's
 * pinned load is built once per call, lib/circle/pinned_load.hpp).  That
 * must never change an answer: every ranked candidate's evaluation must be
 * bit for bit what orrery_cluster_evaluate() gives for the same node set
 * on its own (a fresh cache, nothing shared).  Random fabrics of many
 * running jobs, single pipes and ECMP uplinks, both rankings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orrery.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint32_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Period 50-500 ms (some of them equal, so circles repeat), 1-3 Up
 * phases, 10-100 Gb/s, some all-to-all (scaled per crossing). */
static orrery_profile_t *random_profile(void)
{
	orrery_phase_t ph[3];
	orrery_profile_t *p = NULL;
	orrery_error_t err;
	int64_t period = (rnd() % 2 ? 100 : 50 + rnd() % 451) * 1000LL;
	size_t n = 1 + rnd() % 3;
	int64_t slot = period / (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		int64_t dur = period * (5 + rnd() % 40) / 100;
		if (dur > slot)
			dur = slot;
		ph[i].offset_us = (int64_t)i * slot + (int64_t)(rnd() % (uint32_t)(slot - dur + 1));
		ph[i].duration_us = dur;
		ph[i].demand_mbps = (10 + rnd() % 91) * 1000ULL;
		ph[i].collective = (rnd() % 4 == 0) ? ORRERY_COLL_ALLTOALL : ORRERY_COLL_RING;
		ph[i].groups = 0;
	}
	assert_int_equal(orrery_profile_new(period, ph, n, &p, &err), ORRERY_OK);
	return p;
}

/* 3 tiers, 48 leaves of 32 in pods of 8; ~60% of the nodes busy with
 * jobs spread over one pod each (200 of 2-7 nodes).  ecmp: 4 parallel leaf uplinks. */
static orrery_cluster_t *loaded_cluster(int ecmp, uint32_t rank_spread, uint8_t *free_nodes)
{
	orrery_fabric_t f = {
		.tiers = 3, .nodes_per_leaf = 32, .leaves = 48, .leaves_per_pod = 8,
		.node_link_mbps = 100000, .oversub_leaf = 4.0, .oversub_pod = 2.0,
		.node_prefix = "node",
	};
	orrery_topology_t *t = NULL;
	orrery_cluster_t *c = NULL;
	orrery_cluster_opts_t o;
	orrery_error_t err;
	assert_int_equal(orrery_topology_generate(&f, &t, &err), ORRERY_OK);
	if (ecmp)
		assert_int_equal(orrery_topology_set_level_uplink_links(t, 1, 4, &err), ORRERY_OK);
	orrery_cluster_opts_default(&o);
	o.rank_spread = rank_spread;
	assert_int_equal(orrery_cluster_new(t, &o, &c, &err), ORRERY_OK);
	size_t nodes = orrery_topology_node_count(t);
	memset(free_nodes, 1, nodes);
	uint32_t jn[64];
	for (uint32_t id = 1; id <= 200; id++) {
		uint32_t size = 2 + rnd() % 6, got = 0, pod = rnd() % 6;
		for (uint32_t tries = 0; got < size && tries < 64 * size; tries++) {
			uint32_t node = pod * 256 + rnd() % 256;
			if (!free_nodes[node])
				continue;
			free_nodes[node] = 0;
			jn[got++] = node;
		}
		orrery_profile_t *p = random_profile();
		int64_t shift = rnd() % (uint32_t)orrery_profile_period_us(p);
		if (got)
			assert_int_equal(orrery_cluster_add_job(c, id, jn, got, p, shift, &err),
					 ORRERY_OK);
		orrery_profile_free(p);
	}
	orrery_topology_free(t);
	return c;
}

static void assert_same_eval(const orrery_eval_t *a, const orrery_eval_t *b)
{
	assert_int_equal(orrery_eval_shift_us(a), orrery_eval_shift_us(b));
	assert_int_equal(orrery_eval_period_us(a), orrery_eval_period_us(b));
	/* Bit for bit: the shared work is the same arithmetic, done once. */
	assert_true(orrery_eval_score_min(a) == orrery_eval_score_min(b));
	assert_true(orrery_eval_score_mean(a) == orrery_eval_score_mean(b));
	assert_int_equal(orrery_eval_link_count(a), orrery_eval_link_count(b));
	for (size_t l = 0; l < orrery_eval_link_count(a); l++) {
		orrery_link_eval_t x, y;
		assert_int_equal(orrery_eval_link(a, l, &x), ORRERY_OK);
		assert_int_equal(orrery_eval_link(b, l, &y), ORRERY_OK);
		assert_int_equal(x.switch_index, y.switch_index);
		assert_true(x.score == y.score);
		assert_true(x.over_fraction == y.over_fraction);
		assert_true(x.score_unshifted == y.score_unshifted);
	}
}

/* Returns how many candidates scored below 1 (the test must see some
 * real contention, or it would compare only trivial answers). */
static size_t check_decisions(int ecmp, uint32_t rank_spread)
{
	uint8_t free_nodes[1536];
	orrery_cluster_t *c = loaded_cluster(ecmp, rank_spread, free_nodes);
	static const uint32_t sizes[] = {12, 40, 96, 256};
	size_t contended = 0;
	orrery_error_t err;
	uint32_t nodes[256];
	for (int round = 0; round < 2; round++) {
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			orrery_profile_t *p = random_profile();
			orrery_placement_t *pl = NULL;
			assert_int_equal(orrery_cluster_place(c, free_nodes, sizes[s], p, &pl, &err),
					 ORRERY_OK);
			assert_true(orrery_placement_count(pl) > 0);
			for (size_t i = 0; i < orrery_placement_count(pl); i++) {
				size_t n = orrery_placement_nodes(pl, i, nodes, 256);
				orrery_eval_t *alone = NULL;
				assert_int_equal(orrery_cluster_evaluate(c, nodes, n, p, &alone, &err),
						 ORRERY_OK);
				const orrery_eval_t *shared = orrery_placement_eval(pl, i);
				assert_same_eval(shared, alone);
				contended += orrery_eval_score_min(alone) < 1.0;
				orrery_eval_free(alone);
			}
			orrery_placement_free(pl);
			orrery_profile_free(p);
		}
	}
	orrery_cluster_free(c);
	return contended;
}

static void single_pipe(void **state)
{
	(void)state;
	assert_true(check_decisions(0, 0) > 0);
}

static void single_pipe_spread(void **state)
{
	(void)state;
	assert_true(check_decisions(0, 1) > 0);
}

static void ecmp_uplinks(void **state)
{
	(void)state;
	assert_true(check_decisions(1, 0) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(single_pipe),
		cmocka_unit_test(single_pipe_spread),
		cmocka_unit_test(ecmp_uplinks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
