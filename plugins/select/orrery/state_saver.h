/*
 * state_saver.h - orrery_state written by a thread of its own, off
 * slurmctld's scheduling path.
 *
 * Why: orrery_state is saved at every job start and end, and a durable
 * save (two fsyncs) took 15 ms on the CI machine's disk; inside
 * job_begin that held slurmctld's job write lock, and a 400-job burst
 * spent 12 s of its 22 s there (main scheduler cycles 9x cons_tres's).
 * Now job_begin/job_fini serialise the model in memory under the plugin's
 * lock and hand the text over; this thread writes the newest text it has
 * (older ones it had not reached are skipped: each text is the whole
 * state).  A kill -9 can lose the last milliseconds of saves: the jobs
 * they held are rebuilt from their ORR1: records at the next start
 * (recover.h), and ended ones dropped (reconcile).
 */
#ifndef ORRERY_STATE_SAVER_H
#define ORRERY_STATE_SAVER_H

#include <stddef.h>
#include <stdint.h>

/* Queue `data' (malloc()ed, taken over) for `path'; starts the thread on
 * first use.  Never waits for the disk. */
void orr_saver_submit(const char *path, char *data, size_t len);

/* Write what is queued and stop the thread (plugin fini: waits). */
void orr_saver_stop(void);

/* Saves written, and their wall time in ns (for the counters line). */
void orr_saver_stats(uint64_t *saves, uint64_t *save_ns);

#endif
