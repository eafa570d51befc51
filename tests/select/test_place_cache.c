/* Unit tests of the select plugin's per-job cache (place_cache.c): the
 * bounds that keep slurmctld from growing, and the resets that keep a
 * stale ranking from being reused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "place_cache.h"

/* Profiles are opaque to the cache: count what it frees. */
static int live_profiles;

static void *new_profile(void)
{
	live_profiles++;
	return malloc(16);
}

static void free_profile(void *p)
{
	live_profiles--;
	free(p);
}

static orr_entry_t *get(orr_cache_t *c, uint32_t id, const char *spec,
			bool want_created)
{
	bool created;
	orr_entry_t *e = orr_cache_get(c, id, spec, &created);

	assert_non_null(e);
	assert_int_equal(created, want_created);
	if (created) {
		e->parsed = new_profile();
		e->resolved = new_profile();
	}
	return e;
}

static void rank(orr_cache_t *c, orr_entry_t *e, uint64_t version, size_t n)
{
	uint32_t nodes[ORR_CACHE_MAX_CANDS + 2][2];
	orr_cand_t cands[ORR_CACHE_MAX_CANDS + 2];
	orr_rank_key_t key = { .version = version, .bitmap_hash = 7,
			       .min_nodes = 2 };

	for (size_t i = 0; i < n; i++) {
		nodes[i][0] = 2 * i;
		nodes[i][1] = 2 * i + 1;
		cands[i] = (orr_cand_t) { .nodes = nodes[i], .n = 2,
					  .shift_us = (int64_t) i };
	}
	assert_true(orr_cache_set_ranking(c, e, &key, n, cands, n));
}

static void test_second_get_is_a_hit(void **state)
{
	orr_cache_t *c = orr_cache_new(8, free_profile);
	orr_entry_t *e = get(c, 1, "period=100ms", true);
	orr_rank_key_t key = { .version = 3, .bitmap_hash = 7,
			       .min_nodes = 2 };
	orr_rank_key_t other = key;

	(void) state;
	rank(c, e, 3, 2);
	assert_ptr_equal(get(c, 1, "period=100ms", false), e);
	assert_true(e->ranked);
	assert_true(orr_key_equal(&e->key, &key));
	assert_int_equal(e->outcome, ORR_OUTCOME_UNKNOWN);
	/* Any part of the key that changes makes it another key. */
	other.version = 4;
	assert_false(orr_key_equal(&e->key, &other));
	other = key;
	other.bitmap_hash = 8;
	assert_false(orr_key_equal(&e->key, &other));
	other = key;
	other.req_hash = 1;
	assert_false(orr_key_equal(&e->key, &other));
	other = key;
	other.min_nodes = 3;
	assert_false(orr_key_equal(&e->key, &other));
	/* The candidates were copied: the caller's arrays are gone. */
	assert_int_equal(e->n_cand, 2);
	assert_int_equal(e->cand[1].nodes[0], 2);
	assert_int_equal(e->cand[1].nodes[1], 3);
	/* find: the same entry, or none; never one made for it. */
	assert_ptr_equal(orr_cache_find(c, 1), e);
	assert_null(orr_cache_find(c, 2));
	assert_null(orr_cache_find(NULL, 1));
	orr_cache_stats_t st;
	orr_cache_stats(c, &st);
	assert_int_equal(st.live, 1);
	orr_cache_free(c);
	assert_int_equal(live_profiles, 0);
}

static void test_new_profile_text_resets(void **state)
{
	orr_cache_t *c = orr_cache_new(8, free_profile);
	orr_entry_t *e = get(c, 1, "period=100ms", true);

	(void) state;
	rank(c, e, 1, 3);
	e->outcome = 2;
	assert_int_equal(live_profiles, 2);
	e->held_since = 100;
	e->clear_at = 7300;
	/* scontrol update of the job's profile: parse again, no ranking,
	 * no hold carried over. */
	e = get(c, 1, "period=200ms", true);
	assert_int_equal(e->held_since, 0);
	assert_int_equal(e->clear_at, 0);
	assert_false(e->ranked);
	assert_int_equal(e->n_cand, 0);
	assert_int_equal(e->outcome, ORR_OUTCOME_UNKNOWN);
	assert_string_equal(e->spec, "period=200ms");
	assert_int_equal(live_profiles, 2);	/* old ones freed */
	orr_cache_free(c);
	assert_int_equal(live_profiles, 0);
}

static void test_ranking_keeps_at_most_max_cands(void **state)
{
	orr_cache_t *c = orr_cache_new(8, free_profile);
	orr_entry_t *e = get(c, 1, "x", true);

	(void) state;
	rank(c, e, 1, ORR_CACHE_MAX_CANDS + 2);
	assert_int_equal(e->n_cand, ORR_CACHE_MAX_CANDS);
	assert_int_equal(e->n_total, ORR_CACHE_MAX_CANDS + 2);
	orr_cache_unrank(c, e);
	assert_false(e->ranked);
	assert_int_equal(e->n_cand, 0);
	orr_cache_free(c);
}

static void test_drop_frees_everything(void **state)
{
	orr_cache_t *c = orr_cache_new(8, free_profile);
	orr_cache_stats_t s;

	(void) state;
	for (uint32_t id = 1; id <= 5; id++)
		rank(c, get(c, id, "x", true), 1, 2);
	orr_cache_stats(c, &s);
	assert_int_equal(s.live, 5);
	for (uint32_t id = 1; id <= 5; id++)
		orr_cache_drop(c, id);
	orr_cache_drop(c, 99);	/* unknown: nothing happens */
	orr_cache_stats(c, &s);
	assert_int_equal(s.live, 0);
	assert_int_equal(s.dropped, 5);
	assert_int_equal(live_profiles, 0);
	orr_cache_free(c);
}

static void test_lru_bound(void **state)
{
	orr_cache_t *c = orr_cache_new(4, free_profile);
	orr_cache_stats_t s;
	bool created;

	(void) state;
	for (uint32_t id = 1; id <= 4; id++)
		get(c, id, "x", true);
	get(c, 1, "x", false);		/* 1 used again: 2 is the oldest */
	for (uint32_t id = 10; id < 1010; id++) {
		get(c, id, "x", true);
		orr_cache_stats(c, &s);
		assert_true(s.live <= 4);
		if (id == 10) {
			/* 2 went, 1 stayed */
			assert_non_null(orr_cache_get(c, 1, "x", &created));
			assert_false(created);
		}
	}
	orr_cache_stats(c, &s);
	assert_int_equal(s.live, 4);
	assert_int_equal(s.evicted, 1010 - 10);
	assert_int_equal(live_profiles, 2 * 4);
	orr_cache_free(c);
	assert_int_equal(live_profiles, 0);
}

static bool odd_gone(uint32_t id, void *arg)
{
	(void) arg;
	return id & 1;
}

static void test_sweep_drops_ended_jobs(void **state)
{
	orr_cache_t *c = orr_cache_new(64, free_profile);
	orr_cache_stats_t s;

	(void) state;
	for (uint32_t id = 1; id <= 10; id++)
		get(c, id, "x", true);
	assert_int_equal(orr_cache_sweep(c, odd_gone, NULL), 5);
	orr_cache_stats(c, &s);
	assert_int_equal(s.live, 5);
	assert_int_equal(live_profiles, 2 * 5);
	get(c, 2, "x", false);
	get(c, 3, "x", true);
	orr_cache_free(c);
	assert_int_equal(live_profiles, 0);
}

static void test_hash(void **state)
{
	uint64_t a = orr_hash_bytes(ORR_HASH_INIT, "ab", 2);

	(void) state;
	/* FNV-1a 64 of "a" */
	assert_true(orr_hash_bytes(ORR_HASH_INIT, "a", 1) ==
		    0xaf63dc4c8601ec8cull);
	assert_true(a != orr_hash_bytes(ORR_HASH_INIT, "ba", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_get_is_a_hit),
		cmocka_unit_test(test_new_profile_text_resets),
		cmocka_unit_test(test_ranking_keeps_at_most_max_cands),
		cmocka_unit_test(test_drop_frees_everything),
		cmocka_unit_test(test_lru_bound),
		cmocka_unit_test(test_sweep_drops_ended_jobs),
		cmocka_unit_test(test_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
