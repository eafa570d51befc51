/*
 * test_counters.c - RDMA counters on recorded sysfs trees: what is read,
 * the job deltas (wrap, reset, missing counters, 4-byte words), snapshots
 * and the ORRC1: record's round trip and merge into an AdminComment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

#define TREE(name) TOP_SRCDIR "/tests/data/sysfs/" name

static const struct orc_port *port_of(const struct orc_sample *s,
				      const char *dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->p[i].dev, dev) == 0)
			return &s->p[i];
	return NULL;
}

static void test_read_recorded_tree(void **state)
{
	struct orc_sample s;
	const struct orc_port *p;
	char err[256];

	assert_int_equal(orc_read(TREE("counters-start"), &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 3);
	p = port_of(&s, "mlx5_0");
	assert_non_null(p);
	assert_int_equal(p->port, 1);
	assert_int_equal(p->have, (1u << ORC_N) - 1);
	assert_int_equal(p->v[ORC_XMIT_DATA], 10000000000ULL);
	assert_int_equal(p->v[ORC_CNP_SENT], 7);
	/* InfiniBand port: no RoCE hw_counters. */
	p = port_of(&s, "mlx5_2");
	assert_non_null(p);
	assert_int_equal(p->have, (1u << ORC_XMIT_DATA) | (1u << ORC_RCV_DATA) |
				  (1u << ORC_XMIT_WAIT));
	/* mlx5_1 has no np_cnp_sent file. */
	p = port_of(&s, "mlx5_1");
	assert_false(p->have & (1u << ORC_CNP_SENT));
}

static void test_read_bad_roots(void **state)
{
	struct orc_sample s;
	char err[256];

	assert_int_equal(orc_read("relative/path", &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "absolute"));
	assert_int_equal(orc_read(TREE("no-such-tree"), &s, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no class/"));
	/* A sysfs with network devices but no RDMA: nothing, not an error. */
	s.n = 99;
	assert_int_equal(orc_read(TREE("no-rdma"), &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
	/* RDMA ports without counter files: no port to count. */
	s.n = 99;
	assert_int_equal(orc_read(TREE("gpu4"), &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
}

static void test_delta_one(void **state)
{
	int w;

	assert_int_equal(orc_delta_one(5, 12, &w), 7);
	assert_false(w);
	/* 32-bit wrap: 2^32 - a + b. */
	assert_int_equal(orc_delta_one(UINT32_MAX - 9, 5, &w), 15);
	assert_true(w);
	/* A 64-bit counter going back was reset: what it counted since. */
	assert_int_equal(orc_delta_one(1ULL << 40, 30, &w), 30);
	assert_true(w);
	/* Property: for any a and a step below 2^32 from a 32-bit start the
	 * wrapped delta is the step. */
	for (uint64_t a = UINT32_MAX - 1000; a <= UINT32_MAX; a += 97)
		for (uint64_t step = 1; step < 5000; step += 331)
			assert_int_equal(orc_delta_one(a, (a + step) & UINT32_MAX, &w),
					 step);
}

static void test_delta_recorded(void **state)
{
	struct orc_sample a, b;
	struct orc_totals t;
	char err[256];

	assert_int_equal(orc_read(TREE("counters-start"), &a, err, sizeof(err)), 0);
	assert_int_equal(orc_read(TREE("counters-end"), &b, err, sizeof(err)), 0);
	orc_delta(&a, &b, &t);
	assert_int_equal(t.ports, 3);
	/* port_xmit_data is in 4-byte words: (250000000 + 1000 wrapped + 100) * 4 */
	assert_int_equal(t.v[ORC_XMIT_DATA], (250000000ULL + 1000 + 100) * 4);
	assert_int_equal(t.v[ORC_RCV_DATA], (100000000ULL + 2000 + 400) * 4);
	/* mlx5_2's 64-bit xmit_wait went back: reset, counts 30 since. */
	assert_int_equal(t.v[ORC_XMIT_WAIT], 900000 + 0 + 30);
	assert_int_equal(t.v[ORC_ECN_MARKED], 1000 + 5);
	assert_int_equal(t.v[ORC_CNP_HANDLED], 500 + 2);
	/* Only mlx5_0 has np_cnp_sent: counted there, not made up elsewhere. */
	assert_int_equal(t.v[ORC_CNP_SENT], 1000);
	assert_int_equal(t.have, (1u << ORC_N) - 1);
	assert_int_equal(t.wrapped, 2);
}

static void test_delta_missing_everywhere(void **state)
{
	struct orc_sample a = { 0 }, b = { 0 };
	struct orc_totals t;
	char rec[ORC_RECORD_MAX];

	a.n = b.n = 1;
	strcpy(a.p[0].dev, "mlx5_0");
	strcpy(b.p[0].dev, "mlx5_0");
	a.p[0].port = b.p[0].port = 1;
	a.p[0].have = (1u << ORC_XMIT_DATA) | (1u << ORC_ECN_MARKED);
	b.p[0].have = 1u << ORC_XMIT_DATA;	/* ECN file gone at the end */
	a.p[0].v[ORC_XMIT_DATA] = 1;
	b.p[0].v[ORC_XMIT_DATA] = 3;
	orc_delta(&a, &b, &t);
	assert_int_equal(t.have, 1u << ORC_XMIT_DATA);
	assert_int_equal(t.v[ORC_XMIT_DATA], 8);
	assert_int_equal(orc_record_format("n1", &t, rec, sizeof(rec)), 0);
	assert_string_equal(rec, "ORRC1:node=n1,ports=1,tx_bytes=8,wrapped=0");
	/* A port that appeared during the job has no base: not counted. */
	strcpy(b.p[0].dev, "mlx5_9");
	orc_delta(&a, &b, &t);
	assert_int_equal(t.ports, 0);
	assert_int_equal(t.have, 0);
}

static void test_snapshot_round_trip(void **state)
{
	struct orc_sample a, b;
	char err[256];
	FILE *f = tmpfile();

	assert_int_equal(orc_read(TREE("counters-end"), &a, err, sizeof(err)), 0);
	assert_int_equal(orc_snapshot_write(f, &a), 0);
	rewind(f);
	assert_int_equal(orc_snapshot_read(f, &b, err, sizeof(err)), 0);
	fclose(f);
	assert_int_equal(b.n, a.n);
	for (size_t i = 0; i < a.n; i++) {
		const struct orc_port *p = port_of(&b, a.p[i].dev);

		assert_non_null(p);
		assert_int_equal(p->have, a.p[i].have);
		assert_memory_equal(p->v, a.p[i].v, sizeof(p->v));
	}
}

static void test_snapshot_rejects(void **state)
{
	static const char *bad[] = {
		"mlx5_0 1 port_xmit_data -5\n",
		"mlx5_0 1 port_xmit_data 5 extra\n",
		"../etc 1 port_xmit_data 5\n",
		"mlx5_0 0 port_xmit_data 5\n",
		"mlx5_0 1 no_such_counter 5\n",
		"mlx5_0 1 port_xmit_data 123456789012345678901\n",
	};
	struct orc_sample s;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = tmpfile();

		fputs(bad[i], f);
		rewind(f);
		assert_int_equal(orc_snapshot_read(f, &s, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "line 1"));
		fclose(f);
	}
}

static void test_record_round_trip_and_sum(void **state)
{
	struct orc_totals t = { 0 }, u, sum;
	char rec[ORC_RECORD_MAX], node[64];
	char *c1, *c2, *c3;

	t.have = (1u << ORC_XMIT_DATA) | (1u << ORC_ECN_MARKED);
	t.v[ORC_XMIT_DATA] = 4000;
	t.v[ORC_ECN_MARKED] = 12;
	t.ports = 2;
	t.wrapped = 1;
	assert_int_equal(orc_record_format("node01", &t, rec, sizeof(rec)), 0);
	assert_int_equal(orc_record_parse(rec, &u, node, sizeof(node)), 1);
	assert_string_equal(node, "node01");
	assert_int_equal(u.have, t.have);
	assert_int_equal(u.v[ORC_XMIT_DATA], 4000);
	assert_int_equal(u.v[ORC_ECN_MARKED], 12);
	assert_int_equal(u.ports, 2);
	assert_int_equal(u.wrapped, 1);
	assert_int_equal(orc_record_format("bad node", &t, rec, sizeof(rec)), -1);
	assert_int_equal(orc_record_format("node01", &t, rec, 20), -1);

	/* Merge keeps other tools' tokens and ORR1:, replaces only the same
	 * node's record, so a retried epilog does not count twice. */
	c1 = orc_comment_merge("JS1:abc ORR1:period_us=1", "n1",
			       "ORRC1:node=n1,ports=1,tx_bytes=100,wrapped=0");
	assert_string_equal(c1, "JS1:abc ORR1:period_us=1 ORRC1:node=n1,ports=1,tx_bytes=100,wrapped=0");
	c2 = orc_comment_merge(c1, "n10", "ORRC1:node=n10,ports=1,tx_bytes=5,ecn_marked=3,wrapped=0");
	c3 = orc_comment_merge(c2, "n1", "ORRC1:node=n1,ports=1,tx_bytes=200,wrapped=0");
	assert_string_equal(c3, "JS1:abc ORR1:period_us=1 ORRC1:node=n10,ports=1,tx_bytes=5,ecn_marked=3,wrapped=0 ORRC1:node=n1,ports=1,tx_bytes=200,wrapped=0");
	assert_int_equal(orc_comment_sum(c3, &sum), 2);
	assert_int_equal(sum.v[ORC_XMIT_DATA], 205);
	assert_int_equal(sum.v[ORC_ECN_MARKED], 3);
	assert_int_equal(sum.have, (1u << ORC_XMIT_DATA) | (1u << ORC_ECN_MARKED));
	assert_int_equal(sum.ports, 2);
	free(c1);
	free(c2);
	free(c3);

	assert_int_equal(orc_comment_sum("JS1:x ORR1:y", &sum), 0);
	assert_int_equal(orc_comment_sum(NULL, &sum), 0);
	assert_int_equal(orc_comment_sum("ORRC1:node=a,tx_bytes=1 ORRC1:tx_bytes=x", &sum), -1);
	assert_int_equal(sum.nodes, 1);	/* the good one is still summed */
	assert_int_equal(orc_comment_sum("ORRC1:node=a,tx_bytes=-1", &sum), -1);
	assert_int_equal(orc_comment_sum("ORRC1:node=../x,tx_bytes=1", &sum), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_recorded_tree),
		cmocka_unit_test(test_read_bad_roots),
		cmocka_unit_test(test_delta_one),
		cmocka_unit_test(test_delta_recorded),
		cmocka_unit_test(test_delta_missing_everywhere),
		cmocka_unit_test(test_snapshot_round_trip),
		cmocka_unit_test(test_snapshot_rejects),
		cmocka_unit_test(test_record_round_trip_and_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
