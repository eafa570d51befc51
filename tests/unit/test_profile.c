/*
 * test_profile.c - comm profiles through the public API (orrery.h):
 * the --comm-profile grammar, canonical form, limits, the model catalogue
 * and its derivation, and captured-profile files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orrery.h"

/* ------------------------------------------------------------ helpers */

static orrery_profile_t *parse_ok(const char *spec)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err;
	int rc = orrery_profile_parse(spec, &p, &err);
	if (rc != ORRERY_OK)
		fail_msg("'%s' rejected: %s", spec, err.message);
	assert_non_null(p);
	return p;
}

static void expect_canonical(const char *spec, const char *canon)
{
	orrery_profile_t *p = parse_ok(spec);
	char *c = orrery_profile_canonical(p);
	assert_non_null(c);
	if (strcmp(c, canon) != 0)
		fail_msg("'%s': canonical '%s', expected '%s'", spec, c, canon);
	/* parse(canonical(p)) == p */
	orrery_profile_t *q = parse_ok(c);
	assert_true(orrery_profile_equal(p, q));
	orrery_free(c);
	orrery_profile_free(q);
	orrery_profile_free(p);
}

/* msg: exact message, or NULL to check the code only. */
static void expect_reject(const char *spec, int code, const char *msg)
{
	orrery_profile_t *p = (orrery_profile_t *)0x1;
	orrery_error_t err;
	int rc = orrery_profile_parse(spec, &p, &err);
	if (rc != code)
		fail_msg("'%s': rc %d (%s), expected %d", spec, rc,
			 rc ? err.message : "accepted", code);
	assert_null(p);
	assert_int_equal(err.code, code);
	assert_true(strlen(err.message) > 0);
	if (msg && strcmp(err.message, msg) != 0)
		fail_msg("'%s': message\n  '%s'\nexpected\n  '%s'", spec,
			 err.message, msg);
}

static orrery_profile_t *resolve_ok(const orrery_profile_t *p, uint32_t nodes,
				    uint32_t gpn, uint64_t link)
{
	orrery_shape_t s = {nodes, gpn, link};
	orrery_profile_t *r = NULL;
	orrery_error_t err;
	if (orrery_profile_resolve(p, &s, &r, &err) != ORRERY_OK)
		fail_msg("resolve at %u x %u @ %" PRIu64 ": %s", nodes, gpn,
			 link, err.message);
	assert_false(orrery_profile_is_model(r));
	return r;
}

static orrery_phase_t phase_at(const orrery_profile_t *p, size_t i)
{
	orrery_phase_t ph;
	assert_int_equal(orrery_profile_phase(p, i, &ph), ORRERY_OK);
	return ph;
}

/* ------------------------------------------------------------ grammar */

static void test_pattern_accept(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a",
		 "period=250ms;up=0s+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a"},
		/* whitespace around tokens, keys and values */
		{"  period = 250ms ;\tup=0ms+80ms@45Gbps  ",
		 "period=250ms;up=0s+80ms@45Gbps"},
		/* phases sorted; ring is the default and omitted */
		{"up=150ms+20ms@10Gbps/ring;period=0.25s;up=0us+80000us@45000Mbps",
		 "period=250ms;up=0s+80ms@45Gbps;up=150ms+20ms@10Gbps"},
		/* largest exact unit: 1500us, 1.5s, 2Tbps, 1500Mbps */
		{"period=1.5s;up=0.0015s+1500us@2000Gbps",
		 "period=1500ms;up=1500us+1500us@2Tbps"},
		{"period=1500ms;up=1ms+2ms@1.5Gbps",
		 "period=1500ms;up=1ms+2ms@1500Mbps"},
		{"period=2s", "period=2s"},
		/* overlapping phases are allowed (demands add) */
		{"period=100ms;up=0ms+60ms@10Gbps;up=30ms+60ms@10Gbps/a2a",
		 "period=100ms;up=0s+60ms@10Gbps;up=30ms+60ms@10Gbps/a2a"},
		/* limits are inclusive */
		{"period=1ms;up=0ms+1ms@1Mbps", "period=1ms;up=0s+1ms@1Mbps"},
		{"period=3600s;up=0s+3600s@10Tbps",
		 "period=3600s;up=0s+3600s@10Tbps"},
		{"period=1.000000s", "period=1s"},
		/* pipeline stages and rails; phases differing only there are
		 * distinct and sorted by collective, then count */
		{"period=100ms;up=0ms+30ms@25Gbps/pp4;up=50ms+20ms@400Gbps/rail8",
		 "period=100ms;up=0s+30ms@25Gbps/pp4;up=50ms+20ms@400Gbps/rail8"},
		{"period=100ms;up=0ms+30ms@25Gbps/pp8;up=0ms+30ms@25Gbps/pp2",
		 "period=100ms;up=0s+30ms@25Gbps/pp2;up=0s+30ms@25Gbps/pp8"},
		{"period=100ms;up=0ms+30ms@25Gbps/pp1024;up=0ms+1ms@1Gbps/rail1",
		 "period=100ms;up=0s+1ms@1Gbps/rail1;up=0s+30ms@25Gbps/pp1024"},
		{"period=100ms;up=0ms+30ms@25Gbps/rail64",
		 "period=100ms;up=0s+30ms@25Gbps/rail64"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_canonical(cases[i][0], cases[i][1]);
}

static void test_pattern_reject(void **state)
{
	(void)state;
	expect_reject("", ORRERY_EINVAL, NULL);
	expect_reject("   ", ORRERY_EINVAL, NULL);
	expect_reject("up=0ms+80ms@45Gbps", ORRERY_EINVAL,
		      "missing 'period=' (e.g. period=250ms;up=0ms+80ms@45Gbps)");
	expect_reject("period=250ms;period=250ms", ORRERY_EINVAL,
		      "duplicate 'period=' ('period=250ms'); exactly one is allowed");
	expect_reject("perod=250ms", ORRERY_EINVAL,
		      "unknown key 'perod' in 'perod=250ms' (accepted: period, up)");
	expect_reject("period=250ms;;up=0ms+80ms@45Gbps", ORRERY_EINVAL,
		      "empty token 2 (a stray ';'?); tokens are period=T and "
		      "up=OFFSET+DURATION@DEMAND");
	expect_reject("period=250ms;", ORRERY_EINVAL, NULL);
	expect_reject("period=250", ORRERY_EINVAL,
		      "'period=250': time '250' needs a unit (us, ms, s)");
	expect_reject("period=2h", ORRERY_EINVAL,
		      "'period=2h': time '2h' has an unknown unit (accepted: us, ms, s)");
	expect_reject("period=1.5us", ORRERY_EINVAL,
		      "'period=1.5us': time '1.5us' is not a whole number of microseconds");
	expect_reject("period=-5ms", ORRERY_EINVAL, NULL);
	expect_reject("period=.5s", ORRERY_EINVAL, NULL);
	expect_reject("period=5.s", ORRERY_EINVAL, NULL);
	expect_reject("period=5ms5", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up=0ms+80ms", ORRERY_EINVAL,
		      "malformed phase 'up=0ms+80ms' (expected "
		      "up=OFFSET+DURATION@DEMAND[/ring|/a2a|/ppS|/railR], "
		      "e.g. up=0ms+80ms@45Gbps)");
	expect_reject("period=250ms;up=0ms+80ms@45GBps", ORRERY_EINVAL,
		      "'up=0ms+80ms@45GBps': demand '45GBps' has an unknown unit "
		      "(accepted: Mbps, Gbps, Tbps)");
	expect_reject("period=250ms;up=0ms+80ms@0.5Mbps", ORRERY_EINVAL,
		      "'up=0ms+80ms@0.5Mbps': demand '0.5Mbps' is not a whole number of Mbps");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/tree", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/tree': unknown collective 'tree' "
		      "(accepted: ring, a2a, ppS for S pipeline stages (2..1024), "
		      "railR for R rails (1..64))");
	/* pipeline and rail collectives: a count, plain and in range */
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/pp': collective 'pp' needs its number "
		      "of pipeline stages, e.g. pp4");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/rail", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/rail': collective 'rail' needs its "
		      "number of rails, e.g. rail8");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp1", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/pp1': collective 'pp1': pipeline "
		      "stages out of range (2..1024)");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp1025", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/pp1025': collective 'pp1025': pipeline "
		      "stages out of range (2..1024)");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp99999999999", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/pp99999999999': collective "
		      "'pp99999999999': pipeline stages out of range (2..1024)");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/rail0", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/rail0': collective 'rail0': rails "
		      "out of range (1..64)");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/rail65", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/rail65': collective 'rail65': rails "
		      "out of range (1..64)");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp04", ORRERY_EINVAL,
		      "'up=0ms+80ms@45Gbps/pp04': collective 'pp04': the number "
		      "of pipeline stages must be a plain whole number (accepted: "
		      "ring, a2a, ppS for S pipeline stages (2..1024), railR for "
		      "R rails (1..64))");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp+4", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/pp 4", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/rail8x", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/PP4", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up=0ms+80ms@45Gbps/ring4", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;down=0ms+80ms@45Gbps", ORRERY_EINVAL, NULL);
	expect_reject("period=250ms;up", ORRERY_EINVAL, NULL);
	/* files are read by the SPANK plugin, never by the parser */
	expect_reject("@/home/u/job.profile", ORRERY_EINVAL,
		      "'@/home/u/job.profile': profile files are read at "
		      "submission by --comm-profile=@PATH, not by this parser");
	expect_reject("file:/etc/shadow", ORRERY_EINVAL, NULL);
	/* bytes outside printable ASCII */
	expect_reject("period=250ms\x01", ORRERY_EINVAL,
		      "profile: control character 0x01 at offset 12");
	expect_reject("period=250ms;up=0ms+80ms@45Gbps\n", ORRERY_EINVAL, NULL);
	expect_reject("period=250\xc2\xb5s", ORRERY_EINVAL,
		      "profile: non-ASCII byte 0xc2 at offset 10 (profiles are plain ASCII)");
}

static void test_pattern_ranges(void **state)
{
	(void)state;
	expect_reject("period=999us", ORRERY_ERANGE,
		      "'period=999us' out of range (1ms..3600s)");
	expect_reject("period=3600000001us", ORRERY_ERANGE, NULL);
	expect_reject("period=0s", ORRERY_ERANGE, NULL);
	expect_reject("period=99999999999999999999s", ORRERY_ERANGE,
		      "'period=99999999999999999999s' out of range (1ms..3600s)");
	expect_reject("period=9223372036854775808us", ORRERY_ERANGE, NULL);
	expect_reject("period=9223372036855s", ORRERY_ERANGE, NULL);
	expect_reject("period=250ms;up=0ms+0ms@45Gbps", ORRERY_ERANGE,
		      "'up=0ms+0ms@45Gbps': duration must be > 0");
	expect_reject("period=250ms;up=200ms+80ms@1Gbps", ORRERY_ERANGE,
		      "'up=200ms+80ms@1Gbps': offset 200ms + duration 80ms "
		      "exceeds the period (250ms); phases must fit inside one period");
	expect_reject("period=250ms;up=250ms+1us@1Gbps", ORRERY_ERANGE, NULL);
	expect_reject("period=250ms;up=0ms+80ms@0Mbps", ORRERY_ERANGE,
		      "'up=0ms+80ms@0Mbps': demand 0Mbps out of range (1Mbps..10Tbps)");
	expect_reject("period=250ms;up=0ms+80ms@10000001Mbps", ORRERY_ERANGE, NULL);
	expect_reject("period=250ms;up=0ms+80ms@99999999999999999999Tbps",
		      ORRERY_ERANGE, NULL);
	expect_reject("period=250ms;up=0ms+99999999999999999999s@1Gbps",
		      ORRERY_ERANGE, NULL);
}

static void test_limits(void **state)
{
	(void)state;
	/* length: exactly the limit parses, one more byte does not */
	char *s = malloc(ORRERY_SPEC_MAX_LEN + 2);
	assert_non_null(s);
	memset(s, ' ', ORRERY_SPEC_MAX_LEN + 1);
	memcpy(s, "period=1s", 9);
	s[ORRERY_SPEC_MAX_LEN] = '\0';
	orrery_profile_free(parse_ok(s));
	s[ORRERY_SPEC_MAX_LEN] = ' ';
	s[ORRERY_SPEC_MAX_LEN + 1] = '\0';
	expect_reject(s, ORRERY_ELIMIT,
		      "profile longer than the limit of 4096 bytes");
	free(s);

	/* phase count: ORRERY_MAX_PHASES parse, one more does not */
	char buf[ORRERY_SPEC_MAX_LEN];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "period=1s");
	for (int i = 0; i < ORRERY_MAX_PHASES; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n,
				      ";up=%dms+1ms@1Gbps", i * 10);
	orrery_profile_t *p = parse_ok(buf);
	assert_int_equal(orrery_profile_phase_count(p), ORRERY_MAX_PHASES);
	orrery_profile_free(p);
	snprintf(buf + n, sizeof(buf) - n, ";up=999ms+1ms@1Gbps");
	expect_reject(buf, ORRERY_ELIMIT, "more than 64 'up=' phases");

	/* orrery_profile_new applies the same validation */
	orrery_phase_t ph[ORRERY_MAX_PHASES + 1];
	for (int i = 0; i <= ORRERY_MAX_PHASES; i++)
		ph[i] = (orrery_phase_t){i * 1000, 1000, 1000, ORRERY_COLL_RING, 0};
	orrery_error_t err;
	p = NULL;
	assert_int_equal(orrery_profile_new(1000000, ph, ORRERY_MAX_PHASES + 1,
					    &p, &err), ORRERY_ELIMIT);
	assert_null(p);
	assert_int_equal(orrery_profile_new(999, NULL, 0, &p, &err), ORRERY_ERANGE);
	ph[0] = (orrery_phase_t){-1, 10, 10, ORRERY_COLL_RING, 0};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_ERANGE);
	ph[0] = (orrery_phase_t){INT64_MAX, INT64_MAX, 10, ORRERY_COLL_RING, 0};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_ERANGE);
	ph[0] = (orrery_phase_t){0, 10, 10, 7, 0};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_EINVAL);
	/* A pipeline needs 2..1024 stages, a rail 1..64 rails; ring and
	 * all-to-all take no count. */
	ph[0] = (orrery_phase_t){0, 10, 10, ORRERY_COLL_PIPELINE, 1};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "pipeline stages out of range (2..1024)"));
	ph[0].groups = 4;
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_OK);
	assert_int_equal(phase_at(p, 0).groups, 4);
	char *canon = orrery_profile_canonical(p);
	assert_string_equal(canon, "period=1s;up=0s+10us@10Mbps/pp4");
	orrery_free(canon);
	orrery_profile_free(p);
	p = NULL;
	ph[0] = (orrery_phase_t){0, 10, 10, ORRERY_COLL_RAIL, 65};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "rails out of range (1..64)"));
	ph[0] = (orrery_phase_t){0, 10, 10, ORRERY_COLL_RING, 3};
	assert_int_equal(orrery_profile_new(1000000, ph, 1, &p, &err), ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "takes no stage or rail count"));
	assert_int_equal(orrery_profile_new(1000000, NULL, 1, &p, &err), ORRERY_EINVAL);
	assert_int_equal(orrery_profile_parse(NULL, &p, &err), ORRERY_EINVAL);
}

/* Mean demand and duty cycle of a hand-checkable pattern:
 * 80 ms at 45 Gb/s + 20 ms at 10 Gb/s over 250 ms
 *   mean = (45000*80 + 10000*20) / 250 = 15200 Mb/s
 *   duty = (80 + 20) / 250 = 0.4
 * Overlapping phases count once in the duty cycle: 0-60 and 30-90 -> 0.9. */
static void test_pattern_stats(void **state)
{
	(void)state;
	orrery_profile_t *p = parse_ok(
		"period=250ms;up=150ms+20ms@10Gbps/a2a;up=0ms+80ms@45Gbps");
	assert_int_equal(orrery_profile_period_us(p), 250000);
	assert_int_equal(orrery_profile_phase_count(p), 2);
	orrery_phase_t a = phase_at(p, 0), b = phase_at(p, 1);
	assert_int_equal(a.offset_us, 0);
	assert_int_equal(a.duration_us, 80000);
	assert_int_equal(a.demand_mbps, 45000);
	assert_int_equal(a.collective, ORRERY_COLL_RING);
	assert_int_equal(b.offset_us, 150000);
	assert_int_equal(b.collective, ORRERY_COLL_ALLTOALL);
	orrery_phase_t ph;
	assert_int_equal(orrery_profile_phase(p, 2, &ph), ORRERY_ERANGE);
	assert_true(orrery_profile_mean_demand_mbps(p) > 15199.999 &&
		    orrery_profile_mean_demand_mbps(p) < 15200.001);
	assert_true(orrery_profile_duty_cycle(p) > 0.3999 &&
		    orrery_profile_duty_cycle(p) < 0.4001);
	assert_false(orrery_profile_is_model(p));
	assert_null(orrery_profile_model(p));
	orrery_profile_free(p);

	p = parse_ok("period=100ms;up=0ms+60ms@10Gbps;up=30ms+60ms@10Gbps");
	assert_true(orrery_profile_duty_cycle(p) > 0.8999 &&
		    orrery_profile_duty_cycle(p) < 0.9001);
	orrery_profile_free(p);
}

/* ------------------------------------------------------------ property */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: fixed seed, reproducible across runs */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_range(uint64_t lo, uint64_t hi)
{
	return lo + rnd() % (hi - lo + 1);
}

/* A value in [lo, hi] that is often a round number of a bigger unit. */
static uint64_t rnd_value(uint64_t lo, uint64_t hi)
{
	static const uint64_t grains[] = {1, 10, 1000, 1000000};
	uint64_t g = grains[rnd() % 4];
	uint64_t v = rnd_range(lo, hi);
	if (v / g * g >= lo)
		v = v / g * g;
	return v;
}

/* Spell a µs value in a random unit, as a decimal where needed. */
static void spell_time(char *out, size_t n, int64_t us)
{
	static const struct { const char *u; int64_t scale; } units[] = {
		{"us", 1}, {"ms", 1000}, {"s", 1000000}};
	int k = (int)(rnd() % 3);
	int64_t ip = us / units[k].scale, fp = us % units[k].scale;
	if (fp == 0)
		snprintf(out, n, "%" PRId64 "%s", ip, units[k].u);
	else
		snprintf(out, n, "%" PRId64 ".%0*" PRId64 "%s", ip,
			 k == 1 ? 3 : 6, fp, units[k].u);
}

static void test_property_roundtrip(void **state)
{
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		int64_t period = (int64_t)rnd_value(ORRERY_MIN_PERIOD_US,
						    ORRERY_MAX_PERIOD_US);
		size_t n = (size_t)rnd_range(0, iter % 10 ? 4 : ORRERY_MAX_PHASES);
		orrery_phase_t ph[ORRERY_MAX_PHASES];
		for (size_t i = 0; i < n; i++) {
			ph[i].offset_us = (int64_t)rnd_value(0, (uint64_t)period - 1);
			ph[i].duration_us = (int64_t)rnd_value(
				1, (uint64_t)(period - ph[i].offset_us));
			ph[i].demand_mbps = rnd_value(ORRERY_MIN_DEMAND_MBPS,
						      ORRERY_MAX_DEMAND_MBPS);
			/* every collective, with its stage or rail count */
			ph[i].collective = (int)(rnd() % 4);
			ph[i].groups = ph[i].collective == ORRERY_COLL_PIPELINE
				? (uint32_t)rnd_range(2, ORRERY_MAX_STAGES)
				: ph[i].collective == ORRERY_COLL_RAIL
				? (uint32_t)rnd_range(1, ORRERY_MAX_RAILS) : 0;
		}
		orrery_profile_t *p = NULL;
		orrery_error_t err;
		if (orrery_profile_new(period, ph, n, &p, &err) != ORRERY_OK)
			fail_msg("iteration %d: %s", iter, err.message);

		/* canonical text parses back to the same pattern */
		char *c = orrery_profile_canonical(p);
		orrery_profile_t *q = parse_ok(c);
		if (!orrery_profile_equal(p, q))
			fail_msg("iteration %d: '%s' does not round-trip", iter, c);
		char *c2 = orrery_profile_canonical(q);
		assert_string_equal(c, c2);

		/* an equivalent spelling in other units, phases reversed,
		 * parses to the same pattern */
		char spec[ORRERY_SPEC_MAX_LEN], t1[48], t2[48], co[16];
		size_t len = 0;
		spell_time(t1, sizeof(t1), period);
		len += (size_t)snprintf(spec + len, sizeof(spec) - len,
					"period=%s", t1);
		for (size_t i = n; i-- > 0;) {
			spell_time(t1, sizeof(t1), ph[i].offset_us);
			spell_time(t2, sizeof(t2), ph[i].duration_us);
			if (ph[i].collective == ORRERY_COLL_PIPELINE)
				snprintf(co, sizeof(co), "/pp%u", ph[i].groups);
			else if (ph[i].collective == ORRERY_COLL_RAIL)
				snprintf(co, sizeof(co), "/rail%u", ph[i].groups);
			else
				snprintf(co, sizeof(co), "%s", ph[i].collective
					 ? "/a2a" : (i % 2 ? "/ring" : ""));
			len += (size_t)snprintf(spec + len, sizeof(spec) - len,
				" ; up=%s+%s@%" PRIu64 "Mbps%s", t1, t2,
				ph[i].demand_mbps, co);
		}
		if (len < ORRERY_SPEC_MAX_LEN) {
			orrery_profile_t *r = parse_ok(spec);
			if (!orrery_profile_equal(p, r))
				fail_msg("iteration %d: '%s' != '%s'", iter,
					 spec, c);
			orrery_profile_free(r);
		}
		/* sorted by offset */
		for (size_t i = 1; i < n; i++)
			assert_true(phase_at(q, i - 1).offset_us <=
				    phase_at(q, i).offset_us);
		orrery_free(c);
		orrery_free(c2);
		orrery_profile_free(p);
		orrery_profile_free(q);
	}
}

/* ------------------------------------------------------------ models */

static void test_model_specs(void **state)
{
	(void)state;
	expect_canonical("resnet50",
			 "resnet50:batch=64,gpu=a100,overlap=0,precision=fp32");
	/* case-insensitive names, keys and values; values normalised */
	expect_canonical(" RESNET50 : Batch=064 , overlap=0.30,PRECISION=FP16",
			 "resnet50:batch=64,gpu=a100,overlap=0.3,precision=fp16");
	expect_canonical("gpt2:precision=bf16,batch=32",
			 "gpt2:batch=32,gpu=a100,overlap=0,precision=bf16,seq=1024");
	expect_canonical("llama-70b:pp=4",
			 "llama-70b:batch=32,dp=auto,gpu=a100,overlap=0,pp=4,"
			 "precision=bf16,seq=4096,tp=8");

	/* two spellings of the same request compare equal */
	orrery_profile_t *a = parse_ok("resnet50:overlap=0.250,batch=64");
	orrery_profile_t *b = parse_ok("ResNet50:batch=64,gpu=A100,overlap=0.25");
	assert_true(orrery_profile_equal(a, b));
	assert_true(orrery_profile_is_model(a));
	assert_string_equal(orrery_profile_model(a), "resnet50");
	/* pattern accessors refuse an unresolved model */
	orrery_phase_t ph;
	assert_int_equal(orrery_profile_phase(a, 0, &ph), ORRERY_ESTATE);
	assert_int_equal(orrery_profile_period_us(a), 0);
	assert_int_equal(orrery_profile_phase_count(a), 0);
	orrery_error_t err;
	assert_int_equal(orrery_profile_save_file(a, "/nonexistent/x", NULL, &err),
			 ORRERY_ESTATE);
	orrery_profile_t *c = parse_ok("resnet50:batch=32");
	assert_false(orrery_profile_equal(a, c));
	orrery_profile_t *d = orrery_profile_copy(a);
	assert_true(orrery_profile_equal(a, d));
	assert_string_equal(orrery_profile_model(d), "resnet50");
	orrery_profile_free(a);
	orrery_profile_free(b);
	orrery_profile_free(c);
	orrery_profile_free(d);

	expect_reject("resnet5", ORRERY_EINVAL,
		      "unknown model 'resnet5' (did you mean 'resnet50'?)");
	expect_reject("bert_large", ORRERY_EINVAL,
		      "unknown model 'bert_large' (did you mean 'bert-large'?)");
	expect_reject("alexnet", ORRERY_EINVAL,
		      "unknown model 'alexnet' (see orrery-profile(7) for the catalogue)");
	/* The suggestion is the first closest name within the limit (a third
	 * of the letters, 1..3), computed with a distance that stops at the
	 * limit: at the limit it is shown, one past it not; ties go to the
	 * catalogue's first. */
	expect_reject("rsnt50", ORRERY_EINVAL,
		      "unknown model 'rsnt50' (did you mean 'resnet50'?)");
	expect_reject("rnt50", ORRERY_EINVAL,
		      "unknown model 'rnt50' (see orrery-profile(7) for the catalogue)");
	expect_reject("wideresnet1012", ORRERY_EINVAL,
		      "unknown model 'wideresnet1012' (did you mean 'wideresnet101-2'?)");
	expect_reject("wdrsnt101-2", ORRERY_EINVAL,
		      "unknown model 'wdrsnt101-2' (see orrery-profile(7) for the catalogue)");
	expect_reject("vgg17", ORRERY_EINVAL,
		      "unknown model 'vgg17' (did you mean 'vgg11'?)");
	expect_reject("gpt3-xk", ORRERY_EINVAL,
		      "unknown model 'gpt3-xk' (did you mean 'gpt3-xl'?)");
	expect_reject("gpt2:bacth=32", ORRERY_EINVAL,
		      "unknown parameter 'bacth' for model 'gpt2' "
		      "(accepted: batch, gpu, overlap, precision, seq)");
	expect_reject("gpt2:precision=fp8", ORRERY_EINVAL,
		      "precision 'fp8' not accepted (accepted: fp32, fp16, bf16)");
	expect_reject("gpt2:gpu=k80", ORRERY_EINVAL,
		      "gpu 'k80' not accepted (accepted: v100, a100, h100)");
	expect_reject("resnet50:batch=0", ORRERY_ERANGE,
		      "batch=0 out of range (1..65536)");
	expect_reject("resnet50:batch=65537", ORRERY_ERANGE, NULL);
	expect_reject("resnet50:batch=99999999999999999999999", ORRERY_ERANGE, NULL);
	expect_reject("resnet50:batch=-1", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:batch=1e3", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:overlap=0.95", ORRERY_ERANGE,
		      "overlap=0.95 out of range (0..0.9)");
	expect_reject("resnet50:overlap=1", ORRERY_ERANGE, NULL);
	expect_reject("resnet50:overlap=0.1234", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:overlap=half", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:batch=32,batch=64", ORRERY_EINVAL,
		      "duplicate parameter 'batch' for model 'resnet50'");
	expect_reject("resnet50:", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:batch=32,", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:batch", ORRERY_EINVAL, NULL);
	expect_reject("resnet50:seq=128", ORRERY_EINVAL, NULL);
	expect_reject("bert-base:gpu=v100,precision=bf16", ORRERY_EINVAL, NULL);
	expect_reject("llama-7b:tp=0", ORRERY_ERANGE, NULL);
	expect_reject(":batch=3", ORRERY_EINVAL, NULL);
}

static int catalogue_has(const char *name)
{
	for (size_t i = 0; i < orrery_catalogue_count(); i++)
		if (!strcmp(orrery_catalogue_name(i), name))
			return 1;
	return 0;
}

static void test_catalogue_list(void **state)
{
	(void)state;
	static const char *const required[] = {
		"vgg11", "vgg16", "vgg19", "resnet50", "wideresnet101-2",
		"bert-base", "bert-large", "roberta-base", "xlm", "camembert",
		"gpt1", "gpt2", "gpt2-xl", "gpt3-xl", "dlrm", "llama-7b",
		"llama-70b", "gpt3-175b", "mixtral-8x7b"};
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!catalogue_has(required[i]))
			fail_msg("catalogue lacks %s", required[i]);
	for (size_t i = 0; i < orrery_catalogue_count(); i++) {
		const char *n = orrery_catalogue_name(i);
		for (const char *c = n; *c; c++)
			assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz"
					       "0123456789_.-", *c));
		const char *s = orrery_catalogue_summary(i);
		assert_non_null(s);
		assert_non_null(strstr(s, "params"));
	}
	assert_null(orrery_catalogue_name(orrery_catalogue_count()));
	assert_null(orrery_catalogue_summary(orrery_catalogue_count()));
}

/* Every catalogue model at several shapes: the model spec and the
 * resolved pattern both round-trip through their canonical text, and
 * multi-node jobs have Up phases whose demand never exceeds the NIC. */
static void test_catalogue_roundtrip(void **state)
{
	(void)state;
	static const orrery_shape_t shapes[] = {
		{0, 0, 0}, {2, 8, 100000}, {4, 8, 200000}, {8, 8, 25000},
		{16, 8, 400000}, {2, 8, 50000}};
	for (size_t i = 0; i < orrery_catalogue_count(); i++) {
		const char *name = orrery_catalogue_name(i);
		char spec[128];
		snprintf(spec, sizeof(spec), "%s:overlap=0.5", name);
		for (int v = 0; v < 2; v++) {
			orrery_profile_t *m = parse_ok(v ? spec : name);
			char *mc = orrery_profile_canonical(m);
			orrery_profile_t *m2 = parse_ok(mc);
			assert_true(orrery_profile_equal(m, m2));
			for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
				orrery_profile_t *r = resolve_ok(m, shapes[s].nodes,
					shapes[s].gpus_per_node, shapes[s].link_mbps);
				uint64_t link = shapes[s].link_mbps ? shapes[s].link_mbps
								    : 100000;
				char *rc = orrery_profile_canonical(r);
				orrery_profile_t *r2 = parse_ok(rc);
				if (!orrery_profile_equal(r, r2))
					fail_msg("%s: '%s' does not round-trip", mc, rc);
				assert_true(orrery_profile_phase_count(r) >= 1);
				for (size_t k = 0; k < orrery_profile_phase_count(r); k++)
					assert_true(phase_at(r, k).demand_mbps <= link);
				/* resolution is deterministic */
				orrery_profile_t *r3 = resolve_ok(m, shapes[s].nodes,
					shapes[s].gpus_per_node, shapes[s].link_mbps);
				assert_true(orrery_profile_equal(r, r3));
				orrery_free(rc);
				orrery_profile_free(r);
				orrery_profile_free(r2);
				orrery_profile_free(r3);
			}
			orrery_free(mc);
			orrery_profile_free(m);
			orrery_profile_free(m2);
		}
	}
}

/* ResNet-50, 4 nodes x 8 GPUs, 100 Gb/s NICs, defaults (batch 64 per GPU,
 * fp32 on A100 = 40 TFLOP/s effective, overlap 0):
 *   forward 2 x 4.09 GMAC = 8.18 GFLOP; training 3 x 8.18 = 24.54 GFLOP
 *   compute = 64 x 24.54e9 / 40e12 s = 39.264 ms = 39264 us
 *   S = 25,557,032 params x 4 B = 102,228,128 B
 *   per node 2(N-1)/N x S = 1.5 x S = 153,342,192 B = 1,226,737,536 bit
 *   Up duration = 1,226,737,536 bit / 100,000 Mbit/s = 12267.375 us
 *   period = 39264 + 12267.375 = 51531.375 us, Up at offset 39264 us
 * With overlap=0.5 half the communication hides behind backward:
 *   period = 39264 + 12267.375 / 2 = 45397.69 us, Up starts at
 *   39264 - 6133.69 = 33130.31 us and still lasts 12267.375 us. */
static void test_resolve_resnet50(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("resnet50");
	orrery_profile_t *r = resolve_ok(m, 4, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 1);
	orrery_phase_t ph = phase_at(r, 0);
	assert_true(llabs(orrery_profile_period_us(r) - 51531) <= 1);
	assert_true(llabs(ph.duration_us - 12267) <= 1);
	assert_true(llabs(ph.offset_us - 39264) <= 1);
	assert_int_equal(ph.demand_mbps, 100000);
	assert_int_equal(ph.collective, ORRERY_COLL_RING);
	orrery_profile_free(r);
	orrery_profile_free(m);

	m = parse_ok("resnet50:overlap=0.5");
	r = resolve_ok(m, 4, 8, 100000);
	ph = phase_at(r, 0);
	assert_true(llabs(orrery_profile_period_us(r) - 45398) <= 1);
	assert_true(llabs(ph.offset_us - 33130) <= 1);
	assert_true(llabs(ph.duration_us - 12267) <= 1);
	orrery_profile_free(r);
	orrery_profile_free(m);
}

/* BERT-large, fp16, batch 16 per GPU, seq 128, 2 nodes x 8 GPUs, 200 Gb/s:
 *   training FLOPs = 6 x 340e6 params x 128 tokens = 2.6112e11 per sample
 *   compute = 16 x 2.6112e11 / 120e12 (A100 fp16 effective) = 34816 us
 *   S = 340e6 x 2 B = 680e6 B; N = 2: 2(N-1)/N x S = 680e6 B = 5.44e9 bit
 *   Up duration = 5.44e9 / 200,000 Mbit/s = 27200 us
 *   period = 34816 + 27200 = 62016 us */
static void test_resolve_bert_large(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("bert-large:precision=fp16,batch=16");
	orrery_profile_t *r = resolve_ok(m, 2, 8, 200000);
	assert_int_equal(orrery_profile_phase_count(r), 1);
	orrery_phase_t ph = phase_at(r, 0);
	assert_true(llabs(orrery_profile_period_us(r) - 62016) <= 1);
	assert_true(llabs(ph.duration_us - 27200) <= 1);
	assert_true(llabs(ph.offset_us - 34816) <= 1);
	assert_int_equal(ph.demand_mbps, 200000);
	orrery_profile_free(r);

	/* fp32 gradients are twice the bytes: twice the Up phase */
	orrery_profile_t *m32 = parse_ok("bert-large:precision=fp32,batch=16");
	r = resolve_ok(m32, 2, 8, 200000);
	assert_true(llabs(phase_at(r, 0).duration_us - 54400) <= 1);
	orrery_profile_free(r);
	orrery_profile_free(m32);
	orrery_profile_free(m);
}

/* One node: no inter-node traffic, the period is the compute time. */
static void test_resolve_single_node(void **state)
{
	(void)state;
	for (size_t i = 0; i < orrery_catalogue_count(); i++) {
		orrery_profile_t *m = parse_ok(orrery_catalogue_name(i));
		orrery_shape_t s = {1, 8, 100000};
		orrery_profile_t *r = NULL;
		orrery_error_t err;
		int rc = orrery_profile_resolve(m, &s, &r, &err);
		if (rc == ORRERY_OK) {
			assert_int_equal(orrery_profile_phase_count(r), 0);
			assert_true(orrery_profile_period_us(r) >= ORRERY_MIN_PERIOD_US);
			orrery_profile_free(r);
		} else {
			/* only a model whose default tp x pp (or, MoE,
			 * tp x ep) needs more than one node may refuse a
			 * single node */
			assert_int_equal(rc, ORRERY_EINVAL);
			assert_true(strstr(err.message, "pp=") ||
				    strstr(err.message, "ep="));
		}
		orrery_profile_free(m);
	}
	/* ResNet-50 on one node: exactly the 39264 us of compute above */
	orrery_profile_t *m = parse_ok("resnet50");
	orrery_profile_t *r = resolve_ok(m, 1, 8, 100000);
	assert_true(llabs(orrery_profile_period_us(r) - 39264) <= 1);
	orrery_profile_free(r);
	orrery_profile_free(m);
}

/* Zero shape fields take the defaults: 2 nodes, 8 GPUs, 100 Gb/s. */
static void test_resolve_defaults(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("vgg16");
	orrery_profile_t *a = resolve_ok(m, 0, 0, 0);
	orrery_profile_t *b = resolve_ok(m, 2, 8, 100000);
	assert_true(orrery_profile_equal(a, b));
	orrery_profile_free(a);
	orrery_profile_free(b);
	/* NULL shape = all defaults; explicit profiles resolve to themselves */
	orrery_error_t err;
	assert_int_equal(orrery_profile_resolve(m, NULL, &a, &err), ORRERY_OK);
	orrery_profile_free(a);
	orrery_profile_free(m);
	m = parse_ok("period=250ms;up=0ms+80ms@45Gbps");
	a = resolve_ok(m, 7, 3, 1);
	assert_true(orrery_profile_equal(a, m));
	orrery_profile_free(a);
	orrery_profile_free(m);
}

/* More nodes: the ring moves 2(N-1)/N of the gradients, so the Up phase
 * grows towards 2x the N=2 value; a faster NIC shortens it. */
static void test_resolve_scaling(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("gpt2");
	orrery_profile_t *r2 = resolve_ok(m, 2, 8, 100000);
	orrery_profile_t *r16 = resolve_ok(m, 16, 8, 100000);
	orrery_profile_t *f = resolve_ok(m, 2, 8, 400000);
	int64_t d2 = phase_at(r2, 0).duration_us;
	int64_t d16 = phase_at(r16, 0).duration_us;
	/* ratio (2*15/16) / (2*1/2) = 1.875 */
	assert_true(llabs(d16 - (int64_t)(d2 * 1.875)) <= 2);
	assert_true(llabs(phase_at(f, 0).duration_us * 4 - d2) <= 4);
	orrery_profile_free(r2);
	orrery_profile_free(r16);
	orrery_profile_free(f);
	orrery_profile_free(m);
}

/* DLRM: an all-to-all embedding exchange and a small MLP all-reduce. */
static void test_resolve_dlrm(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("dlrm");
	orrery_profile_t *r = resolve_ok(m, 4, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 2);
	orrery_phase_t a = phase_at(r, 0), b = phase_at(r, 1);
	assert_int_equal(a.collective, ORRERY_COLL_ALLTOALL);
	assert_int_equal(b.collective, ORRERY_COLL_RING);
	/* the MLP (2.4 M params) is far smaller than the embedding traffic:
	 * a2a per node = 2 x 8 GPUs x 2048 x 26 x 128 x 4 B x 3/4
	 *             = 327,155,712 B -> 26172.5 us at 100 Gb/s */
	assert_true(llabs(a.duration_us - 26172) <= 1);
	assert_true(b.duration_us < a.duration_us / 10);
	orrery_profile_free(r);
	orrery_profile_free(m);
}

/* LLM: pipeline sends spread over the iteration at low demand, then the
 * data-parallel all-reduce at line rate. */
static void test_resolve_llm(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("llama-70b");   /* tp=8, pp=2 */
	orrery_profile_t *r = resolve_ok(m, 4, 8, 100000);  /* dp = 2 */
	assert_int_equal(orrery_profile_phase_count(r), 2);
	orrery_phase_t pp = phase_at(r, 0), dp = phase_at(r, 1);
	assert_int_equal(pp.offset_us, 0);
	/* the stage sends are a pipeline of pp=2 stages, the all-reduce a ring */
	assert_int_equal(pp.collective, ORRERY_COLL_PIPELINE);
	assert_int_equal(pp.groups, 2);
	assert_int_equal(dp.collective, ORRERY_COLL_RING);
	assert_true(pp.demand_mbps < 100000 / 10);
	assert_int_equal(dp.demand_mbps, 100000);
	assert_int_equal(dp.offset_us, pp.duration_us);
	assert_int_equal(orrery_profile_period_us(r),
			 dp.offset_us + dp.duration_us);
	/* data-parallel all-reduce over 2 nodes of the stage's gradients:
	 * 68.98e9 / pp 2 x 2 B = 68.98e9 B -> 5,518,400 us at 100 Gb/s */
	assert_true(llabs(dp.duration_us - 5518400) <= 1);
	orrery_profile_free(r);

	/* two nodes: dp = 1, only the pipeline crosses the network */
	r = resolve_ok(m, 2, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 1);
	assert_true(phase_at(r, 0).demand_mbps < 100000);
	orrery_profile_free(r);

	/* tensor parallelism must stay inside a node */
	orrery_shape_t s = {8, 4, 100000};
	orrery_error_t err;
	assert_int_equal(orrery_profile_resolve(m, &s, &r, &err), ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "tp=8"));
	orrery_profile_free(m);

	/* dp must match the job */
	m = parse_ok("gpt3-175b:dp=3");
	s = (orrery_shape_t){4, 8, 100000};
	assert_int_equal(orrery_profile_resolve(m, &s, &r, &err), ORRERY_EINVAL);
	assert_string_equal(err.message,
		"gpt3-175b: dp=3 x tp=8 x pp=2 is 48 GPUs but the job has 32 "
		"(4 nodes x 8); use dp=auto");
	orrery_profile_free(m);
}

/* Mixture of experts (mixtral-8x7b, defaults batch 4, seq 4096, bf16,
 * a100 120 TFLOP/s, tp 2, ep 8) on 4 nodes x 8 GPUs at 100 Gb/s:
 *   compute  6 x 12,879,925,248 active x 4096 x 4 / tp 2 / 120e12
 *            = 5,275,617.4 us
 *   a2a      expert-parallel group 2 x 8 = 16 GPUs = 2 nodes, half the
 *            experts on the other node; per node 4 tp groups x 4 x 4096
 *            = 65,536 tokens; 4 x top-2 x 32 layers x 4096 x 2 B x 65,536
 *            x 1/2 = 68,719,476,736 B -> 5,497,558 us at line rate
 *   all-reduce  non-expert 1,605,636,096 x 2 B over 4 nodes (x 3/2)
 *            + experts 45,097,156,608 x 2 B / 2 nodes over 2 replicas (x 1)
 *            = 49,914,064,896 B -> 3,993,125 us
 *   period   5,497,558.1 + 5,275,617.4 + 3,993,125.2 = 14,766,301 us */
static void test_resolve_moe(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("mixtral-8x7b");
	char *c = orrery_profile_canonical(m);
	assert_string_equal(c, "mixtral-8x7b:batch=4,ep=8,gpu=a100,overlap=0,"
			    "precision=bf16,seq=4096,tp=2");
	orrery_free(c);
	orrery_profile_t *r = resolve_ok(m, 4, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 2);
	orrery_phase_t a = phase_at(r, 0), d = phase_at(r, 1);
	assert_int_equal(a.collective, ORRERY_COLL_ALLTOALL);
	assert_int_equal(a.offset_us, 0);
	assert_int_equal(a.duration_us, 5497558);
	assert_int_equal(a.demand_mbps, 100000);
	assert_int_equal(d.collective, ORRERY_COLL_RING);
	assert_int_equal(d.offset_us, 10773176);
	assert_int_equal(d.duration_us, 3993125);
	assert_int_equal(orrery_profile_period_us(r), 14766301);
	orrery_profile_free(r);

	/* Two nodes are one expert-parallel group: every expert once, no
	 * expert all-reduce; the non-expert one over 2 nodes (x 1):
	 * 3,211,272,192 B -> 256,902 us. */
	r = resolve_ok(m, 2, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 2);
	assert_int_equal(phase_at(r, 0).duration_us, 5497558);
	assert_int_equal(phase_at(r, 1).duration_us, 256902);
	orrery_profile_free(r);
	orrery_profile_free(m);

	/* tp=1: the 8 expert-parallel ranks fill one node, the all-to-all
	 * stays inside it; only the all-reduce crosses (8 nodes: x 7/4 of
	 * the non-expert and all expert gradients): 13,076,782 us. */
	m = parse_ok("mixtral-8x7b:tp=1");
	r = resolve_ok(m, 8, 8, 100000);
	assert_int_equal(orrery_profile_phase_count(r), 1);
	assert_int_equal(phase_at(r, 0).collective, ORRERY_COLL_RING);
	assert_int_equal(phase_at(r, 0).duration_us, 13076782);
	orrery_profile_free(r);
	orrery_profile_free(m);

	/* Layouts that do not fit are refused with the reason. */
	orrery_error_t err;
	orrery_shape_t s = {3, 8, 100000};
	m = parse_ok("mixtral-8x7b");
	assert_int_equal(orrery_profile_resolve(m, &s, &r, &err), ORRERY_EINVAL);
	assert_string_equal(err.message, "mixtral-8x7b: tp=2 x ep=8 does not "
			    "divide the job's 24 GPUs (3 nodes x 8)");
	orrery_profile_free(m);
	assert_int_equal(orrery_profile_parse("mixtral-8x7b:ep=3", &m, &err),
			 ORRERY_EINVAL);
	assert_string_equal(err.message, "ep=3 must divide the 8 experts of "
			    "mixtral-8x7b (each rank holds whole experts)");
	assert_int_equal(orrery_profile_parse("mixtral-8x7b:ep=16", &m, &err),
			 ORRERY_ERANGE);
	assert_int_equal(orrery_profile_parse("mixtral-8x7b:pp=2", &m, &err),
			 ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "accepted: batch, ep, gpu, overlap, "
			       "precision, seq, tp"));
}

/* Absurd requests are clamped to the limits, not rejected. */
static void test_resolve_clamps(void **state)
{
	(void)state;
	orrery_profile_t *m = parse_ok("gpt3-175b:batch=65536,gpu=v100,precision=fp32");
	orrery_profile_t *r = resolve_ok(m, 2, 8, 1);
	assert_int_equal(orrery_profile_period_us(r), ORRERY_MAX_PERIOD_US);
	orrery_profile_free(r);
	orrery_profile_free(m);
	m = parse_ok("resnet50:batch=1,gpu=h100,precision=fp16");
	r = resolve_ok(m, 2, 8, 100000000);  /* 100 Tb/s NIC */
	assert_true(orrery_profile_period_us(r) >= ORRERY_MIN_PERIOD_US);
	assert_int_equal(phase_at(r, 0).demand_mbps, ORRERY_MAX_DEMAND_MBPS);
	orrery_profile_free(r);
	orrery_profile_free(m);
}

/* Any catalogue model with any accepted parameters at any shape either
 * resolves to a valid pattern or is refused for its parallel layout
 * (EINVAL); never a range error, never an internal error. */
static void test_resolve_property(void **state)
{
	(void)state;
	static const char *const prec[] = {"fp32", "fp16", "bf16"};
	static const char *const gpu[] = {"v100", "a100", "h100"};
	static const char *const llm[] = {"", ",tp=1", ",tp=4,pp=4",
					  ",pp=8,dp=auto", ",tp=8,pp=1"};
	for (int iter = 0; iter < 3000; iter++) {
		size_t i = (size_t)rnd_range(0, orrery_catalogue_count() - 1);
		const char *name = orrery_catalogue_name(i);
		int is_llm = strstr(orrery_catalogue_summary(i), "LLM") != NULL;
		int is_moe = strstr(orrery_catalogue_summary(i), "mixture-of-experts") != NULL;
		static const char *const moe[] = {"", ",tp=1", ",tp=4,ep=2",
						  ",ep=1", ",tp=8,ep=4"};
		int g = (int)rnd_range(0, 2), pr = (int)rnd_range(0, 2);
		if (g == 0 && pr == 2)
			pr = 1;  /* no bf16 on V100 */
		char spec[256];
		snprintf(spec, sizeof(spec), "%s:batch=%u,gpu=%s,precision=%s,"
			 "overlap=0.%u%s", name, (unsigned)rnd_value(1, 65536),
			 gpu[g], prec[pr], (unsigned)rnd_range(0, 9),
			 is_llm ? llm[rnd() % 5] : is_moe ? moe[rnd() % 5] : "");
		orrery_profile_t *m = parse_ok(spec);
		orrery_shape_t s = {
			(uint32_t)(iter % 3 ? rnd_range(0, 64) : rnd_range(0, 100000)),
			(uint32_t)rnd_range(0, 16),
			iter % 5 ? rnd_value(0, 800000) : rnd_range(0, UINT64_MAX / 2)};
		orrery_profile_t *r = NULL;
		orrery_error_t err;
		int rc = orrery_profile_resolve(m, &s, &r, &err);
		if (rc != ORRERY_OK && !((is_llm || is_moe) && rc == ORRERY_EINVAL))
			fail_msg("%s at %u x %u @ %" PRIu64 ": rc %d %s", spec,
				 s.nodes, s.gpus_per_node, s.link_mbps, rc,
				 err.message);
		if (rc == ORRERY_OK) {
			int64_t per = orrery_profile_period_us(r);
			assert_true(per >= ORRERY_MIN_PERIOD_US &&
				    per <= ORRERY_MAX_PERIOD_US);
			if (s.nodes == 1)
				assert_int_equal(orrery_profile_phase_count(r), 0);
			char *c = orrery_profile_canonical(r);
			orrery_profile_t *q = parse_ok(c);
			assert_true(orrery_profile_equal(r, q));
			orrery_free(c);
			orrery_profile_free(q);
		}
		orrery_profile_free(r);
		orrery_profile_free(m);
	}
}

/* ------------------------------------------------------------ files */

static char data_dir[4096];

static void data_path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", data_dir, name);
}

static void test_file_good(void **state)
{
	(void)state;
	char path[4200];
	data_path(path, sizeof(path), "good.profile");
	orrery_profile_t *p = NULL, *q = NULL;
	orrery_error_t err;
	if (orrery_profile_load_file(path, &p, &err) != ORRERY_OK)
		fail_msg("%s", err.message);
	q = parse_ok("period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a");
	assert_true(orrery_profile_equal(p, q));
	orrery_profile_free(p);

	/* save + load round trip, with a multi-line comment */
	char dir[] = "/tmp/orrery-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char out[256];
	snprintf(out, sizeof(out), "%s/saved.profile", dir);
	assert_int_equal(orrery_profile_save_file(q, out, "line one\nline\ttwo",
						  &err), ORRERY_OK);
	assert_int_equal(orrery_profile_load_file(out, &p, &err), ORRERY_OK);
	assert_true(orrery_profile_equal(p, q));
	orrery_profile_free(p);
	/* overwrite in place (rename over the old file), no temp left */
	assert_int_equal(orrery_profile_save_file(q, out, NULL, &err), ORRERY_OK);
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "test $(ls -A %s | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);

	/* a zero-phase pattern round-trips too */
	orrery_profile_t *z = parse_ok("period=40ms");
	assert_int_equal(orrery_profile_save_file(z, out, NULL, &err), ORRERY_OK);
	assert_int_equal(orrery_profile_load_file(out, &p, &err), ORRERY_OK);
	assert_true(orrery_profile_equal(p, z));
	orrery_profile_free(p);
	orrery_profile_free(z);

	/* load_data from a buffer that is not NUL-terminated */
	const char txt[] = "[profile]\nversion=1\nperiod=1s\nXXXX";
	assert_int_equal(orrery_profile_load_data(txt, sizeof(txt) - 5, &p, &err),
			 ORRERY_OK);
	assert_int_equal(orrery_profile_period_us(p), 1000000);
	orrery_profile_free(p);

	/* a NUL byte is named as such, not as bad UTF-8
	 * (tests/bad-input/profile-file/nul-byte) */
	const char nul[] = "[profile]\nversion=1\nperiod=1s\0\n";
	assert_int_equal(orrery_profile_load_data(nul, sizeof(nul) - 1, &p, &err),
			 ORRERY_EINVAL);
	assert_null(p);
	assert_non_null(strstr(err.message, "contains a NUL byte at offset 29"));

	/* not a regular file: a FIFO (must not block), a directory */
	char fifo[256];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(orrery_profile_load_file(fifo, &p, &err), ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "not a regular file (a FIFO)"));
	assert_int_equal(orrery_profile_load_file(dir, &p, &err), ORRERY_EINVAL);
	snprintf(path, sizeof(path), "%s/missing.profile", dir);
	assert_int_equal(orrery_profile_load_file(path, &p, &err), ORRERY_ENOENT);
	assert_null(p);
	/* saving into a missing directory fails cleanly */
	snprintf(path, sizeof(path), "%s/no/such/dir.profile", dir);
	assert_int_equal(orrery_profile_save_file(q, path, NULL, &err), ORRERY_ENOENT);

	/* over the size limit, by file and by buffer */
	snprintf(path, sizeof(path), "%s/big.profile", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[profile]\nversion=1\nperiod=1s\n", f);
	for (long i = 0; i < ORRERY_PROFILE_FILE_MAX / 10 + 1; i++)
		fputs("#comment.\n", f);
	fclose(f);
	assert_int_equal(orrery_profile_load_file(path, &p, &err), ORRERY_ELIMIT);
	char *big = calloc(1, ORRERY_PROFILE_FILE_MAX + 1);
	assert_non_null(big);
	assert_int_equal(orrery_profile_load_data(big, ORRERY_PROFILE_FILE_MAX + 1,
						  &p, &err), ORRERY_ELIMIT);
	free(big);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	orrery_profile_free(q);
}

static void test_file_bad(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		int code;
		const char *needle;  /* must appear in the message */
	} cases[] = {
		{"bad-unknown-group.profile", ORRERY_EINVAL, "unknown group [phases.0]"},
		{"bad-unknown-key.profile", ORRERY_EINVAL,
		 "unknown key 'bandwidth' in [phase.0] (accepted: offset, duration, demand, collective)"},
		{"bad-version.profile", ORRERY_EVERSION, "format version 2 not supported"},
		{"bad-utf8.profile", ORRERY_EINVAL, "not valid UTF-8"},
		{"bad-missing-period.profile", ORRERY_EINVAL, "[profile] lacks 'period='"},
		{"bad-phase-gap.profile", ORRERY_EINVAL, "[phase.1] missing"},
		{"bad-phase-overrun.profile", ORRERY_ERANGE, "exceeds the period (250ms)"},
		{"bad-demand-unit.profile", ORRERY_EINVAL, "demand '45GB/s'"},
		{"bad-collective.profile", ORRERY_EINVAL, "unknown collective 'tree'"},
		{"bad-syntax.profile", ORRERY_EINVAL, "not a key-file"},
		{"bad-capture.profile", ORRERY_EINVAL, "[capture] iterations 'many'"},
		{"bad-period-range.profile", ORRERY_ERANGE, "out of range (1ms..3600s)"},
		{"bad-duplicate-key.profile", ORRERY_EINVAL,
		 "line 4: key 'period' appears twice in [profile]"},
		{"bad-duplicate-group.profile", ORRERY_EINVAL,
		 "group [phase.0] appears twice"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[4200];
		data_path(path, sizeof(path), cases[i].file);
		orrery_profile_t *p = (orrery_profile_t *)0x1;
		orrery_error_t err;
		int rc = orrery_profile_load_file(path, &p, &err);
		if (rc != cases[i].code || !strstr(err.message, cases[i].needle))
			fail_msg("%s: rc %d '%s', expected %d with '%s'",
				 cases[i].file, rc, rc ? err.message : "",
				 cases[i].code, cases[i].needle);
		assert_null(p);
		/* the message names the file */
		assert_non_null(strstr(err.message, cases[i].file));
	}
}

int main(void)
{
	const char *srcdir = getenv("srcdir");
	snprintf(data_dir, sizeof(data_dir), "%s/tests/data/profiles",
		 srcdir ? srcdir : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_accept),
		cmocka_unit_test(test_pattern_reject),
		cmocka_unit_test(test_pattern_ranges),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_pattern_stats),
		cmocka_unit_test(test_property_roundtrip),
		cmocka_unit_test(test_model_specs),
		cmocka_unit_test(test_catalogue_list),
		cmocka_unit_test(test_catalogue_roundtrip),
		cmocka_unit_test(test_resolve_resnet50),
		cmocka_unit_test(test_resolve_bert_large),
		cmocka_unit_test(test_resolve_single_node),
		cmocka_unit_test(test_resolve_defaults),
		cmocka_unit_test(test_resolve_scaling),
		cmocka_unit_test(test_resolve_dlrm),
		cmocka_unit_test(test_resolve_llm),
		cmocka_unit_test(test_resolve_moe),
		cmocka_unit_test(test_resolve_clamps),
		cmocka_unit_test(test_resolve_property),
		cmocka_unit_test(test_file_good),
		cmocka_unit_test(test_file_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
