/*
 * test_gate_stats.c - the gate's statistics per job (gate_stats.h): the
 * runtime's statistics files summed per node, the ORRS1: record, its sum
 * over an AdminComment, and the merge that keeps every other record.
 * The files are untrusted input (the epilog reads what the job wrote).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_stats.h"

/* What the runtime writes (contrib/runtime/runtime.c, write_stats). */
#define FILE_GATED \
	"# orrery-runtime stats 1\nhost=n1\npid=42\nrank=0\nactive=1\n" \
	"period_us=100000\nslot_base_us=5000\nphases=100\non_slot=90\nlate=6\n" \
	"missed=4\npassthrough=0\ntotal_wait_us=1500000\nmax_wait_us=60000\n" \
	"total_late_us=0\ndisabled=0\nrecorded=0\nrecord_dropped=0\nmode=grid\n" \
	"reanchored=1\nrearmed=2\ndisables=2\nperiod_now_us=100000\n" \
	"measured_us=101000\nchannel=none\nchannel_gen=0\nupdates_received=0\n" \
	"updates_applied=0\nlate_switches=0\nlast_apply_us=0\nlast_pub_us=0\n" \
	"bursts_counted=on\nstalls_passed=0\nshort_periods=0\nrelocked=3\n" \
	"min_work_us=101500\nrange_us=2400\n"
#define FILE_OFF \
	"# orrery-runtime stats 1\nhost=n1\npid=43\nrank=1\nactive=1\n" \
	"phases=50\non_slot=10\nmissed=30\ntotal_wait_us=200\nmax_wait_us=90000\n" \
	"mode=off\nrearmed=0\nmin_work_us=99000\nrange_us=7300\n"
#define FILE_NOOP \
	"# orrery-runtime stats 1\nhost=n1\npid=44\nrank=-1\nactive=0\n" \
	"reason=ORRERY_GATE=off\nphases=0\n"

static void files_sum_per_node(void **state)
{
	struct ogs_totals t;
	char err[128];

	memset(&t, 0, sizeof(t));
	assert_int_equal(ogs_stats_add(FILE_GATED, &t, err, sizeof(err)), 0);
	assert_int_equal(ogs_stats_add(FILE_OFF, &t, err, sizeof(err)), 0);
	assert_int_equal(ogs_stats_add(FILE_NOOP, &t, err, sizeof(err)), 0);
	assert_int_equal(t.tasks, 3);
	assert_int_equal(t.gated, 2);
	assert_int_equal(t.off, 1);		/* the gate that ended off */
	assert_int_equal(t.phases, 150);
	assert_int_equal(t.on_slot, 100);
	assert_int_equal(t.late, 6);
	assert_int_equal(t.missed, 34);
	assert_int_equal(t.wait_us, 1500200);
	assert_int_equal(t.max_wait_us, 90000);	/* a maximum, not a sum */
	assert_int_equal(t.reanchored, 1);
	assert_int_equal(t.rearmed, 2);
	assert_int_equal(t.disables, 2);
	assert_int_equal(t.relocked, 3);
	/* the job's iteration: the slowest task's, not a sum */
	assert_int_equal(t.iter_us, 101500);
	/* how much it varies: the most irregular task's */
	assert_int_equal(t.range_us, 7300);
}

static void bad_files_are_refused_whole(void **state)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "", "not an orrery-runtime statistics file" },
		{ "# orrery-runtime stats 2\nactive=1\n", "not an orrery-runtime statistics file" },
		{ "active=1\nphases=3\n", "not an orrery-runtime statistics file" },
		{ "# orrery-runtime stats 1\nactive=1\nphases=-5\n", "phases=-5 is not a count" },
		{ "# orrery-runtime stats 1\nactive=1\nphases=1e9\n", "phases=1e9 is not a count" },
		{ "# orrery-runtime stats 1\nactive=1\nmissed=123456789012345678901\n", "is not a count" },
		{ "# orrery-runtime stats 1\nactive=2\n", "active=2 is neither 0 nor 1" },
		{ "# orrery-runtime stats 1\nphases=3\n", "no active= line" },
		{ "# orrery-runtime stats 1\nactive=1\ngarbage\n", "is not key=value" },
	};
	struct ogs_totals t;
	char err[128];

	memset(&t, 0, sizeof(t));
	assert_int_equal(ogs_stats_add(FILE_GATED, &t, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(ogs_stats_add(bad[i].text, &t, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].why))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].why);
	}
	/* nothing of a refused file was added */
	assert_int_equal(t.tasks, 1);
	assert_int_equal(t.phases, 100);
	/* a long free-text value (host=) is no reason to refuse */
	{
		char text[512];

		snprintf(text, sizeof(text), "# orrery-runtime stats 1\nhost=%0200d\nactive=1\nphases=7\n", 0);
		assert_int_equal(ogs_stats_add(text, &t, err, sizeof(err)), 0);
		assert_int_equal(t.phases, 107);
	}
}

static void record_round_trip(void **state)
{
	struct ogs_totals t, u;
	char rec[OGS_RECORD_MAX], node[64], err[64];

	memset(&t, 0, sizeof(t));
	assert_int_equal(ogs_stats_add(FILE_GATED, &t, err, sizeof(err)), 0);
	t.bad = 2;
	assert_int_equal(ogs_record_format("gpu-01", &t, rec, sizeof(rec)), 0);
	assert_string_equal(rec, "ORRS1:node=gpu-01,tasks=1,gated=1,off=0,bad=2,"
			    "phases=100,on_slot=90,late=6,missed=4,passthrough=0,"
			    "wait_us=1500000,max_wait_us=60000,reanchored=1,rearmed=2,"
			    "disables=2,relocked=3,iter_us=101500,range_us=2400");
	assert_int_equal(ogs_record_parse(rec, &u, node, sizeof(node)), 1);
	assert_string_equal(node, "gpu-01");
	assert_int_equal(u.nodes, 1);
	u.nodes = 0;
	assert_memory_equal(&t, &u, sizeof(t));
	/* every value at its largest still fits one record */
	memset(&t, 0xff, sizeof(t));
	assert_int_equal(ogs_record_format("n123456789012345678901234567890123456789012345678901234567890ab",
					   &t, rec, sizeof(rec)), 0);
	/* a node name that could not be a path or a token */
	assert_int_equal(ogs_record_format("a b", &t, rec, sizeof(rec)), -1);
	assert_int_equal(ogs_record_format("../x", &t, rec, sizeof(rec)), -1);
	assert_int_equal(ogs_record_parse("ORRS1:tasks=1", &u, node, sizeof(node)), -1);
	assert_int_equal(ogs_record_parse("ORRS1:node=a,tasks=x", &u, node, sizeof(node)), -1);
	assert_int_equal(ogs_record_parse("ORRC1:node=a,ports=1", &u, node, sizeof(node)), -1);
	/* a later version's key is skipped */
	assert_int_equal(ogs_record_parse("ORRS1:node=a,tasks=2,future=9", &u, node, sizeof(node)), 1);
	assert_int_equal(u.tasks, 2);
}

static void comment_sum_and_merge(void **state)
{
	const char *comment =
		"ORR1:v=1 ORRC1:node=n1,ports=1,tx_bytes=5,wrapped=0 "
		"ORRS1:node=n1,tasks=4,gated=4,off=0,bad=0,phases=40,on_slot=38,missed=1,wait_us=100,max_wait_us=70 "
		"site=x ORRS1:node=n2,tasks=4,gated=3,off=1,bad=1,phases=30,on_slot=20,missed=5,wait_us=50,max_wait_us=90,rearmed=1,iter_us=212000,range_us=5000";
	struct ogs_totals t;
	char *m;

	assert_int_equal(ogs_comment_sum(comment, &t), 2);
	assert_int_equal(t.nodes, 2);
	assert_int_equal(t.tasks, 8);
	assert_int_equal(t.gated, 7);
	assert_int_equal(t.off, 1);
	assert_int_equal(t.bad, 1);
	assert_int_equal(t.phases, 70);
	assert_int_equal(t.on_slot, 58);
	assert_int_equal(t.missed, 6);
	assert_int_equal(t.wait_us, 150);
	assert_int_equal(t.max_wait_us, 90);
	assert_int_equal(t.rearmed, 1);
	assert_int_equal(t.iter_us, 212000);	/* n1 measured none */
	assert_int_equal(t.range_us, 5000);
	/* a malformed record: the others still summed, and said */
	assert_int_equal(ogs_comment_sum("ORRS1:node=n1,tasks=1 ORRS1:tasks=oops", &t), -1);
	assert_int_equal(t.nodes, 1);
	assert_int_equal(ogs_comment_sum("ORR1:v=1 ORRC1:node=n1,ports=1", &t), 0);
	/* n1's ORRS1: replaced; its ORRC1:, n2's ORRS1: and the rest kept in order */
	m = ogs_comment_merge(comment, "n1", "ORRS1:node=n1,tasks=9");
	assert_non_null(m);
	assert_string_equal(m, "ORR1:v=1 ORRC1:node=n1,ports=1,tx_bytes=5,wrapped=0 site=x "
			    "ORRS1:node=n2,tasks=4,gated=3,off=1,bad=1,phases=30,on_slot=20,missed=5,wait_us=50,max_wait_us=90,rearmed=1,iter_us=212000,range_us=5000 "
			    "ORRS1:node=n1,tasks=9");
	free(m);
	/* n1 does not match n10 */
	m = ogs_comment_merge("ORRS1:node=n10,tasks=1", "n1", "ORRS1:node=n1,tasks=2");
	assert_string_equal(m, "ORRS1:node=n10,tasks=1 ORRS1:node=n1,tasks=2");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(files_sum_per_node),
		cmocka_unit_test(bad_files_are_refused_whole),
		cmocka_unit_test(record_round_trip),
		cmocka_unit_test(comment_sum_and_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
