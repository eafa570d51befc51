/* Unit tests of the orrery.conf parser (plugins/select/orrery/orrery_conf.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orrery_conf.h"

static int parse(const char *text, orrery_conf_t *c, char *err)
{
	return orrery_conf_parse(text, strlen(text), "orrery.conf", c, err,
				 ORRERY_CONF_ERR_MAX);
}

static void test_defaults_from_empty_file(void **state)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX];

	assert_int_equal(parse("", &c, err), 0);
	assert_int_equal(c.mode, ORRERY_MODE_ENFORCE);
	assert_int_equal(c.candidates, 64);
	assert_int_equal(c.rank_spread, 0);
	assert_int_equal(c.hold_max_s, 0);	/* hold=off */
	assert_true(c.learn_tol == 0);	/* learn=off */
	assert_null(c.default_profile);
	assert_int_equal(c.linkspeed_unit_mbps, 1000);
	assert_int_equal(c.node_link_mbps, 0);
	assert_int_equal(c.n_switches, 0);
	orrery_conf_free(&c);
}

static void test_full_file(void **state)
{
	const char *text =
		"# site settings\n"
		"[orrery]\n"
		"mode=advise\n"
		"candidates=16\n"
		"rank_spread=2\n"
		"hold=1.5,3600\n"
		"learn=0.02\n"
		"default_profile=resnet50\n"
		"debug=1\n"
		"node_link=100Gbps\n"
		"linkspeed_unit=10Gbps\n"
		"[uplinks]\n"
		"level0=200Gbps\n"
		"level1=1.6Tbps\n"
		"[switch.leaf3]\n"
		"uplink=400 Mbps\n"
		"[switch.spine-a]\n"
		"uplink=25Gb/s\n";
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX];

	assert_int_equal(parse(text, &c, err), 0);
	assert_int_equal(c.mode, ORRERY_MODE_ADVISE);
	assert_int_equal(c.candidates, 16);
	assert_int_equal(c.rank_spread, 2);
	assert_true(c.hold_cost == 1.5);
	assert_int_equal(c.hold_max_s, 3600);
	assert_true(c.learn_tol == 0.02);
	assert_string_equal(c.default_profile, "resnet50");
	assert_int_equal(c.debug, 1);
	assert_int_equal(c.node_link_mbps, 100000);
	assert_int_equal(c.linkspeed_unit_mbps, 10000);
	assert_int_equal(c.level_uplink_mbps[0], 200000);
	assert_int_equal(c.level_uplink_mbps[1], 1600000);
	assert_int_equal(c.level_uplink_mbps[2], 0);
	assert_int_equal(c.n_switches, 2);
	assert_string_equal(c.switches[0].name, "leaf3");
	assert_int_equal(c.switches[0].uplink_mbps, 400);
	assert_string_equal(c.switches[1].name, "spine-a");
	assert_int_equal(c.switches[1].uplink_mbps, 25000);
	orrery_conf_free(&c);
}

static void test_rates(void **state)
{
	static const struct { const char *s; uint64_t mbps; } good[] = {
		{ "1Mbps", 1 }, { "100Gbps", 100000 }, { "1.5gbps", 1500 },
		{ "2 Tbps", 2000000 }, { "10Gb/s", 10000 }, { " 7 mbps ", 7 },
	};
	static const char *const bad[] = {
		"", "Gbps", "100", "100Gbit", "-5Gbps", "0.1Mbps", "1e12Tbps",
		"100Gbps x", "abc",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		assert_int_equal(orrery_conf_parse_rate(good[i].s, &v), 0);
		assert_int_equal(v, good[i].mbps);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(orrery_conf_parse_rate(bad[i], &v), -1);
}

/* Parallel uplinks (ECMP): KxRATE is K links of RATE, the aggregate
 * stored; a plain rate is one link. */
static void test_uplinks_kxrate(void **state)
{
	static const struct { const char *s; uint64_t mbps; uint32_t k; } good[] = {
		{ "8x400Gbps", 3200000, 8 }, { "1x100Gbps", 100000, 1 },
		{ "2 x 25Gb/s", 50000, 2 }, { "100Gbps", 100000, 1 },
		{ "64X400Gbps", 25600000, 64 },
	};
	static const char *const bad[] = {
		"0x400Gbps", "1025x1Gbps", "8x", "x400Gbps", "8y400Gbps",
		"8x400", "-2x1Gbps", "3000x1000Tbps",
	};
	uint64_t v;
	uint32_t k;
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX] = "";

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 0;
		k = 0;
		assert_int_equal(orrery_conf_parse_uplink(good[i].s, &v, &k), 0);
		assert_int_equal(v, good[i].mbps);
		assert_int_equal(k, good[i].k);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (orrery_conf_parse_uplink(bad[i], &v, &k) != -1)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(parse("[orrery]\nflows=4\n[uplinks]\nlevel0=8x400Gbps\n"
			       "[switch.leaf1]\nuplink=2x100Gbps\n", &c, err), 0);
	assert_int_equal(c.flows, 4);
	assert_int_equal(c.level_uplink_mbps[0], 3200000);
	assert_int_equal(c.level_uplink_links[0], 8);
	assert_int_equal(c.level_uplink_links[1], 0);
	assert_int_equal(c.n_switches, 1);
	assert_int_equal(c.switches[0].uplink_mbps, 200000);
	assert_int_equal(c.switches[0].uplink_links, 2);
	orrery_conf_free(&c);
}

/* Each bad file fails with a message naming the offending token, and
 * leaves the defaults (the plugin then runs as plain cons_tres). */
static void test_bad_files_name_the_problem(void **state)
{
	static const struct { const char *text, *needle; } cases[] = {
		{ "[orrery]\nmode=fast\n", "mode=fast" },
		{ "[orrery]\ncandidates=0\n", "candidates=0" },
		{ "[orrery]\ncandidates=99999\n", "candidates=99999" },
		{ "[orrery]\ncandidates=12x\n", "candidates=12x" },
		{ "[orrery]\ndebug=yes\n", "debug=yes" },
		{ "[orrery]\nnode_link=100\n", "node_link=100" },
		{ "[orrery]\nmdoe=advise\n", "unknown key 'mdoe'" },
		{ "[uplinks]\nlevel16=1Gbps\n", "level16" },
		{ "[uplinks]\nspine=1Gbps\n", "spine" },
		{ "[uplinks]\nlevel1=fast\n", "level1=fast" },
		{ "[uplinks]\nlevel0=0x400Gbps\n", "level0=0x400Gbps: expected" },
		{ "[switch.s1]\nuplink=9999x1Gbps\n", "K 1..1024" },
		{ "[orrery]\nflows=0\n", "flows=0: expected an integer 1..4096" },
		{ "[orrery]\nrank_spread=5\n", "rank_spread=5: expected an integer 0..4" },
		{ "[orrery]\nrank_spread=-1\n", "rank_spread=-1: expected an integer 0..4" },
		{ "[orrery]\nrank_spread=one\n", "rank_spread=one: expected" },
		{ "[orrery]\nrank_spread=\n", "rank_spread=: expected" },
		{ "[orrery]\nhold=on\n", "hold=on: expected off, or COST,SECONDS" },
		{ "[orrery]\nlearn=on\n", "learn=on: expected off, or a fraction above 0 up to 0.5" },
		{ "[orrery]\nlearn=0\n", "learn=0: expected off" },
		{ "[orrery]\nlearn=0.6\n", "learn=0.6: expected off" },
		{ "[orrery]\nlearn=-0.1\n", "learn=-0.1: expected off" },
		{ "[orrery]\nlearn=nan\n", "learn=nan: expected off" },
		{ "[orrery]\nlearn=1%\n", "learn=1%: expected off" },
		{ "[orrery]\nlearn=\n", "learn=: expected off" },
		{ "[orrery]\nhold=1.5\n", "hold=1.5: expected off, or COST,SECONDS" },
		{ "[orrery]\nhold=0,3600\n", "hold=0,3600: expected" },
		{ "[orrery]\nhold=-1,3600\n", "hold=-1,3600: expected" },
		{ "[orrery]\nhold=nan,3600\n", "hold=nan,3600: expected" },
		{ "[orrery]\nhold=1000,3600\n", "hold=1000,3600: expected" },
		{ "[orrery]\nhold=1.5,0\n", "hold=1.5,0: expected" },
		{ "[orrery]\nhold=1.5,1h\n", "hold=1.5,1h: expected" },
		{ "[orrery]\nhold=,3600\n", "hold=,3600: expected" },
		{ "[orrery]\nhold=1.5,604801\n", "SECONDS 1..604800" },
		/* One integer rule for every integer key: digits only. */
		{ "[orrery]\ncandidates=+8\n", "candidates=+8: expected an integer 1..4096" },
		{ "[orrery]\ncandidates=-1\n", "candidates=-1: expected" },
		{ "[orrery]\nflows=-0\n", "flows=-0: expected" },
		{ "[orrery]\nflows=18446744073709551617\n", "flows=18446744073709551617: expected" },
		{ "[orrery]\nchannel_lead_ms=+100\n", "channel_lead_ms=+100: expected an integer 0..60000" },
		{ "[orrery]\nchannel_lead_ms=60001\n", "channel_lead_ms=60001: expected" },
		{ "[switch.]\nuplink=1Gbps\n", "[switch.]" },
		{ "[switch.s1]\n", "missing uplink" },
		{ "[switch.s1]\nuplink=1Gbps\nspeed=2\n", "'speed'" },
		{ "[topology]\n", "unknown group [topology]" },
		{ "mode=enforce\n", "orrery.conf" },
		/* GKeyFile would keep the last value or merge the groups
		 * silently (tests/bad-input/orrery.conf/duplicate-*). */
		{ "[orrery]\nmode=enforce\nmode=off\n",
		  "line 3: key 'mode' appears twice in [orrery]" },
		{ "[orrery]\nmode = off\n[uplinks]\nlevel0=1Gbps\n[orrery]\ndebug=1\n",
		  "line 5: group [orrery] appears twice" },
		{ "[switch.s1]\nuplink=1Gbps\n[switch.s1]\nuplink=2Gbps\n",
		  "group [switch.s1] appears twice" },
		{ "[switch.s1]\nuplink=1Gbps\n  uplink = 2Gbps\n",
		  "key 'uplink' appears twice in [switch.s1]" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		orrery_conf_t c;
		char err[ORRERY_CONF_ERR_MAX] = "";

		assert_int_equal(parse(cases[i].text, &c, err), -1);
		if (!strstr(err, cases[i].needle))
			fail_msg("case %zu: '%s' does not mention '%s'", i, err,
				 cases[i].needle);
		assert_int_equal(c.mode, ORRERY_MODE_ENFORCE);
		assert_int_equal(c.n_switches, 0);
		assert_null(c.default_profile);
	}
}

static void test_same_key_in_two_groups_is_fine(void **state)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX] = "";

	assert_int_equal(parse("[switch.a]\nuplink=1Gbps\n# uplink=3Gbps\n"
			       "[switch.b]\nuplink=2Gbps\n", &c, err), 0);
	assert_int_equal(c.n_switches, 2);
	orrery_conf_free(&c);
}

static void test_binary_and_oversized_input(void **state)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX];
	size_t big = ORRERY_CONF_FILE_MAX + 1;
	char *buf = malloc(big);

	assert_int_equal(orrery_conf_parse("[orrery]\0x", 10, "f", &c, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "NUL"));
	memset(buf, '#', big);
	assert_int_equal(orrery_conf_parse(buf, big, "f", &c, err,
					   sizeof(err)), -1);
	assert_non_null(strstr(err, "larger than"));
	free(buf);
}

static size_t count_lines(const char *s)
{
	size_t n = 1;

	for (const char *p = s; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/* Every bad key of one file in one pass, one line each, up to the cap. */
static void test_all_errors_in_one_pass(void **state)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX] = "";
	GString *many = g_string_new("[orrery]\n");

	assert_int_equal(parse("[orrery]\nmode=sideways\ncandidates=0\nnode_link=fast\n"
			       "[uplinks]\nlevel0=100Gbps\nlevel0=200Gbps\nlevelx=1Gbps\n"
			       "[bogus]\n", &c, err), -1);
	assert_int_equal(count_lines(err), 6);
	assert_non_null(strstr(err, "mode=sideways: expected"));
	assert_non_null(strstr(err, "candidates=0: expected"));
	assert_non_null(strstr(err, "node_link=fast: expected"));
	assert_non_null(strstr(err, "key 'level0' appears twice"));
	assert_non_null(strstr(err, "unknown key 'levelx'"));
	assert_non_null(strstr(err, "unknown group [bogus]"));
	/* defaults, not a half-applied file */
	assert_int_equal(c.mode, ORRERY_MODE_ENFORCE);

	for (int i = 0; i < ORRERY_CONF_MAX_ERRORS + 5; i++)
		g_string_append_printf(many, "typo%d=1\n", i);
	assert_int_equal(parse(many->str, &c, err), -1);
	assert_int_equal(count_lines(err), ORRERY_CONF_MAX_ERRORS + 1);
	assert_true(g_str_has_suffix(err, "\n(5 more errors)"));
	g_string_free(many, TRUE);
}

static void test_load_missing_and_real_file(void **state)
{
	char dir[] = "/tmp/orrery-conf-XXXXXX";
	char path[256], err[ORRERY_CONF_ERR_MAX];
	orrery_conf_t c;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/orrery.conf", dir);
	assert_int_equal(orrery_conf_load(path, &c, err, sizeof(err)), 1);
	assert_int_equal(c.mode, ORRERY_MODE_ENFORCE);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("[orrery]\nmode=off\n", f);
	fclose(f);
	assert_int_equal(orrery_conf_load(path, &c, err, sizeof(err)), 0);
	assert_int_equal(c.mode, ORRERY_MODE_OFF);
	orrery_conf_free(&c);

	/* A directory where the file should be is an error, not a crash. */
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(orrery_conf_load(path, &c, err, sizeof(err)), -1);
	rmdir(path);
	rmdir(dir);
}

static void test_conf_path_is_beside_slurm_conf(void **state)
{
	char *p = orrery_conf_path("/etc/slurm/slurm.conf");

	assert_string_equal(p, "/etc/slurm/orrery.conf");
	free(p);
	p = orrery_conf_path("/var/tmp/x/etc/slurm.conf");
	assert_string_equal(p, "/var/tmp/x/etc/orrery.conf");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_from_empty_file),
		cmocka_unit_test(test_full_file),
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_uplinks_kxrate),
		cmocka_unit_test(test_bad_files_name_the_problem),
		cmocka_unit_test(test_same_key_in_two_groups_is_fine),
		cmocka_unit_test(test_binary_and_oversized_input),
		cmocka_unit_test(test_all_errors_in_one_pass),
		cmocka_unit_test(test_load_missing_and_real_file),
		cmocka_unit_test(test_conf_path_is_beside_slurm_conf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
