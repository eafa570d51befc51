/*
 * writer.c - the writes made while a process runs, off the gate's path.
 *
 * Every 2 s a gating or recording process rewrites its statistics files
 * and appends its timeline's buffered lines (rt_tick_locked), so that a
 * killed process leaves what it had done.  Those writes used to run in
 * the thread whose phase came due, under rt.lock, before its slot wait:
 * a slow or stalled file system (a user's ORRERY_RUNTIME_STATS or
 * ORRERY_RECORD on NFS) then delayed that release, and held every other
 * thread's phases behind the lock.  Here the phase only copies what is to
 * be written (a statistics snapshot, and the timeline's buffer swapped
 * for an empty one) and hands it to one writer thread, started at the
 * first hand-over.  While the writer is still busy with the last hand-over
 * nothing new is queued: the next phase tries again, so a stalled file
 * system costs the gate nothing and the files catch up when it recovers.
 *
 * Who touches what: a hand-over is made under rt.lock while the writer is
 * idle; the writer then owns the job (snapshot, lines, the timeline's
 * FILE) until it marks itself idle, and never takes rt.lock.  finish(),
 * fork() and a full timeline buffer wait for the writer to be idle
 * (wr_idle_locked) before they write themselves, as they did before this
 * thread, so the last file written is the newest.  If the thread cannot
 * be started, the hand-over is written at once in the calling thread
 * (the behaviour before it), and one line says so.
 */
#define _GNU_SOURCE	/* pthread_setname_np */
#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "runtime_internal.h"

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work;      /* a job was queued */
	pthread_cond_t idle;      /* the writer finished one */
	pthread_t thread;
	int started;              /* 1 running, -1 could not be started */
	int queued, busy;
	/* the job, owned by the writer from queued until !busy */
	int has_stats;
	struct rt_snap snap;
	struct rec_batch lines;
	/* its outcome, read at the next hand-over */
	int stats_rc;
} w = { .mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER };

static int run_job(void)
{
	int rc = 0;

	rec_write_batch(&w.lines);
	if (w.has_stats)
		rc = rt_write_snap(&w.snap);
	return rc;
}

static void *writer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&w.mu);
	for (;;) {
		int rc;

		while (!w.queued)
			pthread_cond_wait(&w.work, &w.mu);
		w.queued = 0;
		w.busy = 1;
		pthread_mutex_unlock(&w.mu);
		rc = run_job();
		pthread_mutex_lock(&w.mu);
		w.stats_rc = rc;
		w.busy = 0;
		pthread_cond_broadcast(&w.idle);
	}
	return NULL;
}

/* w.mu held.  Signals go to the application's threads, never to ours. */
static int start_locked(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int err;

	if (w.started)
		return w.started > 0 ? 0 : -1;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&w.thread, &attr, writer_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		w.started = -1;
		rt_log(1, RT_PREFIX "no writer thread (%s): statistics and timeline written by the gated threads",
		       strerror(err));
		return -1;
	}
	pthread_setname_np(w.thread, "orrery-writer");
	w.started = 1;
	return 0;
}

/* w.mu held, writer idle: what the last job found. */
static void take_outcome_locked(void)
{
	if (w.stats_rc < 0 && !rt.stats_stopped) {
		rt.stats_stopped = 1;
		rt_log(1, RT_PREFIX "statistics not rewritten while running from now on; tried again at exit");
	}
	w.stats_rc = 0;
}

int wr_submit_locked(void)
{
	pthread_mutex_lock(&w.mu);
	if (w.queued || w.busy) {
		pthread_mutex_unlock(&w.mu);
		return 1;
	}
	take_outcome_locked();
	w.has_stats = rt_has_stats() && !rt.stats_stopped;
	if (w.has_stats)
		rt_snap_locked(&w.snap);
	rec_take_locked(&w.lines);
	if (!w.has_stats && !w.lines.n) {
		pthread_mutex_unlock(&w.mu);
		return 0;
	}
	if (start_locked() < 0) {
		w.stats_rc = run_job();
		take_outcome_locked();
		pthread_mutex_unlock(&w.mu);
		return 0;
	}
	w.queued = 1;
	pthread_cond_signal(&w.work);
	pthread_mutex_unlock(&w.mu);
	return 0;
}

/* w.mu held: until the writer has nothing in hand. */
static void wait_idle(void)
{
	while (w.queued || w.busy)
		pthread_cond_wait(&w.idle, &w.mu);
}

/* rt.lock held, so no new job can be queued while this waits. */
void wr_idle_locked(void)
{
	pthread_mutex_lock(&w.mu);
	wait_idle();
	take_outcome_locked();
	pthread_mutex_unlock(&w.mu);
}

/* fork(): the child must not inherit a write half done (the timeline's
 * FILE buffer, a statistics file's temporary name).  The parent waits for
 * the writer and keeps w.mu across the fork; the child, which has no
 * writer thread, starts its own at its first hand-over. */
void wr_fork_prepare(void)
{
	pthread_mutex_lock(&w.mu);
	wait_idle();
}

void wr_fork_parent(void)
{
	pthread_mutex_unlock(&w.mu);
}

void wr_fork_child(void)
{
	/* This thread holds w.mu (wr_fork_prepare); the writer the conditions
	 * knew of does not exist here. */
	pthread_mutex_unlock(&w.mu);
	pthread_cond_init(&w.work, NULL);
	pthread_cond_init(&w.idle, NULL);
	w.started = 0;
	w.queued = w.busy = 0;
	w.stats_rc = 0;
}
