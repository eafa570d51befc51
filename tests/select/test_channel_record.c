/*
 * test_channel_record.c - the live channel's record: what the controller
 * writes reads back; whatever else reaches a reader is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "channel_record.h"
#include "measure_record.h"

static orrc_record_t sample(void)
{
	orrc_record_t r = { .gen = 3, .gate = 1, .period_us = 100000,
			    .shift_us = 50000, .epoch_us = 1700000000000000,
			    .apply_us = 1700000000300000, .pub_us = 1700000000100000 };

	strcpy(r.mode, "rotate");
	return r;
}

static void token_round_trip(void **state)
{
	orrc_record_t r = sample(), back;
	char tok[512], ac[700], why[128];

	(void) state;
	assert_int_equal(orrc_format_token(&r, tok, sizeof(tok)), 0);
	snprintf(ac, sizeof(ac), "JS1:keep ORR1:period_us=100000 %s", tok);
	assert_int_equal(orrc_parse_comment(ac, &back, why, sizeof(why)), 1);
	assert_int_equal(back.gen, 3);
	assert_int_equal(back.gate, 1);
	assert_int_equal(back.shift_us, 50000);
	assert_int_equal(back.apply_us, r.apply_us);
	assert_string_equal(back.mode, "rotate");
	assert_int_equal(orrc_parse_comment("JS1:keep ORR1:x=1", &back, why, sizeof(why)), 0);
	assert_int_equal(orrc_parse_comment(NULL, &back, why, sizeof(why)), 0);
}

static void file_round_trip(void **state)
{
	orrc_record_t r = sample(), back;
	char text[ORRC_FILE_MAX], why[128];

	(void) state;
	r.gate = 0;
	r.period_us = r.shift_us = 0;
	strcpy(r.mode, "alone");
	assert_int_equal(orrc_format_file(42, &r, text, sizeof(text)), 0);
	assert_int_equal(orrc_parse_file(text, 42, &back, why, sizeof(why)), 1);
	assert_int_equal(back.gate, 0);
	assert_int_equal(back.gen, 3);
	/* Another job's file. */
	assert_int_equal(orrc_parse_file(text, 43, &back, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "job 43"));
}

static void refused(void **state)
{
	static const char *const bad[] = {
		"ORRG1:gen=1,gate=on,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1",	/* no mode */
		"ORRG1:gen=0,gate=on,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=rotate",
		"ORRG1:gen=1,gate=maybe,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=rotate",
		"ORRG1:gen=1,gate=on,period_us=100000,shift_us=100000,epoch_us=1,apply_us=1,pub_us=1,mode=rotate",
		"ORRG1:gen=1,gate=on,period_us=-5,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=rotate",
		"ORRG1:gen=1,gen=2,gate=on,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=rotate",
		"ORRG1:gen=1,gate=on,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=Rot8",
		"ORRG1:gen=1,gate=on,period_us=100000,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=rotate,evil=1",
		"ORRG1:gen=99999999999999999999,gate=off,period_us=0,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=alone",
		"ORRG1:gen=1,gate=off,period_us=0,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=alone ORRG1:gen=2,gate=off,period_us=0,shift_us=0,epoch_us=1,apply_us=1,pub_us=1,mode=alone",
	};
	orrc_record_t r;
	char why[128];

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		why[0] = '\0';
		assert_int_equal(orrc_parse_comment(bad[i], &r, why, sizeof(why)), -1);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(orrc_parse_file("job_id=1\ngen=1\n", 1, &r, why, sizeof(why)), -1);
}

static void replace_keeps_others(void **state)
{
	char *s;

	(void) state;
	s = orrc_comment_replace("JS1:a ORRG1:gen=1 ORR1:b", ORRC_TAG, "ORRG1:gen=2");
	assert_string_equal(s, "JS1:a ORR1:b ORRG1:gen=2");
	free(s);
	s = orrc_comment_replace(NULL, ORRC_TAG, "ORRG1:gen=1");
	assert_string_equal(s, "ORRG1:gen=1");
	free(s);
}

/* The way back (measure_record.h): a node's report reads back, beside
 * other tokens; whatever a comment holds that is not one is refused. */
static void measure_round_trip(void **state)
{
	orrm_record_t r = { .seq = 2, .n = 2, .iter_us = { 87123, 86990 } }, back;
	char tok[128], sc[256], why[128];

	(void) state;
	assert_int_equal(orrm_format_token(&r, tok, sizeof(tok)), 0);
	assert_string_equal(tok, "ORRM1:seq=2,iter_us=87123:86990");
	snprintf(sc, sizeof(sc), "ORR1:period_us=1 %s ORRG1:gen=1", tok);
	assert_int_equal(orrm_parse_comment(sc, &back, why, sizeof(why)), 1);
	assert_int_equal(back.seq, 2);
	assert_int_equal(back.n, 2);
	assert_int_equal(back.iter_us[0], 87123);
	assert_int_equal(back.iter_us[1], 86990);
	assert_int_equal(orrm_parse_comment("ORRM1:seq=7,iter_us=1:2:3:4", &back, why, sizeof(why)), 1);
	assert_int_equal(back.n, 4);
	assert_int_equal(back.iter_us[3], 4);
	assert_int_equal(orrm_parse_comment("ORR1:period_us=1", &back, why, sizeof(why)), 0);
	assert_int_equal(orrm_parse_comment(NULL, &back, why, sizeof(why)), 0);
	/* Nothing invalid is written. */
	r.iter_us[1] = 0;
	assert_int_equal(orrm_format_token(&r, tok, sizeof(tok)), -1);
	r.iter_us[1] = 5;
	r.seq = 0;
	assert_int_equal(orrm_format_token(&r, tok, sizeof(tok)), -1);
	r.seq = 1;
	r.n = 5;
	assert_int_equal(orrm_format_token(&r, tok, sizeof(tok)), -1);
	r.n = 0;
	assert_int_equal(orrm_format_token(&r, tok, sizeof(tok)), -1);
	r.n = 2;
	assert_int_equal(orrm_format_token(&r, tok, 24), -1);
}

static void measure_refused(void **state)
{
	static const char *const bad[] = {
		"ORRM1:seq=1",			/* iter_us missing */
		"ORRM1:iter_us=5",		/* seq missing */
		"ORRM1:seq=0,iter_us=5",	/* seq from 1 */
		"ORRM1:seq=1,iter_us=0",
		"ORRM1:seq=1,iter_us=3600000001",	/* over an hour */
		"ORRM1:seq=1,iter_us=-5",
		"ORRM1:seq=1,iter_us=5e3",
		"ORRM1:seq=1,iter_us=99999999999999999999",
		"ORRM1:seq=1,seq=2,iter_us=5",
		"ORRM1:seq=1,iter_us=5,env=LD_PRELOAD",
		"ORRM1:seq=1,iter_us",
		"ORRM1:",
		"ORRM1:seq=1,iter_us=1:2:3:4:5",	/* five windows */
		"ORRM1:seq=1,iter_us=1::2",
		"ORRM1:seq=1,iter_us=1:",
		"ORRM1:seq=1:2,iter_us=1",
		"ORRM1:seq=1,iter_us=5 ORRM1:seq=2,iter_us=5",
	};
	orrm_record_t r;
	char why[128];

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		why[0] = '\0';
		if (orrm_parse_comment(bad[i], &r, why, sizeof(why)) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_true(why[0] != '\0');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_round_trip),
		cmocka_unit_test(file_round_trip),
		cmocka_unit_test(refused),
		cmocka_unit_test(replace_keeps_others),
		cmocka_unit_test(measure_round_trip),
		cmocka_unit_test(measure_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
