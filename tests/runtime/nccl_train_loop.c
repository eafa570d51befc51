/*
 * nccl_train_loop.c - a training-like loop over NCCL for the interposer
 * tests: N iterations of compute (a sleep) followed by one communication
 * phase of K collectives, on one or two communicators, optionally inside
 * a group, from one or two threads, the first C iterations on a stream
 * "being captured into a CUDA graph" (the stand-in's capturing stream).
 * With -s US, each iteration has a second burst of K collectives US after
 * the first (a profile with two Up phases); its lines have indexes K..2K-1.
 * With -S I:US, iteration I's second burst comes US later (a stall of the
 * host thread: a page fault storm, a data loader, a loaded machine).
 * With -L I:US, iterations from I on compute US instead (a job whose
 * iteration changes while it runs: a longer sequence, another phase).
 * With -J US, each iteration's (first) compute is that much shorter or
 * longer, uniform and the same on every rank (iterations that vary).
 * Linked against libnccl (the test
 * stand-in, tests/runtime/fake-nccl), run with LD_PRELOAD=liborrery-nccl.so.
 *
 * It writes one line per collective:
 *   thread iter index comm entered_us released_us returned_us captured
 * where released_us is when the call reached libnccl (the stand-in's
 * fake_nccl_last_start_us()), i.e. when the interposer let it go.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "contrib/runtime/nccl/nccl_abi.h"

#define FAKE_CAPTURING_STREAM ((cudaStream_t)(uintptr_t)0xCA97)

int64_t fake_nccl_last_start_us(void);

static int iters = 20, k_colls = 4, n_comms = 1, grouped, n_threads = 1,
	   capture_first;
static int64_t compute_us = 25000, second_us = -1, stall_us;
static int stall_iter = -1, later_iter = -1;
static int64_t later_us;
static int64_t jitter_us;	/* -J: compute varies by up to this either way */
static size_t bytes = 1 << 20;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void compute(int64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Iteration i's compute offset for -J: uniform in [-jitter_us,
 * jitter_us], the same on every rank (a hash of i, splitmix64), so that
 * the ranks of a job stay in step as a real job's collectives keep them. */
static int64_t jitter_of(int i)
{
	uint64_t z = (uint64_t)i + 0x9e3779b97f4a7c15ull;

	if (jitter_us <= 0)
		return 0;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (int64_t)(z % (uint64_t)(2 * jitter_us + 1)) - jitter_us;
}

struct worker {
	int id;
	ncclComm_t comms[2];
	int rc;
};

/* One burst of k_colls collectives; lines get indexes first..first+k-1. */
static void burst(struct worker *w, int iter, int first, int cap)
{
	int64_t entered[64], returned[64], released[64];
	cudaStream_t stream = cap ? FAKE_CAPTURING_STREAM : NULL;
	int j, c[64];

	if (grouped && ncclGroupStart() != ncclSuccess)
		w->rc = 1;
	for (j = 0; j < k_colls; j++) {
		c[j] = j % n_comms;
		entered[j] = now_us();
		if (ncclAllReduce(NULL, NULL, bytes / 4, ncclFloat32, ncclSum,
				  w->comms[c[j]], stream) != ncclSuccess)
			w->rc = 1;
		returned[j] = now_us();
		released[j] = fake_nccl_last_start_us();
	}
	if (grouped) {
		if (ncclGroupEnd() != ncclSuccess)
			w->rc = 1;
		for (j = 0; j < k_colls; j++) {
			returned[j] = now_us();
			released[j] = fake_nccl_last_start_us();
		}
	}
	pthread_mutex_lock(&out_lock);
	for (j = 0; j < k_colls; j++)
		fprintf(out, "%d %d %d %d %lld %lld %lld %d\n", w->id, iter, first + j, c[j],
			(long long)entered[j], (long long)released[j],
			(long long)returned[j], cap);
	pthread_mutex_unlock(&out_lock);
}

static void *loop(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < iters; i++) {
		int cap = i < capture_first;

		compute((later_iter >= 0 && i >= later_iter ? later_us : compute_us) + jitter_of(i));
		burst(w, i, 0, cap);
		if (second_us >= 0) {
			compute(second_us + (i == stall_iter ? stall_us : 0));
			burst(w, i, k_colls, cap);
		}
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: nccl_train_loop [-n iters] [-c compute_us] [-k collectives] "
		"[-s second_burst_us] [-S iter:stall_us] [-L iter:compute_us] [-J jitter_us] [-b bytes] [-m 1|2 comms] [-g] [-t 1|2 threads] [-C captured_first] [-o file]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker w[2];
	pthread_t th[2];
	int opt, i, rc = 0;

	out = stdout;
	while ((opt = getopt(argc, argv, "n:c:s:S:L:J:k:b:m:gt:C:o:")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'c': compute_us = atoll(optarg); break;
		case 's': second_us = atoll(optarg); break;
		case 'S':
			if (sscanf(optarg, "%d:%" SCNd64, &stall_iter, &stall_us) != 2)
				usage();
			break;
		case 'L':
			if (sscanf(optarg, "%d:%" SCNd64, &later_iter, &later_us) != 2 ||
			    later_iter < 0 || later_us < 0)
				usage();
			break;
		case 'J': jitter_us = atoll(optarg); break;
		case 'k': k_colls = atoi(optarg); break;
		case 'b': bytes = strtoull(optarg, NULL, 10); break;
		case 'm': n_comms = atoi(optarg); break;
		case 'g': grouped = 1; break;
		case 't': n_threads = atoi(optarg); break;
		case 'C': capture_first = atoi(optarg); break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				perror(optarg);
				return 1;
			}
			break;
		default: usage();
		}
	}
	if (iters < 1 || k_colls < 1 || k_colls > 64 || n_comms < 1 || n_comms > 2 ||
	    n_threads < 1 || n_threads > 2 || capture_first < 0 || jitter_us < 0 ||
	    jitter_us > compute_us || (later_iter >= 0 && jitter_us > later_us))
		usage();
	for (i = 0; i < n_threads; i++) {
		w[i].id = i;
		w[i].rc = 0;
		if (ncclCommInitAll(w[i].comms, n_comms, NULL) != ncclSuccess) {
			fprintf(stderr, "ncclCommInitAll failed\n");
			return 1;
		}
	}
	for (i = 0; i < n_threads; i++)
		pthread_create(&th[i], NULL, loop, &w[i]);
	for (i = 0; i < n_threads; i++) {
		pthread_join(th[i], NULL);
		rc |= w[i].rc;
		ncclCommDestroy(w[i].comms[0]);
		if (n_comms > 1)
			ncclCommDestroy(w[i].comms[1]);
	}
	if (out != stdout)
		fclose(out);
	return rc;
}
