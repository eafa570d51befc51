/*
 * learn.h - learning the period inside slurmctld (select-orrery(8),
 * LEARNING THE PERIOD): a running job's measured iteration, reported by
 * its first node as the ORRM1: token of its AdminComment
 * (measure_record.h), goes to liborrery's orrery_cluster_job_measured();
 * a job modelled at its measurement has its link group re-solved and the
 * changed gates published on the live channel (channel.h).
 */
#ifndef ORRERY_LEARN_H
#define ORRERY_LEARN_H

#include <stdint.h>

#include "compat.h"
#include "orrery.h"

/* Seconds between two scans of the running jobs' reports. */
#define ORR_LEARN_SCAN_S 5
/* A job is retimed at most once in this many seconds, whatever its
 * reports say (the tasks write what the node reports: a job must not
 * make its neighbours' gates change at will). */
#define ORR_LEARN_MIN_GAP_S 60

/* One scan: every running job in c with a report newer than the last one
 * taken.  Job write lock and orr_ctld_lock held; no disk, no network. */
void orr_learn_scan_locked(orrery_cluster_t *c, double tolerance,
			   uint32_t lead_ms, const char *state_dir);
/* job_begin (also of a requeued job): a report left in its AdminComment
 * by an earlier run is removed, and what was taken from it forgotten: the
 * node's reports of this run count from 1.  Job write lock held. */
void orr_learn_job_begin_locked(job_record_t *job_ptr);
/* Reports taken, refused (malformed, or liborrery's error), and jobs
 * retimed, since the start. */
void orr_learn_stats(uint64_t *taken, uint64_t *refused, uint64_t *retimed);
void orr_learn_fini(void);

#endif
