/*
 * bench_link - cost of orrery_link_score for 2..8 jobs on one link.
 *
 * For each k the same k jobs are timed twice: once with every shift
 * fixed (no search: discretise the jobs and score them once - the
 * baseline, measured in this run) and once with every job free (the
 * rotation search, exact or heuristic as orrery_link_score chooses with
 * the default options).  Figures are per call and as a ratio to the
 * baseline; absolute times depend on the machine, ratios much less.
 *
 * Usage: bench_link [seconds-per-figure]   (default 0.2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "orrery.h"

#define MAXJ 8

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds per call of orrery_link_score, repeated for about `budget`. */
static double time_score(const orrery_profile_t *const *ps, size_t k,
			 uint64_t cap, const int64_t *fixed, double budget,
			 orrery_link_result_t **keep)
{
	orrery_error_t err;
	long calls = 0;
	double t0 = now(), t;

	do {
		orrery_link_result_t *r = NULL;

		if (orrery_link_score(ps, k, cap, fixed, NULL, &r, &err)) {
			fprintf(stderr, "bench_link: %s\n", err.message);
			exit(1);
		}
		if (keep && !*keep)
			*keep = r;
		else
			orrery_link_result_free(r);
		calls++;
		t = now() - t0;
	} while (t < budget);
	return t / (double)calls;
}

int main(int argc, char **argv)
{
	/* A mix of training jobs: periods (ms), Up phases as offset+len (ms)
	 * at a share of the link. */
	static const struct {
		int64_t period_ms;
		int phases;
		int64_t off[2], len[2];
		uint64_t mbps[2];
	} mix[MAXJ] = {
		{100, 1, {60, 0}, {40, 0}, {40000, 0}},
		{100, 2, {20, 70}, {20, 25}, {30000, 45000}},
		{150, 1, {100, 0}, {50, 0}, {35000, 0}},
		{200, 1, {120, 0}, {60, 0}, {50000, 0}},
		{100, 1, {0, 0}, {30, 0}, {25000, 0}},
		{120, 2, {10, 80}, {15, 30}, {40000, 20000}},
		{150, 1, {30, 0}, {45, 0}, {30000, 0}},
		{100, 1, {50, 0}, {25, 0}, {45000, 0}},
	};
	const uint64_t cap = 50000;
	double budget = argc > 1 ? atof(argv[1]) : 0.2;
	orrery_profile_t *p[MAXJ];
	const orrery_profile_t *ps[MAXJ];
	int64_t fixed[MAXJ];
	orrery_error_t err;
	size_t j, k;

	if (budget <= 0)
		budget = 0.2;
	for (j = 0; j < MAXJ; j++) {
		orrery_phase_t ph[2];
		int i;

		for (i = 0; i < mix[j].phases; i++) {
			ph[i].offset_us = mix[j].off[i] * 1000;
			ph[i].duration_us = mix[j].len[i] * 1000;
			ph[i].demand_mbps = mix[j].mbps[i];
			ph[i].collective = ORRERY_COLL_RING;
			ph[i].groups = 0;
		}
		if (orrery_profile_new(mix[j].period_ms * 1000, ph,
				       (size_t)mix[j].phases, &p[j], &err)) {
			fprintf(stderr, "bench_link: %s\n", err.message);
			return 1;
		}
		ps[j] = p[j];
		fixed[j] = 0;
	}

	printf("# orrery_link_score, default options (360 bins, 1 ms quantum, "
	       "budget 2e7), capacity %llu Mb/s\n", (unsigned long long)cap);
	printf("# baseline: the same jobs with every shift fixed (one scoring, "
	       "no search)\n");
	printf("%2s %10s %9s %12s %12s %8s %10s %8s\n", "k", "perimeter",
	       "search", "base_us", "search_us", "ratio", "unshifted", "score");
	for (k = 2; k <= MAXJ; k++) {
		orrery_link_result_t *r = NULL;
		double base = time_score(ps, k, cap, fixed, budget, NULL);
		double search = time_score(ps, k, cap, NULL, budget, &r);

		printf("%2zu %8.0fms %9s %12.1f %12.1f %8.1f %10.4f %8.4f\n", k,
		       orrery_link_result_perimeter_us(r) / 1000.0,
		       orrery_link_result_exact(r) ? "exact" : "heuristic",
		       base * 1e6, search * 1e6, search / base,
		       orrery_link_result_score_unshifted(r),
		       orrery_link_result_score(r));
		orrery_link_result_free(r);
	}
	for (j = 0; j < MAXJ; j++)
		orrery_profile_free(p[j]);
	return 0;
}
