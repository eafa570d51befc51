/*
 * orrery_ctld.h - what select/orrery_cons_tres does inside slurmctld on
 * top of cons_tres.  Called only in slurmctld (running_in_slurmctld()),
 * with slurmctld's job/node locks held by the caller.  None of these
 * functions fails: every error is logged once and the job gets plain
 * cons_tres.
 */
#ifndef ORRERY_CTLD_H
#define ORRERY_CTLD_H

#include "compat.h"

/* orrery_job_test_args_t: compat.h (its fields differ by release). */

void orrery_ctld_init(void);
void orrery_ctld_fini(void);
void orrery_ctld_reconfigure(void);
/* select_p_state_save: counters and orrery_state written, synchronously. */
void orrery_ctld_state_save(void);
void orrery_ctld_topology_changed(void);
/* Allocations changed outside job_begin/job_fini (suspend, resume, node
 * resources): cached rankings and cons_tres answers are stale. */
void orrery_ctld_state_changed(void);
void orrery_ctld_job_init(list_t *job_list);
int orrery_ctld_job_test(orrery_job_test_args_t *a);
void orrery_ctld_job_begin(job_record_t *job_ptr);
void orrery_ctld_job_fini(job_record_t *job_ptr);

#endif /* ORRERY_CTLD_H */
