/*
 * Gate policy tests.  The clock is injected: every call passes "now", so
 * these run instantly and exactly.  Times in µs; period 100 ms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "orrery.h"

#define MS 1000LL
#define P (100 * MS)

/* A gate on period P; margin_ppm as orrery_gate_params_t's. */
static orrery_gate_t *mk_margin(int64_t epoch, int64_t shift, uint32_t ppm)
{
	orrery_gate_params_t p;
	orrery_gate_t *g = NULL;
	orrery_error_t err;

	orrery_gate_params_default(&p);
	p.period_us = P;
	p.epoch_us = epoch;
	p.shift_us = shift;
	p.margin_ppm = ppm;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_OK);
	return g;
}

static orrery_gate_t *mk(int64_t epoch, int64_t shift)
{
	return mk_margin(epoch, shift, 0);
}

/* An early phase waits for its slot; a phase just past it goes at once. */
static void test_wait_and_tolerance(void **state)
{
	orrery_gate_t *g = mk(1000 * P, 30 * MS);
	orrery_gate_stats_t st;
	int64_t e = 1000 * P;

	assert_int_equal(orrery_gate_release_at(g, e + 10 * MS), e + 30 * MS);
	/* Next period's slot is at 130 ms; ready 5 ms late: within 10 ms. */
	assert_int_equal(orrery_gate_release_at(g, e + 135 * MS), e + 135 * MS);
	/* 25 ms past the 230 ms slot: missed, wait for 330 ms. */
	assert_int_equal(orrery_gate_release_at(g, e + 255 * MS), e + 330 * MS);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.phases, 3);
	assert_int_equal(st.on_slot, 1);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.missed, 1);
	assert_int_equal(st.total_wait_us, 20 * MS + 75 * MS);
	assert_int_equal(st.max_wait_us, 75 * MS);
	assert_int_equal(st.total_late_us, 5 * MS);
	assert_false(st.disabled);
	orrery_gate_free(g);
}

/* The first phase ever is never a miss, however far from a slot. */
static void test_first_phase_not_missed(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;

	assert_int_equal(orrery_gate_release_at(g, 7 * P + 60 * MS), 8 * P);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.missed, 0);
	assert_int_equal(st.on_slot, 1);
	orrery_gate_free(g);
}

/* A training loop whose iteration (compute + Up) is 98 ms, gated at 100 ms:
 * every phase starts exactly on its slot, one slot per iteration. */
static void test_loop_locks_to_grid(void **state)
{
	orrery_gate_t *g = mk(0, 40 * MS);
	orrery_gate_stats_t st;
	int64_t ready = 3 * MS, rel = 0;

	for (int i = 0; i < 100; i++) {
		rel = orrery_gate_release_at(g, ready);
		assert_int_equal((rel - 40 * MS) % P, 0);
		ready = rel + 98 * MS;
	}
	assert_int_equal(rel, 40 * MS + 99 * P);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.on_slot, 100);
	assert_int_equal(st.missed + st.late, 0);
	assert_int_equal(st.total_wait_us, 37 * MS + 99 * 2 * MS);
	orrery_gate_free(g);
}

/* Iterations of 103 ms on a 100 ms grid: lateness grows 3 ms per
 * iteration and is absorbed up to the 10 ms tolerance, then a slot is
 * missed and the job re-aligns on the grid (not on its own clock). */
static void test_drift_realigns_on_grid(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel;
	int64_t expect[] = { 0, 103, 206, 309, 500, 603, 706, 809, 1000 };

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		rel = orrery_gate_release_at(g, ready);
		assert_int_equal(rel, expect[i] * MS);
		ready = rel + 103 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.missed, 2);
	assert_int_equal(st.late, 6);
	assert_int_equal(st.total_late_us, 2 * (3 + 6 + 9) * MS);
	assert_false(st.disabled);  /* 2 misses in 8: the gate stays on */
	orrery_gate_free(g);
}

/* The shortest work of each window of ORRERY_GATE_MEASURE_WINDOW
 * iterations: a job of 92 ms on a 100 ms grid whose Up phase met a
 * neighbour in most iterations (work 92 + 0..21 ms).  Nothing before the
 * first window completes; the first work is measured from the second
 * phase (the first has no release before it).  The range is the longest
 * minus the shortest work of each window, the median over the windows. */
static void test_min_work_windows(void **state)
{
	static const int extra[] = { 9, 4, 0, 12, 7, 3, 21, 5,  /* ... */
				     6, 2, 8, 3, 13, 9, 1, 4, 7 };
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		rel = orrery_gate_release_at(g, ready);
		orrery_gate_stats(g, &st);
		if (i < ORRERY_GATE_MEASURE_WINDOW) {
			assert_int_equal(st.windows, 0);
			assert_int_equal(st.min_work_us, 0);
			assert_int_equal(st.range_us, 0);
		} else if (i < 2 * ORRERY_GATE_MEASURE_WINDOW) {
			/* Works of phases 1..8: extra[0..7], 0 to 21. */
			assert_int_equal(st.windows, 1);
			assert_int_equal(st.min_work_us, 92 * MS);
			assert_int_equal(st.range_us, 21 * MS);
		} else {
			/* Phases 9..16: extra[8..15], shortest 92 + 1, range
			 * 13 - 1: the median of 21 and 12. */
			assert_int_equal(st.windows, 2);
			assert_int_equal(st.min_work_us, 93 * MS);
			assert_int_equal(st.range_us, 16500);
		}
		ready = rel + (92 + extra[i]) * MS;
	}
	orrery_gate_free(g);
}

/* Works of 100 ms, one of each window of 8 longer by r[k] ms. */
static void windows_of_range(orrery_gate_t *g, int64_t *t, const int *r, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < ORRERY_GATE_MEASURE_WINDOW; i++) {
			orrery_gate_observe(g, *t);
			*t += (100 + (i == 3 ? r[k] : 0)) * MS;
		}
}

/* The range is a median over the latest 15 windows: a window with a pause
 * in it (the start, a checkpoint) does not count, and old windows leave. */
static void test_range_median(void **state)
{
	static const int first[] = { 10, 300, 12, 11, 9 };
	static const int shift[] = { 50, 50, 50, 50, 50, 50, 50, 50,
				     10, 10, 10, 10, 10, 10, 10, 10 };
	orrery_gate_stats_t st;
	orrery_gate_t *g = mk(0, 0);
	int64_t t = 0;

	(void)state;
	/* The first work is measured from the second call: one more call
	 * closes each window. */
	orrery_gate_observe(g, t);
	t += 100 * MS;
	windows_of_range(g, &t, first, 1);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.range_us, 10 * MS);
	windows_of_range(g, &t, first + 1, 1);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.range_us, 155 * MS);	/* (10 + 300) / 2 */
	windows_of_range(g, &t, first + 2, 3);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.windows, 5);
	assert_int_equal(st.range_us, 11 * MS);	/* 9 10 11 12 300 */
	orrery_gate_free(g);

	/* 8 windows of 50 ms then 8 of 10 ms: the ring keeps the latest 15
	 * (7 of 50, 8 of 10), so 10 ms, where all 16 would give 30. */
	g = mk(0, 0);
	t = 0;
	orrery_gate_observe(g, t);
	t += 100 * MS;
	windows_of_range(g, &t, shift, 16);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.windows, 16);
	assert_int_equal(st.range_us, 10 * MS);
	orrery_gate_free(g);
}

/* A re-aligned job's statistics: the replaced gate's carried into the
 * newer one's as the runtime and orrery-sim report them. */
static void test_stats_carry(void **state)
{
	orrery_gate_stats_t newer, older, none;

	(void)state;
	memset(&newer, 0, sizeof(newer));
	memset(&older, 0, sizeof(older));
	newer.phases = 20; newer.missed = 1; newer.max_wait_us = 30 * MS;
	newer.windows = 2; newer.range_us = 12 * MS; newer.min_work_us = 93 * MS;
	newer.mode = ORRERY_GATE_ANCHORED; newer.period_us = 120 * MS;
	older.phases = 9; older.missed = 4; older.max_wait_us = 80 * MS;
	older.windows = 1; older.range_us = 21 * MS; older.min_work_us = 92 * MS;
	older.mode = ORRERY_GATE_OFF; older.disabled = 1; older.rearmed = 1;
	orrery_gate_stats_carry(&newer, &older);
	assert_int_equal(newer.phases, 29);
	assert_int_equal(newer.missed, 5);
	assert_int_equal(newer.rearmed, 1);
	assert_int_equal(newer.max_wait_us, 80 * MS);	/* the larger */
	assert_int_equal(newer.windows, 3);
	assert_int_equal(newer.range_us, 15 * MS);	/* (2 x 12 + 21) / 3 */
	assert_int_equal(newer.min_work_us, 93 * MS);	/* the newer one's */
	assert_int_equal(newer.mode, ORRERY_GATE_ANCHORED);
	assert_int_equal(newer.disabled, 0);
	assert_int_equal(newer.period_us, 120 * MS);
	/* A gate just put in place has measured nothing yet. */
	memset(&none, 0, sizeof(none));
	orrery_gate_stats_carry(&none, &older);
	assert_int_equal(none.min_work_us, 92 * MS);
	assert_int_equal(none.range_us, 21 * MS);
	assert_int_equal(none.windows, 1);
}

/* Phases that went ungated (orrery_gate_observe: the live channel
 * switched gating off) are measured all the same, and not counted. */
static void test_observe_measures(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t t = 7 * MS;

	(void)state;
	for (int i = 0; i < 9; i++) {
		orrery_gate_observe(g, t);
		t += (130 + (i % 3) * 10) * MS;  /* 130, 140, 150 ms ... */
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.phases, 0);
	assert_int_equal(st.windows, 1);
	assert_int_equal(st.min_work_us, 130 * MS);
	assert_int_equal(st.range_us, 20 * MS);
	assert_true(st.measured_us >= 130 * MS && st.measured_us <= 150 * MS);
	orrery_gate_free(g);
}

/* Iterations of 150 ms on a 100 ms grid miss every other slot (their
 * phases stretched, or the profile is wrong): after 4 misses in the last
 * 8 phases the gate re-anchors to the measured 150 ms from that phase on,
 * and no slot is missed after that. */
static void test_reanchors_when_iteration_longer(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel = 0, anchor = -1;
	int i;

	for (i = 0; i < 8; i++) {
		rel = orrery_gate_release_at(g, ready);
		ready = rel + 150 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.mode, ORRERY_GATE_ANCHORED);
	assert_int_equal(st.reanchored, 1);
	assert_false(st.disabled);
	assert_int_equal(st.period_us, 150 * MS);
	assert_int_equal(st.measured_us, 150 * MS);
	assert_int_equal(st.missed, 7);  /* every phase after the first */
	anchor = rel;
	/* From the re-anchored phase on: every 150 ms, on slot, no wait. */
	for (i = 1; i <= 20; i++) {
		rel = orrery_gate_release_at(g, ready);
		assert_int_equal(rel, anchor + i * 150 * MS);
		ready = rel + 150 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.missed, 7);
	assert_int_equal(st.reanchored, 1);
	orrery_gate_free(g);
}

/* The cause goes away (the neighbour left, phases are short again): after
 * 8 iterations whose work fits the 100 ms period the gate is back on the
 * given grid, its slots at shift + k * period again. */
static void test_rearms_on_grid(void **state)
{
	orrery_gate_t *g = mk(0, 20 * MS);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel = 0;
	int i;

	for (i = 0; i < 10; i++) {
		rel = orrery_gate_release_at(g, ready);
		ready = rel + 170 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.mode, ORRERY_GATE_ANCHORED);
	for (i = 0; i < 9; i++) {
		rel = orrery_gate_release_at(g, ready);
		ready = rel + 90 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.mode, ORRERY_GATE_GRID);
	assert_int_equal(st.rearmed, 1);
	assert_int_equal(st.period_us, P);
	for (i = 0; i < 5; i++) {
		rel = orrery_gate_release_at(g, ready);
		assert_int_equal((rel - 20 * MS) % P, 0);
		ready = rel + 90 * MS;
	}
	orrery_gate_free(g);
}

/* A cause that comes back: after re-arming, the gate leaves its grid
 * again; the next re-arming needs twice the run (16 fitting iterations),
 * so it does not flap every window. */
static void test_rearm_backs_off(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel = 0;
	int i, round;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 10; i++) {
			rel = orrery_gate_release_at(g, ready);
			ready = rel + 170 * MS;
		}
		orrery_gate_stats(g, &st);
		assert_int_equal(st.mode, ORRERY_GATE_ANCHORED);
		assert_int_equal(st.reanchored, round + 1);
		/* 12 fitting iterations: enough the first time (8), not the
		 * second (16). */
		for (i = 0; i < 12; i++) {
			rel = orrery_gate_release_at(g, ready);
			ready = rel + 90 * MS;
		}
		orrery_gate_stats(g, &st);
		assert_int_equal(st.mode, round == 0 ? ORRERY_GATE_GRID : ORRERY_GATE_ANCHORED);
	}
	for (i = 0; i < 6; i++) {
		rel = orrery_gate_release_at(g, ready);
		ready = rel + 90 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.mode, ORRERY_GATE_GRID);
	assert_int_equal(st.rearmed, 2);
	orrery_gate_free(g);
}

/* Misses without a longer iteration (work alternating 20 / 150 ms, mean
 * below the period: every other phase misses): the gate turns off; once the iterations are regular
 * (95 ms) for a window, it re-arms on the grid. */
static void test_off_then_rearms(void **state)
{
	orrery_gate_t *g = mk(0, 0);
	orrery_gate_stats_t st;
	int64_t ready = 0, rel = 0;
	int i;

	for (i = 0; i < 16; i++) {
		rel = orrery_gate_release_at(g, ready);
		ready = rel + (i % 2 ? 150 : 20) * MS;
	}
	orrery_gate_stats(g, &st);
	assert_true(st.disabled);
	assert_int_equal(st.mode, ORRERY_GATE_OFF);
	assert_int_equal(st.disables, 1);
	assert_true(st.passthrough > 0);
	/* Off: phases go at once. */
	assert_int_equal(orrery_gate_release_at(g, ready), ready);
	rel = ready;
	for (i = 0; i < 12; i++) {
		ready = rel + 95 * MS;
		rel = orrery_gate_release_at(g, ready);
	}
	orrery_gate_stats(g, &st);
	assert_false(st.disabled);
	assert_int_equal(st.mode, ORRERY_GATE_GRID);
	assert_int_equal(st.rearmed, 1);
	assert_int_equal(rel % P, 0);
	orrery_gate_free(g);
}

/* miss_window 0: the gate never leaves the given grid. */
static void test_window_zero_stays(void **state)
{
	orrery_gate_params_t p;
	orrery_gate_t *g = NULL;
	orrery_error_t err;
	orrery_gate_stats_t st;
	int64_t ready = 0, rel;

	orrery_gate_params_default(&p);
	p.period_us = P;
	p.miss_window = 0;
	p.miss_limit = 0;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_OK);
	for (int i = 0; i < 20; i++) {
		rel = orrery_gate_release_at(g, ready);
		assert_int_equal(rel % P, 0);
		ready = rel + 150 * MS;
	}
	orrery_gate_stats(g, &st);
	assert_int_equal(st.mode, ORRERY_GATE_GRID);
	assert_int_equal(st.reanchored + st.disables, 0);
	orrery_gate_free(g);
}

/* Two phases ready in the same period: the second gets the next slot. */
static void test_one_phase_per_slot(void **state)
{
	orrery_gate_t *g = mk(0, 0);

	assert_int_equal(orrery_gate_release_at(g, 2 * P + 1 * MS), 2 * P + 1 * MS);
	assert_int_equal(orrery_gate_release_at(g, 2 * P + 5 * MS), 3 * P);
	orrery_gate_free(g);
}

/* A 10 % margin stretches the grid about the epoch: slots at 33 ms +
 * k * 110 ms for shift 30 ms, and the tolerance is a tenth of 110 ms. */
static void test_margin_stretches_grid(void **state)
{
	orrery_gate_t *g = mk_margin(0, 30 * MS, 100000);
	orrery_gate_stats_t st;

	assert_int_equal(orrery_gate_release_at(g, 0), 33 * MS);
	assert_int_equal(orrery_gate_release_at(g, 120 * MS), 143 * MS);
	/* 10 ms past the 253 ms slot: within 11 ms. */
	assert_int_equal(orrery_gate_release_at(g, 263 * MS), 263 * MS);
	orrery_gate_stats(g, &st);
	assert_int_equal(st.period_us, 110 * MS);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.missed, 0);
	orrery_gate_free(g);
}

/* A job whose work is its period on average but varies by up to 3 %
 * from one iteration to the next: on the bare period a late iteration's
 * lateness carries into the next one while an early one only waits, so
 * lateness adds up until slots are missed, each costing a whole period;
 * with a 2 % margin the job is early more often than late and misses
 * none.  The same fixed sequence of works both times. */
static void test_margin_absorbs_jitter(void **state)
{
	orrery_gate_stats_t bare, with;
	uint64_t x = 12345;

	for (int m = 0; m < 2; m++) {
		orrery_gate_t *g = mk_margin(0, 0, m ? 20000 : 0);
		int64_t ready = 0, rel;

		x = 12345;
		for (int i = 0; i < 2000; i++) {
			rel = orrery_gate_release_at(g, ready);
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			ready = rel + P - 3 * MS + (int64_t)((x >> 33) % (6 * MS + 1));
		}
		orrery_gate_stats(g, m ? &with : &bare);
		orrery_gate_free(g);
	}
	assert_true(bare.missed >= 10);
	assert_int_equal(with.missed, 0);
	assert_int_equal(with.disables, 0);
}

/* Times before the epoch use floor division (slots extend backwards). */
static void test_before_epoch(void **state)
{
	orrery_gate_t *g = mk(10 * P, 20 * MS);

	assert_int_equal(orrery_gate_release_at(g, 10 * P - 150 * MS),
			 10 * P - 80 * MS);
	orrery_gate_free(g);
}

static void test_bad_params(void **state)
{
	orrery_gate_params_t p;
	orrery_gate_t *g = NULL;
	orrery_error_t err;

	orrery_gate_params_default(&p);
	p.period_us = 0;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "period"));
	p.period_us = P;
	p.shift_us = P;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "shift"));
	p.shift_us = 0;
	p.miss_window = 40;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_ERANGE);
	p.miss_window = 8;
	p.margin_ppm = ORRERY_GATE_MAX_MARGIN_PPM + 1;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "margin"));
	p.margin_ppm = ORRERY_GATE_MAX_MARGIN_PPM;
	p.period_us = ORRERY_MAX_PERIOD_US;
	assert_int_equal(orrery_gate_new(&p, &g, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "margin"));
	assert_null(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_and_tolerance),
		cmocka_unit_test(test_first_phase_not_missed),
		cmocka_unit_test(test_loop_locks_to_grid),
		cmocka_unit_test(test_drift_realigns_on_grid),
		cmocka_unit_test(test_reanchors_when_iteration_longer),
		cmocka_unit_test(test_rearms_on_grid),
		cmocka_unit_test(test_rearm_backs_off),
		cmocka_unit_test(test_off_then_rearms),
		cmocka_unit_test(test_window_zero_stays),
		cmocka_unit_test(test_one_phase_per_slot),
		cmocka_unit_test(test_min_work_windows),
		cmocka_unit_test(test_range_median),
		cmocka_unit_test(test_stats_carry),
		cmocka_unit_test(test_observe_measures),
		cmocka_unit_test(test_before_epoch),
		cmocka_unit_test(test_bad_params),
		cmocka_unit_test(test_margin_stretches_grid),
		cmocka_unit_test(test_margin_absorbs_jitter),
	};
	return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
