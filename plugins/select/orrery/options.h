/*
 * options.h - which of a profiled job's Slurm options orrery keeps when it
 * narrows the node bitmap, and the check that a narrowed answer means what
 * cons_tres's own answer on the full set means (doc/select-orrery.8,
 * "SLURM OPTIONS").
 */
#ifndef ORRERY_OPTIONS_H
#define ORRERY_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "compat.h"

/* Longest fallback reason kept for the job's record ("option:..."). */
#define ORR_REASON_MAX 40

/*
 * The option orrery cannot keep while narrowing (the job is then left to
 * cons_tres unchanged), as "option:NAME" (NAME as sbatch spells it:
 * contiguous, nodelist, het-job, preemption), or NULL when every option
 * the job has is kept by the answer check below.
 */
const char *orr_option_unkept(const job_record_t *job_ptr,
			      list_t *preemptee_candidates);

/* Leaf switches (topology/tree level 0) that hold a node of `nodes'. */
int orr_leaf_switch_count(bitstr_t *nodes);

/*
 * Whether `answer', cons_tres's choice on a narrowed bitmap, keeps what
 * the job's options define as cons_tres's choice `full' on the whole
 * offered set has it: the same node count (-N min-max, --spread-job,
 * --ntasks-per-node, --gpus, ...) and, with --switches=N, no more leaf
 * switches than N (or than `full' spans, once the wait is over).  false
 * with `why' filled ("node count 2, cons_tres's 4").
 */
bool orr_answer_keeps_options(const job_record_t *job_ptr, bitstr_t *full,
			      bitstr_t *answer, char *why, size_t why_len);

#endif /* ORRERY_OPTIONS_H */
