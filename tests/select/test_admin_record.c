/* Unit tests of the ORR1: AdminComment record (admin_record.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "admin_record.h"

static void check_merge(const char *old, const char *rec, const char *want)
{
	char *got = orrery_admin_comment_merge(old, rec);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_merge_keeps_other_records(void **state)
{
	check_merge(NULL, "ORR1:a=1", "ORR1:a=1");
	check_merge("", "ORR1:a=1", "ORR1:a=1");
	/* jobstats' record stays, ours is appended after a space. */
	check_merge("JS1:H4sIAAAA", "ORR1:a=1", "JS1:H4sIAAAA ORR1:a=1");
	/* Requeue: the earlier ORR1: record is replaced, not duplicated. */
	check_merge("JS1:x ORR1:a=1 note", "ORR1:a=2", "JS1:x note ORR1:a=2");
	check_merge("ORR1:a=1", "ORR1:a=2", "ORR1:a=2");
	/* Stray spaces do not accumulate. */
	check_merge("  JS1:x   y ", "ORR1:b", "JS1:x y ORR1:b");
	/* Removing (empty record) keeps the rest. */
	check_merge("JS1:x ORR1:a=1", "", "JS1:x");
}

static const char *field(char **kv, const char *key)
{
	size_t n = strlen(key);

	for (size_t i = 0; kv[i]; i++)
		if (!strncmp(kv[i], key, n) && kv[i][n] == '=')
			return kv[i] + n + 1;
	return NULL;
}

static void test_format_round_trips(void **state)
{
	const char *prof = "period=100ms;up=0ms+50ms@80Gbps";
	orrery_admin_record_t r = {
		.period_us = 100000, .shift_us = 50000,
		.epoch_us = 1764400000000000LL, .score_min = 1.0,
		.score_mean = 0.98765, .links = 3, .profile = prof,
		.placed = true,
	};
	char *s = orrery_admin_record_format(&r);
	gsize len = 0;

	assert_non_null(s);
	assert_true(g_str_has_prefix(s, ORRERY_ADMIN_TAG));
	assert_null(strchr(s, ' '));	/* one AdminComment token */
	{
		char **kv = g_strsplit(s + strlen(ORRERY_ADMIN_TAG), ",", -1);
		guchar *dec;

		assert_string_equal(field(kv, "period_us"), "100000");
		assert_string_equal(field(kv, "shift_us"), "50000");
		assert_string_equal(field(kv, "epoch_us"), "1764400000000000");
		assert_string_equal(field(kv, "score_min"), "1.0000");
		assert_string_equal(field(kv, "score_mean"), "0.9877");
		assert_string_equal(field(kv, "links"), "3");
		dec = g_base64_decode(field(kv, "profile_b64"), &len);
		assert_int_equal(len, strlen(prof));
		assert_memory_equal(dec, prof, len);
		g_free(dec);
		g_strfreev(kv);
	}
	free(s);

	r.profile = NULL;
	s = orrery_admin_record_format(&r);
	assert_true(g_str_has_suffix(s, ",profile_b64=,requested_b64="));
	free(s);
}

/* What orrery-sacct reads back: the record among other sites' tokens. */
static void test_parse_round_trips(void **state)
{
	const char *prof = "period=100ms;up=0s+50ms@80Gbps";
	orrery_admin_record_t w = {
		.period_us = 100000, .shift_us = 50000,
		.epoch_us = 1764400000000000LL, .score_min = 0.75,
		.score_mean = 0.875, .links = 2, .profile = prof,
		.placed = true, .requested = "resnet50",
		.fallback = "option:spread-job", .held_s = 42,
	};
	orrery_admin_record_t r;
	char *rec = orrery_admin_record_format(&w);
	char *ac = orrery_admin_comment_merge("JS1:H4sIAAAA", rec);

	assert_int_equal(orrery_admin_record_parse(ac, &r), 1);
	assert_int_equal(r.period_us, 100000);
	assert_int_equal(r.shift_us, 50000);
	assert_int_equal(r.epoch_us, 1764400000000000LL);
	assert_true(r.score_min == 0.75 && r.score_mean == 0.875);
	assert_int_equal(r.links, 2);
	assert_string_equal(r.profile, prof);
	assert_true(r.placed);
	assert_string_equal(r.requested, "resnet50");
	assert_false(r.from_default);
	assert_string_equal(r.fallback, "option:spread-job");
	assert_int_equal(r.held_s, 42);
	orrery_admin_record_clear(&r);
	free(rec);
	free(ac);
}

static void test_parse_rejects_and_skips(void **state)
{
	orrery_admin_record_t r;

	/* No record: 0; another site's payload only: 0. */
	assert_int_equal(orrery_admin_record_parse(NULL, &r), 0);
	assert_int_equal(orrery_admin_record_parse("JS1:abc", &r), 0);
	/* Malformed numbers: -1, nothing returned. */
	assert_int_equal(orrery_admin_record_parse("ORR1:period_us=12x", &r), -1);
	assert_int_equal(r.period_us, 0);
	assert_int_equal(orrery_admin_record_parse("ORR1:links=-3", &r), -1);
	assert_int_equal(orrery_admin_record_parse("ORR1:noequals", &r), -1);
	assert_int_equal(orrery_admin_record_parse("ORR1:held_s=-5", &r), -1);
	/* Unknown keys are skipped (newer writers of version 1). */
	assert_int_equal(orrery_admin_record_parse(
		"ORR1:shift_us=7,future=1", &r), 1);
	assert_int_equal(r.shift_us, 7);
	/* A profile that decodes to control characters is dropped, not
	 * printed: "\x1b[2J" in base64. */
	assert_int_equal(orrery_admin_record_parse(
		"ORR1:shift_us=1,profile_b64=G1sySg==", &r), 1);
	assert_null(r.profile);
}

/* A profiled job orrery did not evaluate (orrery.conf broken, a bad
 * profile): the record keeps what was asked and why nothing was done. */
static void test_fallback_only_record(void **state)
{
	orrery_admin_record_t w = {
		.requested = "gpt2:batch=16,precision=bf16",
		.from_default = true, .fallback = "conf error, bad!",
	};
	orrery_admin_record_t r;
	char *rec = orrery_admin_record_format(&w);

	assert_null(strstr(rec, "period_us"));
	assert_null(strstr(rec, "held_s"));	/* never held: no field */
	assert_null(strchr(rec, ' '));
	/* the reason is one token of [a-z0-9:_-] */
	assert_non_null(strstr(rec, ",fallback=conf_error__bad_"));
	assert_int_equal(orrery_admin_record_parse(rec, &r), 1);
	assert_false(r.placed);
	assert_null(r.profile);
	assert_string_equal(r.requested, "gpt2:batch=16,precision=bf16");
	assert_true(r.from_default);
	assert_string_equal(r.fallback, "conf_error__bad_");
	orrery_admin_record_clear(&r);
	free(rec);
	/* a reason outside the alphabet is not trusted back */
	assert_int_equal(orrery_admin_record_parse(
		"ORR1:requested_b64=,fallback=\x1b[2J", &r), 1);
	assert_null(r.fallback);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_keeps_other_records),
		cmocka_unit_test(test_format_round_trips),
		cmocka_unit_test(test_parse_round_trips),
		cmocka_unit_test(test_parse_rejects_and_skips),
		cmocka_unit_test(test_fallback_only_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
