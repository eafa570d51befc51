/*
 * channel.h - the live channel, controller side (select-orrery(8),
 * CHANNEL): after a job begins or ends, the link groups are re-solved
 * (liborrery's orrery_cluster_realign, which also decides each group's
 * mode: rotate, divide or share) and every running job whose gate
 * changed gets a new ORRG1: record (channel_record.h) in its
 * AdminComment, with the next generation number and an apply-at time
 * `channel_lead_ms' ahead on its old slot grid.  What changes a gate:
 * its last neighbour left (off), its group is better ungated (share:
 * off), time division (the group's common period and the job's slot),
 * or the end of it (back on at its own period and the shift the model
 * holds for it).  Under rotation a running job's shift is never moved:
 * a newcomer is shifted against the running jobs at its job_begin, as
 * before, so a gate that was off comes back on at the shift the model
 * kept for it.  The SPANK plugin's
 * node-side poller copies it into a root-owned file the job's tasks read.
 *
 * Why AdminComment: only operators and SlurmUser may set it (Slurm checks
 * validate_super_user() in update_job), so no user, the job's own
 * included, can write a job's gate through the channel; Slurm saves it
 * with the job.
 *
 * Persist, then publish: a decided record is written to orrery_channel
 * (StateSaveLocation) by the saver thread first, and only once that is
 * on disk does the saver thread put it into AdminComment (taking the job
 * write lock itself).  A job can therefore see only generations that
 * survive a kill -9: after a restart the controller serves, for every
 * job, a record at least as new as the job's, and the next generation it
 * gives has never been seen with other values.  A record decided but
 * not yet on disk at the kill was seen by nobody; the resync after the
 * start (orr_channel_resync_locked) decides it again from the model.
 *
 * All calls with the plugin's lock and slurmctld's job write lock held;
 * none blocks on the disk or the network, none fails the job.
 */
#ifndef ORRERY_CHANNEL_H
#define ORRERY_CHANNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "compat.h"	/* list_t on every release; slurmctld.h */
#include "orrery.h"

/* Before a job is added to or removed from c: after a (re)start, note
 * the link groups as they are, so that the change re-solves only the
 * groups it touches. */
void orr_channel_before_locked(orrery_cluster_t *c, uint32_t lead_ms);
/* `job_id' began (begun = 1) or ended: re-solve and publish.  The
 * newcomer is published to only when it is in a link group and its gate
 * differs from its launch values.  lead_ms 0: the channel is off. */
void orr_channel_changed_locked(orrery_cluster_t *c, uint32_t job_id,
				int begun, uint32_t lead_ms,
				const char *state_dir);
/* After a start (and its job_init): every link group re-solved and
 * compared with what the controller serves, so that an update decided
 * but not on disk when slurmctld died, or a neighbour that ended while it
 * was down, still reaches the jobs.  Called by the plugin's thread
 * (orrery_ctld.c) with slurmctld's job write lock and orr_ctld_lock. */
void orr_channel_resync_locked(orrery_cluster_t *c, uint32_t lead_ms,
			       const char *state_dir);
/* A node's report of the job's measured iteration (learn.c) rewrites the
 * whole AdminComment from what the node last read: a record published
 * between that read and the update is lost from the comment.  Put the
 * token the controller serves for the job back if the comment's differs;
 * true when it was put back.  Job write lock and orr_ctld_lock held. */
bool orr_channel_reassert_locked(job_record_t *job_ptr);
/* slurmctld start: records of orrery_channel newer than a running job's
 * own ORRG1: token are put back into its AdminComment (one line).  A
 * missing file is a first start; an unreadable or malformed one is said
 * in one line and ignored (the jobs keep what AdminComment says). */
void orr_channel_job_init(list_t *job_list, const char *state_dir);
/* Before the saver is stopped at fini: records reaching the disk from
 * now on are not published (the next start puts them back). */
void orr_channel_closing(void);
void orr_channel_fini(void);
/* Records published (in AdminComment), decided, re-solves done and their
 * wall time (ns), and the decision-to-AdminComment time summed (ns). */
void orr_channel_stats(uint64_t *published, uint64_t *decided,
		       uint64_t *realigns, uint64_t *realign_ns,
		       uint64_t *durable_ns);

#endif
