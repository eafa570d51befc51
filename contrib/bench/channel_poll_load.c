/*
 * channel_poll_load.c - the live channel's load on slurmctld, generated
 * as the SPANK plugin's pollers make it: one slurm_load_job() of one job
 * per poll (spank-orrery(8), CHANNEL), here at a fixed total rate over
 * the given jobs, from a few threads.
 *
 *   channel_poll_load RATE SECONDS THREADS < job ids (one per line)
 *
 * Prints the RPCs made, failed, and their latency (median, p99, max).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static uint32_t *ids;
static size_t n_ids;
static double rate, seconds;
static int threads;

struct res {
	size_t start;	/* this thread's first job: then every threads-th */
	uint64_t calls, failed;
	double *lat;	/* ms */
	size_t n_lat, cap;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	struct res *r = arg;
	double t0 = now_s(), interval = threads / rate, next = t0;
	size_t i = 0;

	while (now_s() - t0 < seconds) {
		job_info_msg_t *m = NULL;
		double a, b, w = next - now_s();
		uint32_t id = ids[(r->start + i++ * (size_t)threads) % n_ids];

		if (w > 0) {
			struct timespec ts = { (time_t)w, (long)((w - (time_t)w) * 1e9) };
			nanosleep(&ts, NULL);
		}
		next += interval;
		a = now_s();
		if (slurm_load_job(&m, id, SHOW_LOCAL) != SLURM_SUCCESS)
			r->failed++;
		b = now_s();
		if (m)
			slurm_free_job_info_msg(m);
		r->calls++;
		if (r->n_lat == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 4096;
			r->lat = realloc(r->lat, r->cap * sizeof(double));
		}
		r->lat[r->n_lat++] = (b - a) * 1e3;
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	pthread_t *th;
	struct res *rs;
	uint64_t calls = 0, failed = 0;
	double *all, t0, el;
	size_t n = 0, cap = 1024;
	char line[64];

	if (argc != 4 || (rate = atof(argv[1])) <= 0 || (seconds = atof(argv[2])) <= 0 ||
	    (threads = atoi(argv[3])) <= 0 || threads > 64) {
		fprintf(stderr, "usage: channel_poll_load RATE SECONDS THREADS < job ids\n");
		return 2;
	}
	ids = malloc(cap * sizeof(*ids));
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long v = strtoul(line, NULL, 10);

		if (!v)
			continue;
		if (n_ids == cap)
			ids = realloc(ids, (cap *= 2) * sizeof(*ids));
		ids[n_ids++] = (uint32_t)v;
	}
	if (!n_ids) {
		fprintf(stderr, "channel_poll_load: no job ids on stdin\n");
		return 2;
	}
	th = calloc(threads, sizeof(*th));
	rs = calloc(threads, sizeof(*rs));
	t0 = now_s();
	for (int i = 0; i < threads; i++) {
		rs[i].start = (size_t)i;
		pthread_create(&th[i], NULL, run, &rs[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		calls += rs[i].calls;
		failed += rs[i].failed;
		n += rs[i].n_lat;
	}
	el = now_s() - t0;
	all = malloc((n ? n : 1) * sizeof(double));
	n = 0;
	for (int i = 0; i < threads; i++) {
		memcpy(all + n, rs[i].lat, rs[i].n_lat * sizeof(double));
		n += rs[i].n_lat;
	}
	qsort(all, n, sizeof(double), cmp);
	printf("rpcs=%" PRIu64 " failed=%" PRIu64 " seconds=%.1f rate=%.1f/s latency_ms median=%.2f p99=%.2f max=%.2f\n",
	       calls, failed, el, calls / el, n ? all[n / 2] : 0.0,
	       n ? all[(size_t)(n * 0.99)] : 0.0, n ? all[n - 1] : 0.0);
	return 0;
}
