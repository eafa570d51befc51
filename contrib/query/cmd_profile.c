/*
 * cmd_profile.c - "orrery-query profile SPEC": validate a --comm-profile
 * string, print its canonical form and the Up/Down phases (a catalogue
 * model is resolved for the given job shape).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"

static void help(FILE *out)
{
	fprintf(out,
		"Usage: orrery-query profile SPEC [--nodes N] [--gpus-per-node G] [--link CAP]\n"
		"  SPEC: a catalogue model (resnet50, gpt2:batch=32) or an explicit pattern\n"
		"        (period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a);\n"
		"        collectives /ring (default), /a2a, /ppS (S pipeline stages), /railR (R rails)\n");
}

orrery_profile_t *profile_explicit(const char *spec, const orrery_shape_t *shape)
{
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_error_t err;

	if (orrery_profile_parse(spec, &p, &err)) {
		qerr("%s", err.message);
		return NULL;
	}
	if (!orrery_profile_is_model(p))
		return p;
	if (orrery_profile_resolve(p, shape, &r, &err))
		qerr("%s", err.message);
	orrery_profile_free(p);
	return r;
}

/* A phase's collective in words: "ring", "all-to-all", "pipeline, 4
 * stages", "rail, 8 rails" (the crossing rules: orrery.h). */
static const char *collective_text(char *buf, size_t n, const orrery_phase_t *ph)
{
	switch (ph->collective) {
	case ORRERY_COLL_ALLTOALL:
		return "all-to-all";
	case ORRERY_COLL_PIPELINE:
		snprintf(buf, n, "pipeline, %u stages", ph->groups);
		return buf;
	case ORRERY_COLL_RAIL:
		snprintf(buf, n, "rail, %u rail%s", ph->groups, ph->groups == 1 ? "" : "s");
		return buf;
	default:
		return "ring";
	}
}

/* Up phases from the profile, Down for the gaps between them (phases may
 * overlap: their demands add; the table lists them as given). */
void print_phase_table(FILE *out, const orrery_profile_t *p)
{
	int64_t period = orrery_profile_period_us(p), covered = 0;
	size_t k = orrery_profile_phase_count(p);
	char a[FMT_N], b[FMT_N], c[FMT_N], d[FMT_N];

	fprintf(out, "  %-5s  %-11s  %-11s  %-11s  %-11s  %s\n", "phase", "start",
		"duration", "end", "demand", "collective");
	for (size_t i = 0; i <= k; i++) {
		orrery_phase_t ph = { period, 0, 0, 0, 0 };
		char coll[32];
		if (i < k)
			orrery_profile_phase(p, i, &ph);
		if (ph.offset_us > covered)
			fprintf(out, "  %-5s  %-11s  %-11s  %-11s  %-11s  %s\n", "Down",
				fmt_time(a, sizeof a, covered),
				fmt_time(b, sizeof b, ph.offset_us - covered),
				fmt_time(c, sizeof c, ph.offset_us), "-", "-");
		if (i == k)
			break;
		fprintf(out, "  %-5s  %-11s  %-11s  %-11s  %-11s  %s\n", "Up",
			fmt_time(a, sizeof a, ph.offset_us),
			fmt_time(b, sizeof b, ph.duration_us),
			fmt_time(c, sizeof c, ph.offset_us + ph.duration_us),
			fmt_bw(d, sizeof d, ph.demand_mbps),
			collective_text(coll, sizeof coll, &ph));
		if (ph.offset_us + ph.duration_us > covered)
			covered = ph.offset_us + ph.duration_us;
	}
}

int parse_shape_opt(const char *name, const char *arg, orrery_shape_t *s)
{
	uint64_t v;

	if (!strcmp(name, "nodes") || !strcmp(name, "gpus-per-node")) {
		if (query_positive(name, arg, &v) < 0)
			return -1;
		if (!strcmp(name, "nodes"))
			s->nodes = (uint32_t)v;
		else
			s->gpus_per_node = (uint32_t)v;
		return 1;
	}
	if (!strcmp(name, "link")) {
		if (parse_bandwidth(arg, &s->link_mbps)) {
			qerr("--link '%s': expected a bandwidth such as 100Gbps", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

static int take(int ch, const char *name, const char *arg, void *ctx)
{
	return ch == 0 && parse_shape_opt(name, arg, ctx) > 0 ? 0 : -1;
}

int cmd_profile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 0 },
		{ "gpus-per-node", required_argument, NULL, 0 },
		{ "link", required_argument, NULL, 0 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	orrery_shape_t shape = { 0, 0, 0 };
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_error_t err;
	char *canon;
	char a[FMT_N];
	int rc;

	rc = query_getopt(argc, argv, opts, help, take, &shape, QUERY_OPERANDS);
	if (rc != QUERY_GO)
		return rc;
	if (optind + 1 != argc) {
		help(stderr);
		return EXIT_USAGE;
	}
	if (orrery_profile_parse(argv[optind], &p, &err)) {
		qerr("%s", err.message);
		return EXIT_INPUT;
	}
	canon = orrery_profile_canonical(p);
	printf("canonical    %s\n", canon ? canon : "?");
	orrery_free(canon);
	if (orrery_profile_is_model(p)) {
		printf("kind         catalogue model '%s'\n", orrery_profile_model(p));
		if (orrery_profile_resolve(p, &shape, &r, &err)) {
			qerr("%s", err.message);
			orrery_profile_free(p);
			return EXIT_INPUT;
		}
		canon = orrery_profile_canonical(r);
		printf("resolved     %s\n", canon ? canon : "?");
		orrery_free(canon);
		char n[32], g[32];
		snprintf(n, sizeof n, shape.nodes ? "%u" : "model default", shape.nodes);
		snprintf(g, sizeof g, shape.gpus_per_node ? "%u" : "model default",
			 shape.gpus_per_node);
		printf("for shape    nodes %s, GPUs per node %s, node link %s\n", n, g,
		       shape.link_mbps ? fmt_bw(a, sizeof a, shape.link_mbps)
				       : "model default");
	} else {
		printf("kind         explicit pattern\n");
		r = orrery_profile_copy(p);
	}
	if (!r) {
		qerr("out of memory");
		orrery_profile_free(p);
		return EXIT_INPUT;
	}
	printf("period       %s\n", fmt_time(a, sizeof a, orrery_profile_period_us(r)));
	printf("duty cycle   %.1f %%\n", 100.0 * orrery_profile_duty_cycle(r));
	printf("mean demand  %s per node\n\n",
	       fmt_bw(a, sizeof a, (uint64_t)(orrery_profile_mean_demand_mbps(r) + 0.5)));
	print_phase_table(stdout, r);
	orrery_profile_free(r);
	orrery_profile_free(p);
	return 0;
}
