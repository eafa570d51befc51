/* Unit tests of the arithmetic that puts a job rebuilt from its ORR1:
 * record back into its slots when the model's epoch differs from the
 * record's (recover_shift.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>

#include "recover.h"

/* Same epoch: the recorded shift, whatever it is modulo the period. */
static void same_epoch(void **state)
{
	(void) state;
	assert_int_equal(orr_recover_rebase_shift(30000, 100000, 5, 5), 30000);
	assert_int_equal(orr_recover_rebase_shift(0, 100000, 5, 5), 0);
	assert_int_equal(orr_recover_rebase_shift(130000, 100000, 5, 5), 30000);
}

/* A model epoch 20 ms after the record's: the job's slots at
 * from + 30 ms + k*100 ms are at to + 10 ms + k*100 ms. */
static void later_epoch(void **state)
{
	int64_t from = 1764460800000000, to = from + 20000;

	(void) state;
	assert_int_equal(orr_recover_rebase_shift(30000, 100000, from, to), 10000);
	/* 20 ms earlier: 50 ms */
	assert_int_equal(orr_recover_rebase_shift(30000, 100000, from, from - 20000), 50000);
	/* crossing zero: 10 ms shift, epoch 25 ms later -> 85 ms */
	assert_int_equal(orr_recover_rebase_shift(10000, 100000, from, from + 25000), 85000);
}

/* Whole periods between the epochs change nothing; a period of 0 (a
 * record without one) leaves the shift alone. */
static void whole_periods_and_no_period(void **state)
{
	int64_t from = 1764460800000000;

	(void) state;
	assert_int_equal(orr_recover_rebase_shift(30000, 100000, from, from + 7 * 100000), 30000);
	assert_int_equal(orr_recover_rebase_shift(30000, 100000, from, from - 3600 * 1000000LL), 30000);
	assert_int_equal(orr_recover_rebase_shift(1234, 0, from, from + 1), 1234);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_epoch),
		cmocka_unit_test(later_epoch),
		cmocka_unit_test(whole_periods_and_no_period),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
