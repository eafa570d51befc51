/*
 * recover.h - running jobs put back into the cluster model from
 * slurmctld's own records (each job's ORR1: AdminComment record and its
 * node bitmap), for when orrery_state is missing, corrupt, of a foreign
 * version or older than Slurm's job state.  doc/select-orrery.8, RESTARTS.
 */
#ifndef ORRERY_RECOVER_H
#define ORRERY_RECOVER_H

#include <stddef.h>
#include <stdint.h>

#include "orrery.h"

typedef struct orr_recover_result {
	size_t recovered;	/* jobs added to the model */
	size_t failed;		/* jobs with an ORR1: record not added */
	char first_failure[192];	/* "JobId=N: why" of the first one */
} orr_recover_result_t;

/*
 * Add every running or suspended job of `jobs' (slurmctld's job_list)
 * that carries an ORR1: record and that the model does not hold yet.
 * slurm2orr maps slurmctld node indices (< slurm_nodes) to model nodes
 * (-1: not in the switch tree).  When the model holds no job at all
 * (adopt_epoch), the model takes the epoch most of the records share, so
 * the jobs' gates (which keep their launch-time epoch) stay in their
 * slots; records of another epoch have their shift moved onto it.
 * Caller holds slurmctld's job read lock.
 */
void orr_recover_jobs(orrery_cluster_t *c, void *jobs, const long *slurm2orr,
		      int slurm_nodes, int adopt_epoch,
		      orr_recover_result_t *res);

/* Shift of a record made at epoch `from' expressed against epoch `to':
 * the same instants modulo the period.  Slurm-free, unit-tested. */
int64_t orr_recover_rebase_shift(int64_t shift_us, int64_t period_us,
				 int64_t from_epoch_us, int64_t to_epoch_us);

#endif
