/*
 * state_saver.c - the orrery_state writer thread (state_saver.h).
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"

#include "lib_syms.h"
#include "state_saver.h"

/* At most one save per ORR_SAVER_GAP_MS (state_saver.h): saves still
 * land within that of a change, and a burst of job starts costs a few
 * fsyncs a second instead of one per job. */
#define GAP_NS ((uint64_t) ORR_SAVER_GAP_MS * 1000000u)

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;	/* CLOCK_MONOTONIC: init_cond() */
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static pthread_t thread;
static bool running, stopping;
static char *pending, *pending_path;	/* newest text not yet written */
static size_t pending_len;
static uint64_t n_saves, ns_saves, failing, n_coalesced;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* A timed wait must not follow the wall clock: set back, it would hold
 * the next save for as long as the clock moved. */
static void init_cond(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&cond, &a);
	pthread_condattr_destroy(&a);
}

/* One save, outside `mtx'.  A failing save (full disk) is logged once,
 * and again when saving works again. */
static void write_one(const char *path, const char *data, size_t len)
{
	orrery_error_t err = { 0 };
	uint64_t t0 = mono_ns();
	int rc = orrery_state_write(path, data, len, &err);

	pthread_mutex_lock(&mtx);
	n_saves++;
	ns_saves += mono_ns() - t0;
	if (rc) {
		if (!failing++)
			error("select/orrery: cannot save %s: %s (not logged again until a save succeeds)",
			      path, err.message);
	} else {
		if (failing)
			info("select/orrery: saved %s again after %"PRIu64" failed saves",
			     path, failing);
		failing = 0;
	}
	pthread_mutex_unlock(&mtx);
}

static void *saver(void *arg)
{
	uint64_t next = 0;	/* no save before this (mono_ns) */

	(void) arg;
	pthread_mutex_lock(&mtx);
	for (;;) {
		while (!pending && !stopping)
			pthread_cond_wait(&cond, &mtx);
		if (!pending)
			break;	/* stopping, nothing left */
		/* Too soon after the last save: let newer texts replace
		 * this one (submit frees the older) until the gap is over;
		 * a stop writes at once. */
		while (pending && !stopping && mono_ns() < next) {
			struct timespec ts = {
				.tv_sec = next / 1000000000u,
				.tv_nsec = next % 1000000000u,
			};

			pthread_cond_timedwait(&cond, &mtx, &ts);
		}
		if (!pending)
			continue;
		{
			char *data = pending, *path = pending_path;
			size_t len = pending_len;

			pending = pending_path = NULL;
			pthread_mutex_unlock(&mtx);
			write_one(path, data, len);
			free(data);
			free(path);
			next = mono_ns() + GAP_NS;
			pthread_mutex_lock(&mtx);
		}
	}
	pthread_mutex_unlock(&mtx);
	return NULL;
}

void orr_saver_submit(const char *path, char *data, size_t len)
{
	char *p = strdup(path);

	if (!p) {
		free(data);
		return;
	}
	pthread_once(&cond_once, init_cond);
	pthread_mutex_lock(&mtx);
	if (pending)
		n_coalesced++;	/* replaced before it was written */
	free(pending);
	free(pending_path);
	pending = data;
	pending_path = p;
	pending_len = len;
	if (!running) {
		stopping = false;
		if (pthread_create(&thread, NULL, saver, NULL) == 0) {
			running = true;
		} else {
			/* No thread: write here, as before. */
			static bool said;

			pending = pending_path = NULL;
			pthread_mutex_unlock(&mtx);
			if (!said)	/* once: it is retried at every save */
				error("select/orrery: cannot start the state saver thread; saving in the scheduler");
			said = true;
			write_one(p, data, len);
			free(data);
			free(p);
			return;
		}
	}
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&mtx);
}

void orr_saver_stop(void)
{
	pthread_mutex_lock(&mtx);
	if (!running) {
		pthread_mutex_unlock(&mtx);
		return;
	}
	stopping = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&mtx);
	pthread_join(thread, NULL);	/* after it wrote what was pending */
	pthread_mutex_lock(&mtx);
	running = false;
	pthread_mutex_unlock(&mtx);
}

void orr_saver_stats(uint64_t *saves, uint64_t *save_ns,
		     uint64_t *coalesced)
{
	pthread_mutex_lock(&mtx);
	*saves = n_saves;
	*save_ns = ns_saves;
	*coalesced = n_coalesced;
	pthread_mutex_unlock(&mtx);
}
