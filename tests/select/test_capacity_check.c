/*
 * test_capacity_check.c - orrery.conf capacities against topology.conf
 * LinkSpeed: which switches are named, how, and how often.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "capacity_check.h"

static char lines[64][512];
static size_t nlines;

static void collect(void *ctx, const char *line)
{
	if (nlines < 64)
		snprintf(lines[nlines++], sizeof(lines[0]), "%s", line);
}

static size_t run(const char *conf, const orrery_cap_switch_t *sw, size_t n)
{
	orrery_conf_t c;
	char err[ORRERY_CONF_ERR_MAX];
	size_t r;

	nlines = 0;
	orrery_conf_init(&c);
	assert_int_equal(orrery_conf_parse(conf, strlen(conf), "test.conf", &c,
					   err, sizeof(err)), 0);
	r = orrery_capacity_check(&c, sw, n, collect, NULL);
	orrery_conf_free(&c);
	return r;
}

/* A two-level tree: root "spine", leaves leaf1..leaf3. */
static const orrery_cap_switch_t tree[] = {
	{ "leaf1", 0, 1, 400000 },	/* LinkSpeed=400 (Gb/s units) */
	{ "leaf2", 0, 1, 400000 },
	{ "leaf3", 0, 1, 0 },		/* no LinkSpeed               */
	{ "spine", 1, 0, 0 },		/* the root: no uplink        */
};

static void test_agreement_is_silent(void **state)
{
	orrery_cap_switch_t t[3];

	memcpy(t, tree, sizeof(t));
	t[2].linkspeed_mbps = 400000;
	/* [uplinks] level0 equal to every leaf's LinkSpeed. */
	assert_int_equal(run("[orrery]\nnode_link=100Gbps\n[uplinks]\nlevel0=400Gbps\n", t, 3), 0);
	assert_int_equal(nlines, 0);
	/* LinkSpeed alone, nothing in orrery.conf: fine too. */
	assert_int_equal(run("[orrery]\nnode_link=100Gbps\n", t, 3), 0);
}

static void test_disagreement_and_missing(void **state)
{
	size_t n = run("[orrery]\nnode_link=100Gbps\n[switch.leaf2]\nuplink=200Gbps\n",
		       tree, 4);

	assert_int_equal(n, 2);
	assert_int_equal(nlines, 2);
	assert_string_equal(lines[0],
		"switch leaf2: orrery.conf [switch.NAME] uplink=200Gbps disagrees with topology.conf LinkSpeed (400Gbps at linkspeed_unit); using 200Gbps");
	assert_non_null(strstr(lines[1], "switch leaf3: no uplink capacity"));
	/* The root has no uplink: never named. */
	for (size_t i = 0; i < nlines; i++)
		assert_null(strstr(lines[i], "spine"));
}

static void test_level_capacity_disagrees(void **state)
{
	assert_int_equal(run("[orrery]\nnode_link=100Gbps\n[uplinks]\nlevel0=800Gbps\n", tree, 4), 2);
	assert_non_null(strstr(lines[0], "switch leaf1: orrery.conf [uplinks] level0=800Gbps disagrees"));
	assert_non_null(strstr(lines[1], "switch leaf2: orrery.conf [uplinks] level0=800Gbps"));
}

static void test_unknown_switch_and_no_node_link(void **state)
{
	orrery_cap_switch_t t[2];

	memcpy(t, tree, sizeof(t));
	assert_int_equal(run("[switch.leaf9]\nuplink=100Gbps\n", t, 2), 2);
	assert_string_equal(lines[0], "orrery.conf [switch.leaf9]: no such switch in topology.conf; ignored");
	assert_non_null(strstr(lines[1], "no node_link"));
	assert_non_null(strstr(lines[1], "orrery-inventory"));
}

static void test_lines_are_bounded(void **state)
{
	orrery_cap_switch_t t[100];
	char names[100][16];

	for (int i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "leaf%d", i);
		t[i] = (orrery_cap_switch_t) { names[i], 0, 1, 0 };
	}
	assert_int_equal(run("[orrery]\nnode_link=100Gbps\n", t, 100), 100);
	assert_int_equal(nlines, ORRERY_CAP_LINES_MAX + 1);
	assert_string_equal(lines[ORRERY_CAP_LINES_MAX], "... and 84 more capacity findings");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agreement_is_silent),
		cmocka_unit_test(test_disagreement_and_missing),
		cmocka_unit_test(test_level_capacity_disagrees),
		cmocka_unit_test(test_unknown_switch_and_no_node_link),
		cmocka_unit_test(test_lines_are_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
