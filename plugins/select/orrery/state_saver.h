/*
 * state_saver.h - orrery_state written by a thread of its own, off
 * slurmctld's scheduling path.
 *
 * Why: orrery_state is saved at every job start and end, and a durable
 * save (two fsyncs) took 15 ms on the CI machine's disk; inside
 * job_begin that held slurmctld's job write lock, and a 400-job burst
 * spent 12 s of its 22 s there (main scheduler cycles 9x cons_tres's).
 * Now job_begin/job_fini mark the state changed and this thread
 * serialises the model when it writes (orr_saver_submit_deferred; other
 * callers hand a text over), at most one save per ORR_SAVER_GAP_MS: a
 * 1,000-job burst made 751 saves of 24 ms each (18 s of fsyncs in 35 s)
 * when every change was written, and the disk they kept busy slowed
 * slurmctld's own writes.
 * A kill -9 can lose the last ORR_SAVER_GAP_MS of changes: the jobs
 * they held are rebuilt from their ORR1: records at the next start
 * (recover.h), and ended ones dropped (reconcile).
 */
#ifndef ORRERY_STATE_SAVER_H
#define ORRERY_STATE_SAVER_H

#include <stddef.h>
#include <stdint.h>

/* Least time between two saves (ms); a change waits at most this long
 * (plus the save itself) to reach the disk. */
#define ORR_SAVER_GAP_MS 250

/* Queue `data' (malloc()ed, taken over) for `path' (replacing an older
 * text queued for the same path; up to 4 paths, each with its own gap:
 * orrery_state and the live channel's orrery_channel); starts the thread
 * on first use.  Never waits for the disk. */
void orr_saver_submit(const char *path, char *data, size_t len);

/* The same, and once a text at least as new as this one is on disk
 * (written and fsynced), done(ticket) is called from the saver thread
 * with no lock of the saver's held (a newer text replacing this one
 * before it was written carries its own ticket, which covers this one).
 * Not called for a failed save: the next submit for the path tries
 * again.  The live channel publishes only what is on disk (channel.h). */
typedef void (*orr_saver_done_fn)(uint64_t ticket);
void orr_saver_submit_ticket(const char *path, char *data, size_t len,
			     orr_saver_done_fn done, uint64_t ticket);

/* Mark `path' changed; the saver thread makes its text with produce()
 * (0: *data malloc()ed, taken over) when the file's gap is over, so that
 * a burst of changes costs one text per save instead of one per change
 * (the scheduler serialised the whole model at every job start and end,
 * and threw nine texts in ten away).  produce() runs in the saver thread
 * with no lock of the saver's held, and may take the plugin's own lock:
 * whoever holds that lock must not call orr_saver_stop() (submit the
 * text itself first, or release the lock). */
typedef int (*orr_saver_produce_fn)(char **data, size_t *len);
/* 0: queued; -1: no saver thread could be started, the caller writes
 * the text itself (as orr_saver_submit then does). */
int orr_saver_submit_deferred(const char *path, orr_saver_produce_fn produce);

/* Write what is queued and stop the thread (plugin fini: waits; never
 * with a lock that a deferred text's produce() takes). */
void orr_saver_stop(void);

/* Saves written, their wall time in ns, and texts replaced by a newer
 * one before they were written (for the counters line). */
void orr_saver_stats(uint64_t *saves, uint64_t *save_ns,
		     uint64_t *coalesced);

#endif
