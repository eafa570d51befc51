/*
 * bench_runtime_write - what the periodic statistics write costs a gated
 * phase (orrery-runtime(7), "a killed process").
 *
 * Every 2 s of the caller's clock a gating process rewrites its
 * statistics files and appends its timeline; the phase that comes due
 * hands that to the runtime's writer thread.  This times
 * orrery_runtime_release_at on phases that come due (synthetic times
 * 2.001 s apart) against phases that do not (1 ms later: the baseline,
 * in the same run), with a short pause after each due phase so that the
 * writer has finished the last one.  The files go to DIR (default
 * /var/tmp: a disk; give /dev/shm for tmpfs).  Figures per phase, and the
 * due phase's median as a ratio to the baseline's.
 *
 * Usage: bench_runtime_write [DIR [PHASES]]   (default /var/tmp 300)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "orrery_runtime.h"

#define E0 1800000000000000LL	/* an epoch, us */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t timed(int64_t at_us)
{
	int64_t t0 = mono_ns();

	orrery_runtime_release_at(at_us);
	return mono_ns() - t0;
}

static void print(const char *what, int64_t *d, int n)
{
	qsort(d, n, sizeof(*d), cmp);
	printf("  %-28s median %8.1f us  p90 %8.1f us  max %8.1f us\n", what,
	       d[n / 2] / 1e3, d[n * 9 / 10] / 1e3, d[n - 1] / 1e3);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/var/tmp";
	int n = argc > 2 ? atoi(argv[2]) : 300;
	char path[512], env[600];
	int64_t *due, *plain, t = E0 + 10000;
	int i;

	if (n < 10 || n > 100000) {
		fprintf(stderr, "usage: bench_runtime_write [DIR [PHASES 10..100000]]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/bench_runtime_write.%ld.stats", dir, (long)getpid());
	snprintf(env, sizeof(env), "%s", path);
	setenv("ORRERY_RUNTIME_STATS", env, 1);
	setenv("ORRERY_PERIOD_US", "100000", 1);
	setenv("ORRERY_EPOCH_US", "1800000000000000", 1);
	setenv("ORRERY_SHIFT_US", "0", 1);
	due = calloc(n, sizeof(*due));
	plain = calloc(n, sizeof(*plain));
	if (!due || !plain || orrery_runtime_init() != 1) {
		fprintf(stderr, "bench_runtime_write: the runtime is not gating\n");
		return 1;
	}
	timed(t);	/* the first phase: the writes start 2 s after it */
	for (i = 0; i < n; i++) {
		t += 2001000;
		due[i] = timed(t);
		plain[i] = timed(t + 1000);
		usleep(5000);
	}
	printf("bench_runtime_write: %d phases each, statistics file in %s\n", n, dir);
	print("phase not due (baseline)", plain, n);
	print("phase due a write", due, n);
	printf("  due / baseline (median): %.2fx\n", (double)due[n / 2] / (double)plain[n / 2]);
	orrery_runtime_finish();
	unlink(path);
	free(due);
	free(plain);
	return 0;
}
