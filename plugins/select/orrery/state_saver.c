/*
 * state_saver.c - the orrery_state writer thread (state_saver.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pthread_setname_np */
#endif
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

/* At most one save per ORR_SAVER_GAP_MS (state_saver.h) of each file:
 * saves still land within that of a change, and a burst of job starts
 * costs a few fsyncs a second instead of one per job. */
#define GAP_NS ((uint64_t) ORR_SAVER_GAP_MS * 1000000u)

/* One slot per file (orrery_state, orrery_channel): the newest text not
 * yet written (a newer text for the same path replaces it), when the
 * file may be written next, and its failed saves in a row (one file's
 * success must not end the other's silence). */
#define SAVER_SLOTS 4
static struct {
	char *path;		/* kept once used */
	char *data;		/* NULL: nothing pending */
	size_t len;
	uint64_t next;		/* mono_ns() */
	uint64_t failing;
	orr_saver_done_fn done;	/* with data: called once it is on disk */
	uint64_t ticket;
	orr_saver_produce_fn produce;	/* no data: make it when writing */
} slot[SAVER_SLOTS];

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;	/* CLOCK_MONOTONIC: init_cond() */
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static pthread_t thread;
static bool running, stopping;
static uint64_t n_saves, ns_saves, n_coalesced;

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

/* One save of slot i, outside `mtx'.  A failing save (full disk) is
 * logged once per file, and again when saving works again. */
static int write_one(int i, const char *path, const char *data, size_t len)
{
	orrery_error_t err = { 0 };
	uint64_t t0 = mono_ns();
	int rc = orrery_state_write(path, data, len, &err);

	pthread_mutex_lock(&mtx);
	n_saves++;
	ns_saves += mono_ns() - t0;
	if (rc) {
		if (!slot[i].failing++)
			error("select/orrery: cannot save %s: %s (not logged again until a save succeeds)",
			      path, err.message);
	} else {
		if (slot[i].failing)
			info("select/orrery: saved %s again after %"PRIu64" failed saves",
			     path, slot[i].failing);
		slot[i].failing = 0;
	}
	pthread_mutex_unlock(&mtx);
	return rc;
}

/* A pending slot that may be written now (-1: none); *wait: the earliest
 * time one may, when some are pending (0 otherwise). */
static int ready_slot(uint64_t now, uint64_t *wait)
{
	*wait = 0;
	for (int i = 0; i < SAVER_SLOTS; i++) {
		if (!slot[i].data && !slot[i].produce)
			continue;
		if (stopping || now >= slot[i].next)
			return i;
		if (!*wait || slot[i].next < *wait)
			*wait = slot[i].next;
	}
	return -1;
}

static void *saver(void *arg)
{
	(void) arg;
	pthread_mutex_lock(&mtx);
	for (;;) {
		uint64_t wait;
		int i = ready_slot(mono_ns(), &wait);

		if (i < 0) {
			if (!wait) {
				if (stopping)
					break;	/* nothing left */
				pthread_cond_wait(&cond, &mtx);
			} else {
				/* Too soon after that file's last save: newer
				 * texts replace this one until the gap is
				 * over; a stop writes at once. */
				struct timespec ts = {
					.tv_sec = wait / 1000000000u,
					.tv_nsec = wait % 1000000000u,
				};

				pthread_cond_timedwait(&cond, &mtx, &ts);
			}
			continue;
		}
		{
			char *data = slot[i].data, *path = strdup(slot[i].path);
			size_t len = slot[i].len;
			orr_saver_done_fn done = slot[i].done;
			orr_saver_produce_fn produce = slot[i].produce;
			uint64_t ticket = slot[i].ticket;

			slot[i].data = NULL;
			slot[i].done = NULL;
			slot[i].produce = NULL;
			pthread_mutex_unlock(&mtx);
			/* Made now, outside mtx: the text is the newest
			 * state, and a change after this call marks the
			 * slot again. */
			if (!data && produce && produce(&data, &len))
				data = NULL;	/* said by produce */
			if (path && data && !write_one(i, path, data, len) && done)
				done(ticket);	/* on disk: may take other locks */
			free(data);
			free(path);
			pthread_mutex_lock(&mtx);
			slot[i].next = mono_ns() + GAP_NS;
		}
	}
	pthread_mutex_unlock(&mtx);
	return NULL;
}

void orr_saver_submit(const char *path, char *data, size_t len)
{
	orr_saver_submit_ticket(path, data, len, NULL, 0);
}

/* 0: queued (or written here); -1: a deferred text that could not be
 * queued, the caller writes it. */
static int submit(const char *path, char *data, size_t len,
		  orr_saver_done_fn done, uint64_t ticket,
		  orr_saver_produce_fn produce)
{
	int i;

	pthread_once(&cond_once, init_cond);
	pthread_mutex_lock(&mtx);
	for (i = 0; i < SAVER_SLOTS; i++)
		if (slot[i].path && !strcmp(slot[i].path, path))
			break;
	if (i == SAVER_SLOTS) {
		for (i = 0; i < SAVER_SLOTS && slot[i].path; i++)
			;
		if (i == SAVER_SLOTS || !(slot[i].path = strdup(path))) {
			pthread_mutex_unlock(&mtx);
			error("select/orrery: cannot queue %s for saving (more than %d files, or no memory)",
			      path, SAVER_SLOTS);
			free(data);
			return 0;
		}
	}
	if (slot[i].data || slot[i].produce)
		n_coalesced++;	/* replaced before it was written */
	free(slot[i].data);
	slot[i].data = data;
	slot[i].len = len;
	slot[i].done = done;
	slot[i].ticket = ticket;
	slot[i].produce = data ? NULL : produce;
	if (!running) {
		stopping = false;
		if (pthread_create(&thread, NULL, saver, NULL) == 0) {
			running = true;
			/* Else it inherits its creator's name (sched_agent):
			 * top -H and /proc would show two schedulers. */
			pthread_setname_np(thread, "orr_saver");
		} else {
			/* No thread: write here, as before. */
			static bool said;
			char *p = strdup(slot[i].path);

			slot[i].data = NULL;
			slot[i].done = NULL;
			slot[i].produce = NULL;
			pthread_mutex_unlock(&mtx);
			if (!said)	/* once: it is retried at every save */
				error("select/orrery: cannot start the state saver thread; saving in the scheduler");
			said = true;
			/* The caller holds what produce() takes: it
			 * makes the text itself. */
			if (!data) {
				free(p);
				return -1;
			}
			/* done() is not called here: the caller holds locks
			 * it may take.  Its records wait for a saver thread
			 * (the next submit tries to start one again). */
			if (p)
				write_one(i, p, data, len);
			free(data);
			free(p);
			return 0;
		}
	}
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&mtx);
	return 0;
}

void orr_saver_submit_ticket(const char *path, char *data, size_t len,
			     orr_saver_done_fn done, uint64_t ticket)
{
	(void) submit(path, data, len, done, ticket, NULL);
}

int orr_saver_submit_deferred(const char *path, orr_saver_produce_fn produce)
{
	return submit(path, NULL, 0, NULL, 0, produce);
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
