/*
 * test_topology_generate.c - fabric generator, topology.conf writer and the
 * topology C API (building by hand, uplinks, accessors), through orrery.h.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orrery.h"

static long sw(const orrery_topology_t *t, const char *name)
{
	long i = orrery_topology_switch_index(t, name);
	if (i < 0)
		fail_msg("no switch %s", name);
	return i;
}

static orrery_topology_t *gen(const orrery_fabric_t *f)
{
	orrery_topology_t *t = NULL;
	orrery_error_t err;
	if (orrery_topology_generate(f, &t, &err))
		fail_msg("%s", err.message);
	return t;
}

static void test_two_tier(void **state)
{
	(void)state;
	orrery_fabric_t f = { .tiers = 2, .nodes_per_leaf = 8, .leaves = 4,
			      .node_link_mbps = 100000, .oversub_leaf = 2.0 };
	orrery_topology_t *t = gen(&f);

	assert_int_equal(orrery_topology_switch_count(t), 5);
	assert_int_equal(orrery_topology_node_count(t), 32);
	assert_int_equal(orrery_topology_node_link(t), 100000);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "spine")), 1);
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "spine")), -1);
	for (int l = 1; l <= 4; l++) {
		char name[16];
		snprintf(name, sizeof name, "leaf%02d", l);
		assert_int_equal(orrery_topology_switch_level(t, sw(t, name)), 0);
		assert_int_equal(orrery_topology_switch_parent(t, sw(t, name)),
				 sw(t, "spine"));
		/* 8 x 100 Gb/s below, 2:1 oversubscribed */
		assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, name)), 400000);
	}
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "spine")), 0);
	assert_string_equal(orrery_topology_node_name(t, 0), "node001");
	assert_string_equal(orrery_topology_node_name(t, 31), "node032");
	assert_int_equal(orrery_topology_node_leaf(t, 7), sw(t, "leaf01"));
	assert_int_equal(orrery_topology_node_leaf(t, 8), sw(t, "leaf02"));
	orrery_topology_free(t);
}

static void test_three_tier(void **state)
{
	(void)state;
	orrery_fabric_t f = { .tiers = 3, .nodes_per_leaf = 16, .leaves = 12,
			      .leaves_per_pod = 4, .node_link_mbps = 200000,
			      .oversub_leaf = 1.0, .oversub_pod = 2.0,
			      .node_prefix = "gpu" };
	orrery_topology_t *t = gen(&f);

	assert_int_equal(orrery_topology_switch_count(t), 1 + 3 + 12);
	assert_int_equal(orrery_topology_node_count(t), 192);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "core")), 2);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "pod03")), 1);
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "leaf05")),
			 sw(t, "pod02"));
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "pod02")),
			 sw(t, "core"));
	/* leaf: 16 x 200 Gb/s non-blocking; pod: 4 leaves / 2 */
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "leaf12")), 3200000);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "pod01")), 6400000);
	assert_string_equal(orrery_topology_node_name(t, 191), "gpu192");
	assert_int_equal(orrery_topology_node_leaf(t, 16 * 4), sw(t, "leaf05"));
	orrery_topology_free(t);

	/* a fractional ratio rounds the capacity to whole Mb/s */
	orrery_fabric_t g = { .tiers = 2, .nodes_per_leaf = 8, .leaves = 2,
			      .node_link_mbps = 100000, .oversub_leaf = 3.0 };
	t = gen(&g);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "leaf01")), 266667);
	orrery_topology_free(t);
}

static void expect_gen_error(const orrery_fabric_t *f, int code, const char *msg)
{
	orrery_topology_t *t = (orrery_topology_t *)0x1;
	orrery_error_t err;
	assert_int_equal(orrery_topology_generate(f, &t, &err), code);
	assert_null(t);
	assert_string_equal(err.message, msg);
}

static void test_generate_errors(void **state)
{
	(void)state;
	orrery_fabric_t ok = { .tiers = 2, .nodes_per_leaf = 8, .leaves = 4,
			       .leaves_per_pod = 2, .node_link_mbps = 100000,
			       .oversub_leaf = 1.0, .oversub_pod = 1.0 };
	orrery_fabric_t f;

	f = ok; f.tiers = 4;
	expect_gen_error(&f, ORRERY_ERANGE, "tiers=4 not supported (accepted: 2 or 3)");
	f = ok; f.oversub_leaf = 0.5;
	expect_gen_error(&f, ORRERY_ERANGE,
			 "leaf oversubscription 0.5 out of range (accepted: 1 to 1000; 1 = non-blocking)");
	f = ok; f.tiers = 3; f.leaves_per_pod = 3;
	expect_gen_error(&f, ORRERY_ERANGE, "leaves-per-pod=3 must be >= 1 and divide leaves=4");
	f = ok; f.nodes_per_leaf = 0;
	expect_gen_error(&f, ORRERY_ERANGE,
			 "nodes-per-leaf=0 out of range (accepted: 1 to 100000)");
	f = ok; f.leaves = 1000; f.nodes_per_leaf = 101;
	expect_gen_error(&f, ORRERY_ELIMIT,
			 "1000 leaves x 101 nodes = 101000 nodes, more than the limit of 100000");
	f = ok; f.node_link_mbps = 0;
	expect_gen_error(&f, ORRERY_ERANGE,
			 "node link 0 Mb/s out of range (accepted: 1 Mb/s to 10 Tb/s)");
	f = ok; f.node_prefix = "n/../";
	expect_gen_error(&f, ORRERY_EINVAL,
			 "node prefix 'n/../' invalid (accepted: up to 64 letters, digits, '.', '_', '-')");
}

static char *write_text(const orrery_topology_t *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	orrery_error_t err;
	assert_int_equal(orrery_topology_write_slurm(t, f, &err), ORRERY_OK);
	fclose(f);
	return buf;
}

static void test_writer_text(void **state)
{
	(void)state;
	orrery_fabric_t f = { .tiers = 2, .nodes_per_leaf = 8, .leaves = 4,
			      .node_link_mbps = 100000, .oversub_leaf = 2.0 };
	orrery_topology_t *t = gen(&f);
	char *s = write_text(t);

	assert_non_null(strstr(s, "# generated: tiers=2 leaves=4 nodes-per-leaf=8 "
				  "node-link=100000 Mb/s oversub=2\n"));
	assert_non_null(strstr(s, "\nSwitchName=leaf01 Nodes=node[001-008] LinkSpeed=400\n"));
	assert_non_null(strstr(s, "\nSwitchName=leaf04 Nodes=node[025-032] LinkSpeed=400\n"));
	assert_non_null(strstr(s, "\nSwitchName=spine Switches=leaf[01-04]\n"));
	/* leaves come before the switch listing them */
	assert_true(strstr(s, "SwitchName=leaf04") < strstr(s, "SwitchName=spine"));
	free(s);
	orrery_topology_free(t);

	/* an uplink that is not whole Gb/s is rounded and says so */
	orrery_fabric_t g = { .tiers = 2, .nodes_per_leaf = 8, .leaves = 2,
			      .node_link_mbps = 100000, .oversub_leaf = 3.0 };
	t = gen(&g);
	s = write_text(t);
	assert_non_null(strstr(s, "# leaf01: uplink 266667 Mb/s, rounded to 267 Gb/s\n"
				  "SwitchName=leaf01 Nodes=node[001-008] LinkSpeed=267\n"));
	free(s);
	orrery_topology_free(t);
}

static void test_build_by_hand(void **state)
{
	(void)state;
	orrery_topology_t *t = orrery_topology_new();
	orrery_error_t err;

	/* parents may be named before they exist */
	assert_int_equal(orrery_topology_add_switch(t, "l1", "top", &err), 0);
	assert_int_equal(orrery_topology_add_switch(t, "l2", "top", &err), 0);
	assert_int_equal(orrery_topology_add_switch(t, "top", NULL, &err), 0);
	assert_int_equal(orrery_topology_add_switch(t, "l1", "top", &err), ORRERY_EINVAL);
	assert_string_equal(err.message, "duplicate switch 'l1'");
	assert_int_equal(orrery_topology_add_switch(t, "bad name", "top", &err),
			 ORRERY_EINVAL);
	assert_int_equal(orrery_topology_add_node(t, "a1", "l1", &err), 0);
	assert_int_equal(orrery_topology_add_node(t, "a2", "l2", &err), 0);
	assert_int_equal(orrery_topology_add_node(t, "a1", "l2", &err), ORRERY_EINVAL);
	/* levels exist only after finalize */
	assert_int_equal(orrery_topology_set_level_uplink(t, 0, 1, 1, &err),
			 ORRERY_ESTATE);
	assert_int_equal(orrery_topology_switch_level(t, 0), -1);
	assert_int_equal(orrery_topology_finalize(t, &err), 0);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "top")), 1);
	assert_int_equal(orrery_topology_add_node(t, "a3", "l2", &err), ORRERY_ESTATE);

	/* uplinks: per switch, per level; the root has none */
	assert_int_equal(orrery_topology_set_level_uplink(t, 0, 50000, 40000, &err), 0);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "l1")), 40000);
	assert_int_equal(orrery_topology_set_uplink(t, "l2", 25000, 25000, &err), 0);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "l2")), 25000);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "l1")), 40000);
	assert_int_equal(orrery_topology_set_uplink(t, "top", 1, 1, &err), ORRERY_EINVAL);
	assert_string_equal(err.message, "switch 'top' is the root: it has no uplink");
	assert_int_equal(orrery_topology_set_uplink(t, "l9", 1, 1, &err), ORRERY_ENOENT);
	assert_int_equal(orrery_topology_set_level_uplink(t, 1, 1, 1, &err), ORRERY_ERANGE);
	assert_string_equal(err.message,
			    "no uplinks at level 1 (levels with uplinks: 0 to 0)");
	orrery_topology_set_node_link(t, 200000);
	assert_int_equal(orrery_topology_node_link(t), 200000);

	/* out-of-range accessors are harmless */
	assert_null(orrery_topology_node_name(t, 2));
	assert_null(orrery_topology_switch_name(t, 3));
	assert_int_equal(orrery_topology_switch_parent(t, 3), -1);
	assert_int_equal(orrery_topology_node_leaf(t, 2), -1);
	assert_int_equal(orrery_topology_uplink_mbps(t, 99), 0);
	assert_int_equal(orrery_topology_node_index(t, NULL), -1);
	orrery_topology_free(t);
	orrery_topology_free(NULL);
}

static void test_finalize_errors(void **state)
{
	(void)state;
	orrery_topology_t *t = orrery_topology_new();
	orrery_error_t err;

	orrery_topology_add_switch(t, "a", NULL, &err);
	orrery_topology_add_switch(t, "b", NULL, &err);
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_EINVAL);
	assert_string_equal(err.message,
			    "topology has more than one root switch ('a' and 'b')");
	orrery_topology_free(t);

	t = orrery_topology_new();
	orrery_topology_add_switch(t, "top", NULL, &err);
	orrery_topology_add_switch(t, "l", "nowhere", &err);
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_EINVAL);
	assert_string_equal(err.message, "switch 'l' names unknown parent 'nowhere'");
	orrery_topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_tier),
		cmocka_unit_test(test_three_tier),
		cmocka_unit_test(test_generate_errors),
		cmocka_unit_test(test_writer_text),
		cmocka_unit_test(test_build_by_hand),
		cmocka_unit_test(test_finalize_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
