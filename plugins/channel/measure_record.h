/*
 * measure_record.h - the live channel's way back: a running job's measured
 * iteration, from the job's first node to slurmctld (select-orrery(8) and
 * spank-orrery(8), LEARNING THE PERIOD).
 *
 * Token, in the job's AdminComment, which only operators, SlurmUser and
 * root may set (slurmctld's update_job checks validate_super_user()): the
 * node's root-run poller writes it, no user can:
 *   ORRM1:seq=N,iter_us=A[:B[:C[:D]]]
 * seq counts the node's reports for the job (1, 2, ...): the controller
 * takes a report once, when its seq is above the last one it took.
 * iter_us: the job's measured iteration in the windows of 8 iterations
 * since the node's last report, oldest first, at most
 * ORRM_MAX_WINDOWS: each the gate's shortest work in its window, the
 * longest over the node's tasks (orrery-runtime(7) min_work_us).  The
 * controller gives each to liborrery's orrery_cluster_job_measured(),
 * whose rule (the shortest of the latest four) decides.  Plain C, no
 * Slurm.
 */
#ifndef ORRERY_MEASURE_RECORD_H
#define ORRERY_MEASURE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define ORRM_TAG "ORRM1:"
/* A measured iteration outside (0, ORRM_ITER_MAX_US] is refused: an hour
 * is longer than any period liborrery models. */
#define ORRM_ITER_MAX_US 3600000000LL

#define ORRM_MAX_WINDOWS 4

typedef struct orrm_record {
	uint64_t seq;		/* >= 1 */
	unsigned n;		/* 1 .. ORRM_MAX_WINDOWS */
	int64_t iter_us[ORRM_MAX_WINDOWS];	/* each 1 .. ORRM_ITER_MAX_US */
} orrm_record_t;

/* "ORRM1:seq=N,iter_us=A:B..." into out; -1 if r is invalid or it does
 * not fit. */
int orrm_format_token(const orrm_record_t *r, char *out, size_t len);
/* Find the ORRM1: token among the space-separated tokens of a comment:
 * 1 found and valid, 0 none, -1 malformed (why filled: two tokens, a
 * missing, repeated or unknown key, a value that is not a plain number in
 * range). */
int orrm_parse_comment(const char *comment, orrm_record_t *r, char *why,
		       size_t whylen);

#endif
