/*
 * orrery-capture - summarise recorded collective timelines (one file per
 * rank, from liborrery-runtime's record mode or the PyTorch hook) into a
 * comm profile that sbatch --comm-profile accepts.  The spec and the file
 * are produced and checked by liborrery itself (orrery_profile_new,
 * orrery_profile_canonical, orrery_profile_save_file, _load_file), the
 * same code the SPANK plugin runs at submission.
 *
 * Exit status: 0 profile made, 1 bad input or no usable pattern, 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orrery.h"
#include "analyse.h"
#include "timeline.h"

#define EXIT_INPUT 1
#define EXIT_USAGE 2

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: orrery-capture [OPTIONS] TIMELINE...\n"
		"Summarise recorded collective timelines (one per rank) into a comm profile.\n\n"
		"  -o, --output FILE        write a profile file (for --comm-profile=@FILE)\n"
		"  -s, --spec-only          print only the canonical spec\n"
		"  -n, --ranks N            ranks in the ring for the bus factor\n"
		"                           (default: number of files when 2 or more)\n"
		"      --gap TIME           collectives closer than TIME form one phase (1ms)\n"
		"      --warmup N           regular iterations dropped first, per rank (1)\n"
		"      --jitter X           periodicity tolerance: repeats within X of the\n"
		"                           period (0.05)\n"
		"      --round TIME         round times to TIME (100us)\n"
		"      --min-iterations N   fewest iterations accepted (5)\n"
		"  -h, --help               this text\n"
		"      --version            print the version\n"
		"TIME: a number with us, ms or s.  See orrery-capture(1).\n");
}

/* "2ms", "100us", "0.5s" -> µs, whole microseconds, > 0. */
static int parse_time(const char *s, int64_t *us)
{
	char *end;
	double v;
	double mul;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	if (!strcmp(end, "us"))
		mul = 1;
	else if (!strcmp(end, "ms"))
		mul = 1e3;
	else if (!strcmp(end, "s"))
		mul = 1e6;
	else
		return -1;
	v *= mul;
	if (v > 3.6e9 || fabs(v - llround(v)) > 1e-6)
		return -1;
	*us = llround(v);
	return *us > 0 ? 0 : -1;
}

static int parse_count(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static const char *human_bytes(char *buf, size_t n, double b)
{
	if (b >= 1e9)
		snprintf(buf, n, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, n, "%.2f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, n, "%.2f kB", b / 1e3);
	else
		snprintf(buf, n, "%.0f B", b);
	return buf;
}

static const char *human_time(char *buf, size_t n, int64_t us)
{
	if (us % 1000 == 0)
		snprintf(buf, n, "%" PRId64 " ms", us / 1000);
	else
		snprintf(buf, n, "%.1f ms", us / 1e3);
	return buf;
}

static void print_summary(FILE *out, const struct timeline *tl, size_t n_tl,
			  const struct cap_result *r)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "timelines     %zu (", n_tl);
	for (size_t i = 0; i < n_tl && i < 8; i++)
		fprintf(out, "%s%s", i ? ", " : "", tl[i].path);
	fprintf(out, "%s), %zu collectives, source %s\n", n_tl > 8 ? ", ..." : "",
		r->events, tl[0].source[0] ? tl[0].source : "unknown");
	fprintf(out, "period        %s  (median of %zu iterations; sd %.3f ms, CV %.2f%%)\n",
		human_time(a, sizeof a, r->period_us), r->iterations,
		r->period_sd_us / 1e3, 100 * r->period_cv);
	fprintf(out, "dropped       %zu irregular (warm-up, pauses), %zu of another shape, %zu by --warmup\n",
		r->dropped_irregular, r->dropped_shape, r->dropped_warmup);
	if (r->ring_n_assumed)
		fprintf(out, "bus factor    ring size unknown (one file, no --ranks): large-n limit, all-reduce x2\n");
	else
		fprintf(out, "bus factor    ring of n=%u: all-reduce x%.3f, all-gather/reduce-scatter x%.0f, all-to-all x%.3f\n",
			r->ring_n, cap_bus_factor(TL_OP_ALLREDUCE, r->ring_n),
			cap_bus_factor(TL_OP_ALLGATHER, r->ring_n),
			cap_bus_factor(TL_OP_ALLTOALL, r->ring_n));
	fprintf(out, "  %-5s  %-9s  %-9s  %-10s  %-10s  %-12s  %-8s  %s\n", "phase",
		"offset", "duration", "bytes", "on wire", "demand", "CV(dur)",
		"collectives");
	for (size_t i = 0; i < r->n_phases; i++) {
		const struct cap_phase *p = &r->phases[i];
		char dm[32];
		snprintf(dm, sizeof dm, "%.2f Gb/s%s", p->demand_mbps / 1e3,
			 p->a2a ? " a2a" : "");
		char cv[32];
		snprintf(cv, sizeof cv, "%.1f%%", 100 * p->duration_cv);
		fprintf(out, "  %-5zu  %-9s  %-9s  %-10s  %-10s  %-12s  %-8s  %s\n", i,
			human_time(a, sizeof a, p->offset_us),
			human_time(b, sizeof b, p->duration_us),
			human_bytes(c, sizeof c, (double)p->bytes),
			human_bytes(d, sizeof d, (double)p->wire_bytes), dm, cv,
			p->ops);
	}
	double worst = 0;
	for (size_t i = 0; i < r->n_phases; i++)
		worst = fmax(worst, r->phases[i].duration_cv);
	fprintf(out, "confidence    %s (%zu iterations, period CV %.2f%%, worst phase duration CV %.1f%%)\n",
		r->confidence, r->iterations, 100 * r->period_cv, 100 * worst);
}

/* Profile file: liborrery writes [profile] and [phase.N]; the [capture]
 * statistics are appended to its temporary copy, then renamed into place
 * and read back with the loader sbatch uses. */
static int write_profile(const char *path, const orrery_profile_t *p,
			 const struct timeline *tl, size_t n_tl,
			 const struct cap_result *r)
{
	orrery_error_t err;
	orrery_profile_t *back = NULL;
	char tmp[4096], comment[512];
	FILE *fp;
	int ok;

	if (snprintf(tmp, sizeof tmp, "%s.capture-tmp", path) >= (int)sizeof tmp) {
		fprintf(stderr, "orrery-capture: %s: path too long\n", path);
		return -1;
	}
	snprintf(comment, sizeof comment,
		 "captured by orrery-capture %s from %zu timeline(s), %zu iterations, confidence %s",
		 orrery_version(), n_tl, r->iterations, r->confidence);
	if (orrery_profile_save_file(p, tmp, comment, &err)) {
		fprintf(stderr, "orrery-capture: %s\n", err.message);
		return -1;
	}
	if (!(fp = fopen(tmp, "ae"))) {
		fprintf(stderr, "orrery-capture: %s: %s\n", tmp, strerror(errno));
		unlink(tmp);
		return -1;
	}
	fprintf(fp, "\n[capture]\niterations=%zu\nperiod_stddev=%" PRId64 "us\n"
		"period_cv=%.4f\nranks=%zu\nring_n=%u\nconfidence=%s\n"
		"dropped_irregular=%zu\ndropped_shape=%zu\ndropped_warmup=%zu\n"
		"source=%s\n",
		r->iterations, (int64_t)llround(r->period_sd_us), r->period_cv,
		n_tl, r->ring_n, r->confidence, r->dropped_irregular,
		r->dropped_shape, r->dropped_warmup,
		tl[0].source[0] ? tl[0].source : "unknown");
	for (size_t i = 0; i < r->n_phases; i++)
		fprintf(fp, "phase%zu_duration_cv=%.4f\nphase%zu_bytes=%" PRIu64 "\n",
			i, r->phases[i].duration_cv, i, r->phases[i].bytes);
	ok = fflush(fp) == 0 && fsync(fileno(fp)) == 0;
	ok = (fclose(fp) == 0) && ok;
	if (!ok || rename(tmp, path) != 0) {
		fprintf(stderr, "orrery-capture: %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (orrery_profile_load_file(path, &back, &err)) {
		fprintf(stderr, "orrery-capture: BUG: the written profile does not load: %s\n",
			err.message);
		return -1;
	}
	ok = orrery_profile_equal(p, back);
	orrery_profile_free(back);
	if (!ok) {
		fprintf(stderr, "orrery-capture: BUG: %s reads back as another profile\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "spec-only", no_argument, NULL, 's' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "gap", required_argument, NULL, 'g' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "jitter", required_argument, NULL, 'c' },
		{ "round", required_argument, NULL, 'r' },
		{ "min-iterations", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct cap_opts o;
	struct cap_result res;
	const char *output = NULL;
	int spec_only = 0, c, rc = EXIT_INPUT;
	char err[1024];

	cap_opts_default(&o);
	while ((c = getopt_long(argc, argv, "o:sn:h", opts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 's':
			spec_only = 1;
			break;
		case 'n':
			if (parse_count(optarg, 1u << 24, &o.ranks) || o.ranks < 2) {
				fprintf(stderr, "orrery-capture: --ranks '%s': expected a whole number >= 2\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'g':
		case 'r':
			if (parse_time(optarg, c == 'g' ? &o.gap_us : &o.round_us)) {
				fprintf(stderr, "orrery-capture: --%s '%s': expected a positive time with a unit (us, ms, s)\n",
					c == 'g' ? "gap" : "round", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			if (parse_count(optarg, 1000000, &o.warmup)) {
				fprintf(stderr, "orrery-capture: --warmup '%s': expected a whole number\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (parse_count(optarg, 1000000, &o.min_iterations) || o.min_iterations < 2) {
				fprintf(stderr, "orrery-capture: --min-iterations '%s': expected a whole number >= 2\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			errno = 0;
			o.jitter = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o.jitter > 0 && o.jitter <= 0.5)) {
				fprintf(stderr, "orrery-capture: --jitter '%s': expected a number in (0, 0.5]\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("orrery-capture %s\n", orrery_version());
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	size_t n_tl = (size_t)(argc - optind);
	if (n_tl == 0) {
		fprintf(stderr, "orrery-capture: no timeline files given\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (n_tl > TL_MAX_FILES) {
		fprintf(stderr, "orrery-capture: at most %d timeline files\n", TL_MAX_FILES);
		return EXIT_USAGE;
	}

	struct timeline *tl = calloc(n_tl, sizeof *tl);
	size_t budget = TL_MAX_TOTAL, loaded = 0;
	orrery_profile_t *prof = NULL;
	char *spec = NULL;
	if (!tl) {
		fprintf(stderr, "orrery-capture: out of memory\n");
		return EXIT_INPUT;
	}
	for (; loaded < n_tl; loaded++)
		if (timeline_read(argv[optind + loaded], &tl[loaded], &budget,
				  err, sizeof err)) {
			fprintf(stderr, "orrery-capture: %s\n", err);
			timeline_free(&tl[loaded]);
			goto out;
		}
	for (size_t i = 0; i < n_tl; i++)
		for (size_t j = i + 1; j < n_tl; j++)
			if (tl[i].rank >= 0 && tl[i].rank == tl[j].rank &&
			    !strcmp(tl[i].host, tl[j].host) && tl[i].pid == tl[j].pid) {
				fprintf(stderr, "orrery-capture: %s and %s are the same rank %ld of one process (given twice?)\n",
					tl[i].path, tl[j].path, tl[i].rank);
				goto out;
			}

	if (cap_analyse(tl, n_tl, &o, &res, err, sizeof err)) {
		fprintf(stderr, "orrery-capture: %s\n", err);
		goto out;
	}

	orrery_phase_t ph[ORRERY_MAX_PHASES];
	for (size_t i = 0; i < res.n_phases; i++)
		ph[i] = (orrery_phase_t){ res.phases[i].offset_us,
			res.phases[i].duration_us, res.phases[i].demand_mbps,
			res.phases[i].a2a ? ORRERY_COLL_ALLTOALL : ORRERY_COLL_RING, 0 };
	orrery_error_t oerr;
	if (orrery_profile_new(res.period_us, ph, res.n_phases, &prof, &oerr)) {
		fprintf(stderr, "orrery-capture: the captured pattern is not a valid profile: %s\n",
			oerr.message);
		goto out;
	}
	spec = orrery_profile_canonical(prof);
	/* The spec must parse back to the same profile: what sbatch does. */
	orrery_profile_t *check = NULL;
	if (!spec || orrery_profile_parse(spec, &check, &oerr) ||
	    !orrery_profile_equal(prof, check)) {
		fprintf(stderr, "orrery-capture: BUG: canonical spec '%s' does not parse back\n",
			spec ? spec : "(null)");
		orrery_profile_free(check);
		goto out;
	}
	orrery_profile_free(check);

	if (spec_only) {
		printf("%s\n", spec);
	} else {
		print_summary(stdout, tl, n_tl, &res);
		printf("spec          %s\n", spec);
	}
	if (output) {
		if (write_profile(output, prof, tl, n_tl, &res))
			goto out;
		if (!spec_only)
			printf("profile file  %s (submit with --comm-profile=@%s)\n",
			       output, output);
	}
	rc = 0;
out:
	for (size_t i = 0; i < loaded && i < n_tl; i++)
		timeline_free(&tl[i]);
	free(tl);
	orrery_free(spec);
	orrery_profile_free(prof);
	return rc;
}
