/*
 * cmd_score.c - "orrery-query score": profiles sharing one link.  Prints
 * the compatibility score before (all shifts 0) and after the best
 * rotation, the fraction of the circle over capacity, and each job's
 * shift and gate period; then, for two or more jobs, the predicted
 * iteration times under rotation, time division and free sharing and the
 * mode liborrery chooses; optionally draws the circle as SVG.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"

#define SCORE_MAX_JOBS 64

static void help(FILE *out)
{
	fprintf(out,
		"Usage: orrery-query score --capacity CAP [--svg FILE] [--bins N]\n"
		"                          [--nodes N] [--gpus-per-node G] [--link CAP]\n"
		"                          SPEC SPEC...\n");
}

struct score_args {
	orrery_shape_t shape;
	orrery_circle_opts_t copts;
	const char *svg;
	uint64_t cap;
};

static int take(int ch, const char *name, const char *arg, void *ctx)
{
	struct score_args *sa = ctx;
	uint64_t v;

	switch (ch) {
	case 0:
		return parse_shape_opt(name, arg, &sa->shape) > 0 ? 0 : -1;
	case 'c':
		if (parse_bandwidth(arg, &sa->cap)) {
			qerr("--capacity '%s': expected a bandwidth such as 50Gbps", arg);
			return -1;
		}
		return 0;
	case 's':
		sa->svg = arg;
		return 0;
	case 'b':
		if (parse_uint(arg, 100000, &v) || v < 8) {
			qerr("--bins '%s': expected a whole number from 8 to 100000", arg);
			return -1;
		}
		sa->copts.bins = (uint32_t)v;
		return 0;
	}
	return -1;
}

int cmd_score(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 0 },
		{ "gpus-per-node", required_argument, NULL, 0 },
		{ "link", required_argument, NULL, 0 },
		{ "capacity", required_argument, NULL, 'c' },
		{ "svg", required_argument, NULL, 's' },
		{ "bins", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct score_args sa = { .shape = { 0, 0, 0 } };
	orrery_profile_t *prof[SCORE_MAX_JOBS] = { NULL };
	orrery_link_result_t *res = NULL;
	orrery_error_t err;
	size_t n = 0;
	int rc;
	char a[FMT_N], b[FMT_N], d[FMT_N];

	orrery_circle_opts_default(&sa.copts);
	rc = query_getopt(argc, argv, opts, help, take, &sa, QUERY_OPERANDS);
	if (rc != QUERY_GO)
		return rc;
	rc = EXIT_INPUT;
	if (!sa.cap || optind >= argc) {
		help(stderr);
		return EXIT_USAGE;
	}
	if (argc - optind > SCORE_MAX_JOBS) {
		qerr("at most %d profiles", SCORE_MAX_JOBS);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		prof[n] = profile_explicit(argv[i], &sa.shape);
		if (!prof[n])
			goto out;
		n++;
	}
	if (orrery_link_score((const orrery_profile_t *const *)prof, n, sa.cap, NULL,
			      &sa.copts, &res, &err)) {
		qerr("%s", err.message);
		goto out;
	}
	printf("link         %s, %zu job%s\n", fmt_bw(a, sizeof a, sa.cap), n,
	       n == 1 ? "" : "s");
	printf("circle       perimeter %s, %u angles, %s search%s\n",
	       fmt_time(a, sizeof a, orrery_link_result_perimeter_us(res)),
	       sa.copts.bins, orrery_link_result_exact(res) ? "exact" : "heuristic",
	       orrery_link_result_smeared(res)
		       ? "\n             smeared: the periods could not be unified under "
			 "the cap; demands are spread evenly (no rotation helps)"
		       : "");
	printf("score        %.3f unshifted -> %.3f best\n",
	       orrery_link_result_score_unshifted(res), orrery_link_result_score(res));
	printf("over cap     %.1f %% of the circle unshifted -> %.1f %% best\n\n",
	       100.0 * orrery_link_result_over_fraction_unshifted(res),
	       100.0 * orrery_link_result_over_fraction(res));
	printf("  %-4s  %-11s  %-11s  %-11s  %-7s  %s\n", "job", "period",
	       "gate period", "shift", "duty", "profile");
	for (size_t i = 0; i < n; i++) {
		char duty[16];
		snprintf(duty, sizeof duty, "%.1f %%", 100.0 * orrery_profile_duty_cycle(prof[i]));
		printf("  %-4zu  %-11s  %-11s  %-11s  %-7s  %s\n", i + 1,
		       fmt_time(a, sizeof a, orrery_profile_period_us(prof[i])),
		       fmt_time(b, sizeof b, orrery_link_result_gate_period_us(res, i)),
		       fmt_time(d, sizeof d, orrery_link_result_shift_us(res, i)),
		       duty, argv[optind + (int)i]);
	}
	if (n >= 2) {
		orrery_division_t *dv = NULL;
		if (orrery_link_divide((const orrery_profile_t *const *)prof, n, sa.cap,
				       &sa.copts, &dv, &err)) {
			qerr("%s", err.message);
			goto out;
		}
		printf("\n");
		print_division(dv, NULL, 1);
		orrery_division_free(dv);
	}
	if (sa.svg) {
		const char *labels[SCORE_MAX_JOBS];
		char lab[SCORE_MAX_JOBS][16];
		char title[128];
		FILE *f = fopen(sa.svg, "w");
		if (!f) {
			qerr("--svg %s: cannot create the file", sa.svg);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			snprintf(lab[i], sizeof lab[i], "job %zu", i + 1);
			labels[i] = lab[i];
		}
		snprintf(title, sizeof title, "%zu jobs on a %s link", n,
			 fmt_bw(a, sizeof a, sa.cap));
		int wrc = orrery_link_result_write_svg(res, labels, title, f, &err);
		if (fclose(f) && !wrc) {
			wrc = ORRERY_EIO;
			snprintf(err.message, sizeof err.message, "write error");
		}
		if (wrc) {
			qerr("--svg %s: %s", sa.svg, err.message);
			goto out;
		}
		printf("\nwrote %s\n", sa.svg);
	}
	rc = 0;
out:
	orrery_link_result_free(res);
	for (size_t i = 0; i < n; i++)
		orrery_profile_free(prof[i]);
	return rc;
}
