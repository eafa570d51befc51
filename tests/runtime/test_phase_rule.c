/*
 * test_phase_rule.c - the NCCL interposer's phase rule (phase_rule.c) on
 * made-up times: which burst the gate holds, with and without the
 * profile's phases (ORRERY_PHASES_US), through stalls, and with a list
 * that is not the job's.
 *
 * The job of the capture test (tests/capture/test_capture_fake_nccl.sh):
 * period 200 ms, gap 20 ms, minimum interval 100 ms; each iteration 40 ms
 * of compute, a 12 ms burst, 60 ms of compute, a 12 ms burst.  Slots at
 * multiples of the period.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "phase_rule.h"

#define MS 1000
#define PERIOD (200 * MS)
#define BURST (12 * MS)

static struct phase_rule r;
static int64_t now;

static void fresh(const char *list)
{
	pr_init(&r, PERIOD / 10, PERIOD / 2, PERIOD);
	if (list)
		assert_int_equal(pr_set_phases(&r, list), 2);
	now = 5 * MS;
}

/* `compute` us of compute, then a burst: 'G' if the gate held it for the
 * next slot, 'P' if it passed. */
static char burst(int64_t compute)
{
	enum pr_verdict v;

	now += compute;
	v = pr_arrive(&r, now, 0);
	assert_int_not_equal(v, PR_BURST);
	if (v == PR_GATE) {
		now = (now + PERIOD - 1) / PERIOD * PERIOD;
		pr_released(&r, now);
	}
	now += BURST;
	pr_returned(&r, now);
	return v == PR_GATE ? 'G' : 'P';
}

/* Iterations of c1 us of compute, a burst, c2 us, a burst; iteration
 * `at` has `stall` us more before its second burst.  Returns which
 * bursts were held, "GP GP ...". */
static const char *run_c(int iterations, int at, int64_t stall, int64_t c1,
			 int64_t c2)
{
	static char out[128];
	size_t k = 0;

	for (int i = 0; i < iterations; i++) {
		out[k++] = burst(c1);
		out[k++] = burst(c2 + (i == at ? stall : 0));
		out[k++] = ' ';
	}
	out[k - 1] = '\0';
	return out;
}

static const char *run(int iterations, int at, int64_t stall)
{
	return run_c(iterations, at, stall, 40 * MS, 60 * MS);
}

/* The rule's pending note is `what`, with these values; takes it. */
static void expect_note(enum pr_note what, int a, int b, int64_t us)
{
	assert_int_equal(pr_take_note(&r), what);
	assert_int_equal(r.note_a, a);
	assert_int_equal(r.note_b, b);
	assert_int_equal(r.note_us, us);
}

static void parse(void **state)
{
	static const char *bad[] = {
		"x", "0+", "0+0", "+5", "-1+5", "10+5,5+5", "0+1,", "0+1,,2+1", "0+5 ",
		"0+5;1+2", "0x10+5", "0+99999999999999999999",
	};
	char many[2048];
	size_t k = 0;

	pr_init(&r, 20 * MS, 100 * MS, PERIOD);
	assert_int_equal(pr_set_phases(&r, "0+12000,72000+12000"), 2);
	assert_int_equal(r.n, 2);
	/* phases closer than the gap are one burst; one burst: no count */
	pr_init(&r, 20 * MS, 100 * MS, PERIOD);
	assert_int_equal(pr_set_phases(&r, "0+12000,25000+12000"), 1);
	assert_int_equal(r.n, 0);
	pr_init(&r, 20 * MS, 100 * MS, PERIOD);
	assert_int_equal(pr_set_phases(&r, "0+5000,30000+5000,40000+5000,100000+5000"), 3);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pr_init(&r, 20 * MS, 100 * MS, PERIOD);
		assert_int_equal(pr_set_phases(&r, bad[i]), -1);
		assert_int_equal(r.n, 0);
	}
	/* at most 64 bursts */
	for (int i = 0; i < 65; i++)
		k += (size_t)snprintf(many + k, sizeof(many) - k, "%s%d+1", i ? "," : "", i * 30000);
	pr_init(&r, 20 * MS, 100 * MS, PERIOD);
	assert_int_equal(pr_set_phases(&r, many), -1);
}

static void steady(void **state)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(6, -1, 0), "GP GP GP GP GP GP");
	assert_int_equal(pr_take_note(&r), PR_NOTE_NONE);
	fresh(NULL);
	assert_string_equal(run(6, -1, 0), "GP GP GP GP GP GP");
}

/* One stall of 45 ms before iteration 2's second burst: it comes 117 ms
 * after the release, past the 100 ms minimum interval. */
static void stall_without_list_moves_the_gate(void **state)
{
	fresh(NULL);
	assert_string_equal(run(6, 2, 45 * MS), "GP GP GG PG PG PG");
}

static void stall_with_list_passes(void **state)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(6, 2, 45 * MS), "GP GP GP GP GP GP");
	/* said: the stalled burst is 2 of 2, 117 ms after the release */
	expect_note(PR_NOTE_STALL, 2, 2, 117 * MS);
	assert_int_equal(pr_take_note(&r), PR_NOTE_NONE);
	/* a one-off: the count stays on */
	assert_int_equal(r.n, 2);
}

/* Up to period - gap (180 ms after the release) a late second burst
 * passes; later than that the gate takes it, and says so: gated with 1
 * of the period's 2 bursts seen, 182 ms after the release (SHORT,
 * short_periods in the statistics).  The next whole period (iteration
 * 3: the first burst 52 ms after the release, the second at 124 ms) is
 * the cycle of iterations 0-1 (72 ms, 124 ms) rotated to start at the
 * second burst (124 - 72 = 52 ms), 20 ms from the cycle as it was: the
 * gate holds the first burst again from iteration 4 (RELOCK). */
/* Iterations 0-2, the third's second burst 110 ms late: gated SHORT,
 * 182 ms after the release, the gate now on the second burst. */
static void moved_by_a_long_stall(void)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(3, 2, 110 * MS), "GP GP GG");
	expect_note(PR_NOTE_SHORT, 1, 2, 182 * MS);
}

static void long_stall_moves_and_returns(void **state)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(6, 2, 107 * MS), "GP GP GP GP GP GP");
	assert_int_equal(pr_take_note(&r), PR_NOTE_STALL);
	assert_int_equal(r.note_us, 179 * MS);

	moved_by_a_long_stall();
	assert_string_equal(run(3, -1, 0), "PG GP GP");
	expect_note(PR_NOTE_RELOCK, 2, 2, 0);
	assert_int_equal(r.n, 2);
	/* in one run: moved for one iteration */
	fresh("0+12000,72000+12000");
	assert_string_equal(run(7, 2, 110 * MS), "GP GP GG PG GP GP GP");
}

/* A loaded host after the stall: four periods whose first compute gap
 * runs 15 ms long (the first burst 67 ms after the release where the
 * rotated cycle has it at 52, the next release's burst at 139 ms where
 * both cycles have 124) fit neither cycle within gap/2 and decide
 * nothing; the first period at the job's pace again re-locks. */
static void disturbed_periods_decide_nothing(void **state)
{
	moved_by_a_long_stall();
	assert_int_equal(pr_judging(&r), 1);
	assert_string_equal(run_c(4, -1, 0, 55 * MS, 60 * MS), "PG PG PG PG");
	assert_int_equal(pr_take_note(&r), PR_NOTE_NONE);
	assert_string_equal(run(3, -1, 0), "PG GP GP");
	expect_note(PR_NOTE_RELOCK, 2, 2, 0);
}

/* ... but not for ever: after PR_JUDGE_PERIODS whole periods that fit
 * neither (the job changed pace), the gate stays where it is, said once
 * (UNJUDGED, the nearest the periods came to the rotation: 15 ms). */
static void changed_pace_is_left_alone(void **state)
{
	moved_by_a_long_stall();
	assert_string_equal(run_c(PR_JUDGE_PERIODS, -1, 0, 55 * MS, 60 * MS),
			    "PG PG PG PG PG PG PG PG");
	expect_note(PR_NOTE_UNJUDGED, 2, 2, 15 * MS);
	assert_int_equal(pr_judging(&r), 0);
	assert_string_equal(run(3, -1, 0), "PG PG PG");
}

/* A stretched period just before the stall (the second burst 87 ms after
 * the release, not 72): the move is judged by the whole period before it
 * too, which the job's pace fits rotated. */
static void stretched_period_before_the_stall(void **state)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(2, -1, 0), "GP GP");
	assert_string_equal(run_c(1, -1, 0, 40 * MS, 75 * MS), "GP");
	assert_string_equal(run(1, 0, 110 * MS), "GG");
	expect_note(PR_NOTE_SHORT, 1, 2, 182 * MS);
	assert_string_equal(run(3, -1, 0), "PG GP GP");
	expect_note(PR_NOTE_RELOCK, 2, 2, 0);
}

/* A stall before any whole period: nothing to judge the move by. */
static void stall_before_any_whole_period(void **state)
{
	fresh("0+12000,72000+12000");
	assert_string_equal(run(1, 0, 110 * MS), "GG");
	expect_note(PR_NOTE_SHORT, 1, 2, 182 * MS);
	assert_int_equal(pr_judging(&r), 0);
	assert_string_equal(run(3, -1, 0), "PG PG PG");
}

/* Compute gaps of 40 and 45 ms: the cycle rotated to the second burst
 * (the first burst 52 ms after the release) is 5 ms from the cycle as it
 * was (57 ms), less than the 10 ms (gap/2) that tells them apart: the
 * gate stays on the second burst, its traffic 5 ms from where the
 * profile put it. */
static void near_symmetric_cycle_stays(void **state)
{
	fresh("0+12000,57000+12000");
	assert_string_equal(run_c(7, 2, 130 * MS, 40 * MS, 45 * MS),
			    "GP GP GG PG PG PG PG");
}

/* An iteration with one burst (a period with fewer bursts than the
 * list): the next first burst comes past period - gap and is gated
 * (SHORT), and the periods after it are the cycle as it was: nothing
 * moved, no re-lock. */
static void short_period_is_not_a_move(void **state)
{
	enum pr_note last = PR_NOTE_NONE, n;

	fresh("0+12000,72000+12000");
	assert_string_equal(run(2, -1, 0), "GP GP");
	assert_int_equal(burst(40 * MS), 'G');	/* iteration 2: one burst */
	assert_int_equal(burst(200 * MS), 'G');	/* iteration 3's first */
	assert_int_equal(pr_take_note(&r), PR_NOTE_SHORT);
	assert_int_equal(burst(60 * MS), 'P');
	for (int i = 0; i < 4; i++) {
		assert_int_equal(burst(40 * MS), 'G');
		assert_int_equal(burst(60 * MS), 'P');
		if ((n = pr_take_note(&r)) != PR_NOTE_NONE)
			last = n;
	}
	assert_int_equal(last, PR_NOTE_NONE);
	assert_int_equal(r.moved, 0);
}

/* A list with more bursts than the job has: every period passes a
 * "stalled" one; after three the count stops and the time rule alone
 * holds one burst an iteration. */
static void list_not_the_jobs(void **state)
{
	const char *got;

	pr_init(&r, PERIOD / 10, PERIOD / 2, PERIOD);
	assert_int_equal(pr_set_phases(&r, "0+5000,40000+5000,72000+12000"), 3);
	now = 5 * MS;
	got = run(10, -1, 0);
	assert_int_equal(r.n, 0);
	/* the last four iterations: one burst held each, the same one */
	assert_true(strcmp(got + 6 * 3, "GP GP GP GP") == 0 ||
		    strcmp(got + 6 * 3, "PG PG PG PG") == 0);
}

/* A list with more bursts, and a job whose single burst comes past
 * period - gap: "too few" three times, the count stops. */
static void too_few(void **state)
{
	enum pr_note last = PR_NOTE_NONE;

	fresh("0+12000,72000+12000");
	for (int i = 0; i < 6; i++) {
		enum pr_note n;
		int64_t at = now + (i ? 185 * MS : 0);

		/* each burst after the first: gated short of the list */
		if (i && i < 3) {
			assert_int_equal(pr_arrive(&r, at, 0), PR_GATE);
			assert_int_equal(pr_take_note(&r), PR_NOTE_SHORT);
		}
		assert_int_equal(burst(i ? 185 * MS : 0), 'G');
		if ((n = pr_take_note(&r)) != PR_NOTE_NONE)
			last = n;
	}
	assert_int_equal(last, PR_NOTE_COUNT_OFF);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.note_a, 1);
	assert_int_equal(r.note_b, 2);
}

/* Calls of one burst (less than the gap apart, or while one is inside
 * NCCL) are never a phase of their own. */
static void one_burst(void **state)
{
	fresh("0+12000,72000+12000");
	burst(40 * MS);
	assert_int_equal(pr_arrive(&r, now + 5 * MS, 0), PR_BURST);
	assert_int_equal(pr_arrive(&r, now + 150 * MS, 1), PR_BURST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(steady),
		cmocka_unit_test(stall_without_list_moves_the_gate),
		cmocka_unit_test(stall_with_list_passes),
		cmocka_unit_test(long_stall_moves_and_returns),
		cmocka_unit_test(disturbed_periods_decide_nothing),
		cmocka_unit_test(changed_pace_is_left_alone),
		cmocka_unit_test(stretched_period_before_the_stall),
		cmocka_unit_test(stall_before_any_whole_period),
		cmocka_unit_test(near_symmetric_cycle_stays),
		cmocka_unit_test(short_period_is_not_a_move),
		cmocka_unit_test(list_not_the_jobs),
		cmocka_unit_test(too_few),
		cmocka_unit_test(one_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
