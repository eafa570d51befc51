/*
 * test_topology_read.c - topology.conf reader and writer, through orrery.h,
 * with libslurm's hostlist expansion (contrib/query/hostlist_slurm.c), the
 * way orrery-query reads files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orrery.h"
#include "contrib/query/hostlist_slurm.h"

#define DATA TOPO_DATA_DIR

static orrery_topology_t *read_ok(const char *path, uint64_t unit)
{
	orrery_topology_t *t = NULL;
	orrery_error_t err;
	int rc = orrery_topology_read_slurm(path, hostlist_slurm_expand, NULL,
					    unit, &t, &err);
	if (rc)
		fail_msg("%s: %s", path, err.message);
	assert_non_null(t);
	return t;
}

static long sw(const orrery_topology_t *t, const char *name)
{
	long i = orrery_topology_switch_index(t, name);
	assert_true(i >= 0);
	return i;
}

static void test_three_tier(void **state)
{
	(void)state;
	orrery_topology_t *t = read_ok(DATA "/three-tier.conf", 1000);

	assert_int_equal(orrery_topology_switch_count(t), 7);
	assert_int_equal(orrery_topology_node_count(t), 16);
	/* levels: leaf 0, pod 1, core 2 */
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "core")), 2);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "pod2")), 1);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "leaf4")), 0);
	/* parents from Switches= lists */
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "core")), -1);
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "pod1")), sw(t, "core"));
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "leaf2")), sw(t, "pod1"));
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "leaf3")), sw(t, "pod2"));
	/* LinkSpeed x 1000 Mb/s; the continuation line carried pod1's */
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "pod1")), 400000);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "pod2")), 400000);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "leaf1")), 200000);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "leaf4")), 0);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "core")), 0);
	/* node order is file order, hostlists expanded in place */
	assert_string_equal(orrery_topology_node_name(t, 0), "n01");
	assert_string_equal(orrery_topology_node_name(t, 13), "n14");
	assert_string_equal(orrery_topology_node_name(t, 14), "n16");
	assert_string_equal(orrery_topology_node_name(t, 15), "n15");
	assert_int_equal(orrery_topology_node_index(t, "n15"), 15);
	assert_int_equal(orrery_topology_node_index(t, "n17"), -1);
	assert_int_equal(orrery_topology_node_leaf(t, 4), sw(t, "leaf2"));
	assert_int_equal(orrery_topology_node_leaf(t, 15), sw(t, "leaf4"));
	orrery_topology_free(t);

	/* unit 0 ignores LinkSpeed, another unit scales it */
	t = read_ok(DATA "/three-tier.conf", 0);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "pod1")), 0);
	orrery_topology_free(t);
	t = read_ok(DATA "/three-tier.conf", 100);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "leaf1")), 20000);
	orrery_topology_free(t);
}

struct bad_case {
	const char *file;
	int code;
	const char *message;  /* after "<path>" */
};

static const struct bad_case bad_cases[] = {
	{ "unknown-key.conf", ORRERY_EINVAL,
	  ":2: unknown key 'Bandwidth' (accepted: SwitchName, Switches, Nodes, LinkSpeed)" },
	{ "duplicate-switch.conf", ORRERY_EINVAL,
	  ":4: duplicate switch 's1' (first defined at line 2)" },
	{ "node-two-switches.conf", ORRERY_EINVAL,
	  ":3: node 'n4' is already under switch 's1' (line 2)" },
	{ "unknown-child.conf", ORRERY_EINVAL,
	  ":1: switch 's0' lists unknown switch 's3' in Switches=" },
	{ "cycle.conf", ORRERY_EINVAL,
	  ":2: switch 'a' is on a cycle of Switches= (a -> b -> a): the tree has no root" },
	{ "two-roots.conf", ORRERY_EINVAL,
	  ":2: switch 's2' is a second root (no Switches= lists it; 's1' at line 1 is a root too): orrery needs one tree" },
	{ "bad-linkspeed.conf", ORRERY_ERANGE,
	  ":2: LinkSpeed=100G: not a positive integer" },
	{ "nodes-and-switches.conf", ORRERY_EINVAL,
	  ":1: switch 's0' has both Switches= and Nodes=; nodes must hang from leaf switches" },
	{ "bad-hostlist.conf", ORRERY_EINVAL,
	  ":2: Nodes=n[1-4: not a valid hostlist expression" },
	{ "no-switchname.conf", ORRERY_EINVAL,
	  ":2: line does not start a switch (no SwitchName=)" },
	{ "listed-twice.conf", ORRERY_EINVAL,
	  ":2: switch 's2' is listed under both 's0' (line 1) and 's1'" },
	{ "empty.conf", ORRERY_EINVAL,
	  ": no switches (no SwitchName= line)" },
	{ "not-key-value.conf", ORRERY_EINVAL,
	  ":1: 'fast' is not KEY=VALUE (keys: SwitchName, Switches, Nodes, LinkSpeed)" },
};

static void expect_error(const char *path, int code, const char *suffix)
{
	orrery_topology_t *t = (orrery_topology_t *)0x1;
	orrery_error_t err;
	char want[ORRERY_ERRMSG_MAX];
	int rc = orrery_topology_read_slurm(path, hostlist_slurm_expand, NULL,
					    1000, &t, &err);

	snprintf(want, sizeof want, "%s%s", path, suffix);
	assert_null(t);
	assert_int_equal(rc, code);
	assert_int_equal(err.code, code);
	assert_string_equal(err.message, want);
}

static void test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/bad/%s", DATA, bad_cases[i].file);
		expect_error(path, bad_cases[i].code, bad_cases[i].message);
	}
	expect_error(DATA "/bad/no-such-file.conf", ORRERY_ENOENT,
		     ": cannot open: No such file or directory");
}

static char *tmpfile_path(void)
{
	char *p = strdup("/tmp/orrery-topo-XXXXXX");
	int fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	return p;
}

/* orrery_topology_parse_slurm: the reader's parser from a buffer with no
 * NUL after it; the same topology as the file, errors named by `name`. */
static void test_parse_buffer(void **state)
{
	static const char conf[] =
		"SwitchName=top Switches=l[1-2]\n"
		"SwitchName=l1 Nodes=n[1-2] LinkSpeed=100\n"
		"SwitchName=l2 Nodes=n3 LinkSpeed=50";
	size_t len = sizeof(conf) - 1;
	char *buf = malloc(len);
	orrery_topology_t *t = (orrery_topology_t *)0x1;
	orrery_error_t err;

	(void)state;
	assert_non_null(buf);
	memcpy(buf, conf, len);  /* ends in "LinkSpeed=50", no NUL, no newline */
	if (orrery_topology_parse_slurm(buf, len, "mem.conf", hostlist_slurm_expand,
					NULL, 1000, &t, &err))
		fail_msg("%s", err.message);
	assert_int_equal(orrery_topology_switch_count(t), 3);
	assert_int_equal(orrery_topology_node_count(t), 3);
	assert_int_equal(orrery_topology_node_leaf(t, 2), sw(t, "l2"));
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "l2")), 50000);
	orrery_topology_free(t);

	/* cut inside "LinkSpeed=50": "LinkSpeed=5" */
	assert_int_equal(orrery_topology_parse_slurm(buf, len - 1, "mem.conf",
						     hostlist_slurm_expand, NULL, 1000,
						     &t, &err), ORRERY_OK);
	assert_int_equal(orrery_topology_uplink_mbps(t, sw(t, "l2")), 5000);
	orrery_topology_free(t);

	/* errors name the buffer as the reader names the file */
	t = (orrery_topology_t *)0x1;
	assert_int_equal(orrery_topology_parse_slurm("SwitchName=a fast", 17, "mem.conf",
						     NULL, NULL, 1000, &t, &err),
			 ORRERY_EINVAL);
	assert_null(t);
	assert_string_equal(err.message, "mem.conf:1: 'fast' is not KEY=VALUE "
			    "(keys: SwitchName, Switches, Nodes, LinkSpeed)");
	assert_int_equal(orrery_topology_parse_slurm("", 0, NULL, NULL, NULL, 0, &t, &err),
			 ORRERY_EINVAL);
	assert_string_equal(err.message, "topology.conf: no switches (no SwitchName= line)");
	assert_int_equal(orrery_topology_parse_slurm("a\0b", 3, NULL, NULL, NULL, 0, &t,
						     &err), ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "NUL byte"));
	assert_int_equal(orrery_topology_parse_slurm(NULL, 4, NULL, NULL, NULL, 0, &t, &err),
			 ORRERY_EINVAL);
	assert_null(t);
	free(buf);
}

static void test_limits(void **state)
{
	(void)state;
	char *p = tmpfile_path();
	FILE *f = fopen(p, "w");

	/* 16 MiB + 1 byte of comment: refused before parsing */
	assert_non_null(f);
	for (int i = 0; i < 16 * 1024; i++) {
		char kb[1024];
		memset(kb, '#', sizeof kb - 1);
		kb[sizeof kb - 1] = '\n';
		fwrite(kb, 1, sizeof kb, f);
	}
	fputc('\n', f);
	fclose(f);
	expect_error(p, ORRERY_ELIMIT, ": larger than 16 MiB");

	f = fopen(p, "w");
	fprintf(f, "SwitchName=s0 Switches=s1\n"
		   "SwitchName=s1 Nodes=n[1-60000],m[1-40001]\n");
	fclose(f);
	expect_error(p, ORRERY_ELIMIT,
		     ":2: Nodes=n[1-60000],m[1-40001]: more than 100000 nodes in the file (the limit)");

	/* exactly at the limit is fine */
	f = fopen(p, "w");
	fprintf(f, "SwitchName=s0 Switches=s[1-2]\n"
		   "SwitchName=s1 Nodes=n[1-50000]\n"
		   "SwitchName=s2 Nodes=m[1-50000]\n");
	fclose(f);
	orrery_topology_t *t = read_ok(p, 1000);
	assert_int_equal(orrery_topology_node_count(t), 100000);
	orrery_topology_free(t);
	unlink(p);
	free(p);
}

/* CPU seconds of this process (load on the machine does not count). */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A chain of 10,000 switches (the limit), each the parent of the next:
 * read in linear time (the cycle check and the levels walked up from every
 * switch, 2.6 s here; 0.1 s now: the bound of 2 CPU-s is for sanitizer
 * builds), with the right levels; the same ring is one cycle, named by its
 * first switch, walking up its parents. */
static void test_deep_chain(void **state)
{
	(void)state;
	char *p = tmpfile_path();
	FILE *f = fopen(p, "w");
	const int n = 10000;
	double t0;

	assert_non_null(f);
	for (int i = 0; i < n - 1; i++)
		fprintf(f, "SwitchName=s%d Switches=s%d\n", i, i + 1);
	fprintf(f, "SwitchName=s%d Nodes=n1\n", n - 1);
	fclose(f);
	t0 = cpu_seconds();
	orrery_topology_t *t = read_ok(p, 0);
	assert_true(cpu_seconds() - t0 < 2.0);
	assert_int_equal(orrery_topology_switch_count(t), n);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "s0")), n - 1);
	assert_int_equal(orrery_topology_switch_level(t, sw(t, "s5000")), n - 1 - 5000);
	assert_int_equal(orrery_topology_switch_parent(t, sw(t, "s9999")), sw(t, "s9998"));
	assert_int_equal(orrery_topology_node_leaf(t, 0), sw(t, "s9999"));
	orrery_topology_free(t);

	/* s0 is the root of a leaf; s1 .. s9999 form a ring */
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "SwitchName=s0 Nodes=n1\n");
	for (int i = 1; i < n; i++)
		fprintf(f, "SwitchName=s%d Switches=s%d\n", i, i == n - 1 ? 1 : i + 1);
	fclose(f);
	{
		orrery_topology_t *bad = (orrery_topology_t *)0x1;
		orrery_error_t err;
		char want[128];

		t0 = cpu_seconds();
		assert_int_equal(orrery_topology_read_slurm(p, NULL, NULL, 0, &bad, &err),
				 ORRERY_EINVAL);
		assert_true(cpu_seconds() - t0 < 2.0);
		assert_null(bad);
		snprintf(want, sizeof want, "%s:2: switch 's1' is on a cycle of Switches= "
			 "(s1 -> s9999 -> s9998 -> ", p);
		if (strncmp(err.message, want, strlen(want)) != 0)
			fail_msg("got '%s'", err.message);
		assert_non_null(strstr(err.message, "): the tree has no root"));
	}
	unlink(p);
	free(p);
}

/* write -> read gives the same tree, names, order and capacities */
static void assert_same(const orrery_topology_t *a, const orrery_topology_t *b)
{
	assert_int_equal(orrery_topology_switch_count(a), orrery_topology_switch_count(b));
	assert_int_equal(orrery_topology_node_count(a), orrery_topology_node_count(b));
	for (size_t i = 0; i < orrery_topology_switch_count(a); i++) {
		const char *name = orrery_topology_switch_name(a, i);
		long j = sw(b, name);
		long pa = orrery_topology_switch_parent(a, i);
		long pb = orrery_topology_switch_parent(b, (size_t)j);
		assert_int_equal(orrery_topology_switch_level(a, i),
				 orrery_topology_switch_level(b, (size_t)j));
		assert_int_equal(pa < 0, pb < 0);
		if (pa >= 0)
			assert_string_equal(orrery_topology_switch_name(a, (size_t)pa),
					    orrery_topology_switch_name(b, (size_t)pb));
		assert_int_equal(orrery_topology_uplink_mbps(a, i),
				 orrery_topology_uplink_mbps(b, (size_t)j));
	}
	for (size_t i = 0; i < orrery_topology_node_count(a); i++) {
		assert_string_equal(orrery_topology_node_name(a, i),
				    orrery_topology_node_name(b, i));
		assert_string_equal(
			orrery_topology_switch_name(a, (size_t)orrery_topology_node_leaf(a, i)),
			orrery_topology_switch_name(b, (size_t)orrery_topology_node_leaf(b, i)));
	}
}

static orrery_topology_t *round_trip(const orrery_topology_t *t)
{
	char *p = tmpfile_path();
	FILE *f = fopen(p, "w");
	orrery_error_t err;

	assert_int_equal(orrery_topology_write_slurm(t, f, &err), ORRERY_OK);
	fclose(f);
	orrery_topology_t *back = read_ok(p, 1000);
	unlink(p);
	free(p);
	return back;
}

static void test_round_trip(void **state)
{
	(void)state;
	orrery_error_t err;
	orrery_fabric_t fabrics[] = {
		{ 2, 8, 4, 0, 100000, 2.0, 1.0, NULL },
		{ 3, 16, 12, 4, 200000, 1.0, 2.0, "gpu" },
		{ 2, 1, 1, 0, 25000, 1.0, 1.0, "x" },
		/* 1200 nodes: names cross from 3 to 4 digits of padding */
		{ 3, 30, 40, 8, 400000, 3.0, 1.0, "n" },
	};
	for (size_t i = 0; i < sizeof fabrics / sizeof fabrics[0]; i++) {
		orrery_topology_t *t = NULL;
		assert_int_equal(orrery_topology_generate(&fabrics[i], &t, &err), 0);
		orrery_topology_t *back = round_trip(t);
		assert_same(t, back);
		orrery_topology_free(back);
		orrery_topology_free(t);
	}
	/* a hand-written file with odd node order survives too */
	orrery_topology_t *t = read_ok(DATA "/three-tier.conf", 1000);
	orrery_topology_t *back = round_trip(t);
	assert_same(t, back);
	orrery_topology_free(back);
	orrery_topology_free(t);
}

/* A hand-built tree with irregular names: the compressor must keep order
 * and padding so the expansion gives the same names back. */
static void test_round_trip_irregular(void **state)
{
	(void)state;
	static const char *names[] = { "a9", "a10", "a11", "b007", "b008", "b010",
				       "c", "b009", "a012", "a013", "x1y", "x2y" };
	orrery_topology_t *t = orrery_topology_new();
	orrery_error_t err;

	assert_int_equal(orrery_topology_add_switch(t, "top", NULL, &err), 0);
	assert_int_equal(orrery_topology_add_switch(t, "l1", "top", &err), 0);
	assert_int_equal(orrery_topology_add_switch(t, "l2", "top", &err), 0);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_int_equal(orrery_topology_add_node(t, names[i],
							  i < 6 ? "l1" : "l2", &err), 0);
	assert_int_equal(orrery_topology_finalize(t, &err), 0);
	assert_int_equal(orrery_topology_set_uplink(t, "l1", 123000, 123000, &err), 0);
	orrery_topology_t *back = round_trip(t);
	assert_same(t, back);
	orrery_topology_free(back);
	orrery_topology_free(t);
}

/* Property: any mutation of a good file is either read into a consistent
 * tree or refused with a message that starts with the file's name. */
static void test_mutations(void **state)
{
	(void)state;
	static const char alphabet[] = "[]-,=#\\ \t\nsS0123456789nodeleafLinkSpeed";
	FILE *in = fopen(DATA "/three-tier.conf", "r");
	char base[4096];
	size_t len;
	char *p = tmpfile_path();
	unsigned seed = 12345;
	int ok = 0, refused = 0;

	assert_non_null(in);
	len = fread(base, 1, sizeof base, in);
	fclose(in);
	for (int iter = 0; iter < 400; iter++) {
		char buf[8192];
		size_t n = len;
		memcpy(buf, base, len);
		for (int k = 0; k < 1 + iter % 4; k++) {
			size_t at = (size_t)rand_r(&seed) % n;
			switch (rand_r(&seed) % 3) {
			case 0:  /* replace */
				buf[at] = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)];
				break;
			case 1:  /* delete */
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			default:  /* duplicate a stretch */
				if (n + 40 < sizeof buf) {
					memmove(buf + at + 40, buf + at, n - at);
					n += 40;
				}
			}
		}
		FILE *f = fopen(p, "w");
		fwrite(buf, 1, n, f);
		fclose(f);

		orrery_topology_t *t = NULL;
		orrery_error_t err;
		int rc = orrery_topology_read_slurm(p, hostlist_slurm_expand, NULL,
						    1000, &t, &err);
		if (rc) {
			assert_null(t);
			assert_int_equal(err.code, rc);
			assert_memory_equal(err.message, p, strlen(p));
			refused++;
			continue;
		}
		ok++;
		for (size_t i = 0; i < orrery_topology_switch_count(t); i++) {
			long par = orrery_topology_switch_parent(t, i);
			if (par >= 0)
				assert_true(orrery_topology_switch_level(t, (size_t)par) >
					    orrery_topology_switch_level(t, i));
		}
		for (size_t i = 0; i < orrery_topology_node_count(t); i++)
			assert_int_equal(orrery_topology_switch_level(
				t, (size_t)orrery_topology_node_leaf(t, i)), 0);
		orrery_topology_free(t);
	}
	/* both outcomes were exercised */
	assert_true(ok > 0);
	assert_true(refused > 0);
	unlink(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_tier),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_parse_buffer),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_deep_chain),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_round_trip_irregular),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
