/*
 * cmd_solve.c - "orrery-query solve": re-solve every running job's shift
 * from scratch (best rotation per link, then the affinity-graph
 * traversal) and show, per link, the score optimised alone against the
 * score the assigned shifts achieve; loop-closing links are marked.  Then
 * each link group with the predicted iteration times under rotation,
 * time division and free sharing, and the mode chosen.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"

static void help(FILE *out)
{
	fprintf(out,
		"Usage: orrery-query solve (--topology FILE | --generate SPEC)\n"
		"                          (--jobs JOBSFILE | --state STATEFILE)\n"
		"                          [--gpus-per-node G] [--linkspeed-unit CAP]\n"
		"                          [--node-link CAP] [--uplink LEVEL=[Kx]CAP|SWITCH=[Kx]CAP]... [--flows N]\n");
}

static int take(int ch, const char *name, const char *arg, void *ctx)
{
	return cluster_opt(ctx, ch, name, arg) < 0 ? -1 : 0;
}

int cmd_solve(int argc, char **argv)
{
	static const struct option opts[] = {
		CLUSTER_LONG_OPTIONS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cluster_args ca;
	orrery_cluster_t *c;
	orrery_solve_t *s = NULL;
	orrery_error_t err;
	int rc = EXIT_INPUT;
	char a[FMT_N], b[FMT_N], d[FMT_N];

	cluster_args_init(&ca);
	rc = query_getopt(argc, argv, opts, help, take, &ca, QUERY_NO_OPERANDS);
	if (rc != QUERY_GO)
		return rc;
	rc = EXIT_INPUT;
	if (!ca.jobs && !ca.state) {
		qerr("--jobs or --state is required");
		help(stderr);
		return EXIT_USAGE;
	}
	c = cluster_load(&ca, 0, -1);
	if (!c)
		return EXIT_INPUT;
	const orrery_topology_t *t = orrery_cluster_topology(c);
	if (orrery_cluster_solve(c, 0, &s, &err)) {
		qerr("%s", err.message);
		goto out;
	}
	size_t nl = orrery_solve_link_count(s);
	int loops = orrery_solve_loops(s);
	printf("jobs         %zu\n", orrery_cluster_job_count(c));
	printf("shared links %zu\n", nl);
	printf("loops        %d%s\n\n", loops,
	       loops ? " (a spanning tree kept the links with the most to gain; "
		       "loop-closing links get what the tree's shifts give)" : "");
	if (nl) {
		int wn = 6;
		for (size_t i = 0; i < nl; i++) {
			orrery_solve_link_t l;
			orrery_solve_link(s, i, &l);
			int w = (int)strlen(orrery_topology_switch_name(t, l.switch_index));
			wn = w > wn ? w : wn;
		}
		printf("  %-*s  %-10s  %-4s  %-7s  %s\n", wn, "uplink", "capacity",
		       "jobs", "optimal", "achieved");
		for (size_t i = 0; i < nl; i++) {
			orrery_solve_link_t l;
			orrery_solve_link(s, i, &l);
			printf("  %-*s  %-10s  %-4u  %-7.3f  %.3f%s\n", wn,
			       orrery_topology_switch_name(t, l.switch_index),
			       fmt_bw(a, sizeof a, orrery_topology_uplink_mbps(t, l.switch_index)),
			       l.jobs, l.score_optimal, l.score_achieved,
			       l.loop_closing ? "     loop-closing" : "");
		}
		printf("\n");
	}
	printf("  %-10s  %-11s  %-11s  %s\n", "job", "period", "shift now", "solved shift");
	for (size_t j = 0; j < orrery_cluster_job_count(c); j++) {
		uint32_t id = orrery_cluster_job_id(c, j);
		int64_t now = 0, period = 0, solved = 0;
		orrery_cluster_job_shift_us(c, id, &now, &period);
		int have = orrery_solve_job_shift(s, id, &solved) == ORRERY_OK;
		printf("  %-10u  %-11s  %-11s  %s\n", id, fmt_time(a, sizeof a, period),
		       fmt_time(b, sizeof b, now),
		       have ? fmt_time(d, sizeof d, solved) : "- (shares no link)");
	}
	{
		orrery_division_t *dv = NULL;
		if (orrery_cluster_divide(c, &dv, &err)) {
			qerr("%s", err.message);
			goto out;
		}
		printf("\n");
		print_division(dv, t, 0);
		orrery_division_free(dv);
	}
	rc = 0;
out:
	orrery_solve_free(s);
	orrery_cluster_free(c);
	return rc;
}
