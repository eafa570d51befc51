/*
 * gate_stats.h - the gate's own statistics per job: the runtime's
 * statistics files (orrery-runtime(7), "# orrery-runtime stats 1"),
 * summed over one node's tasks, and the ORRS1: record that carries the sum
 * into the job's AdminComment, one per node, as ORRC1: carries the
 * congestion counters (counters.h; this file sits beside it because the
 * same three programs use both: the SPANK plugin's epilog, the publisher
 * and orrery-sacct).
 *
 * Plain C, no Slurm and no GLib.  The epilog parses files the job's user
 * wrote: everything is bounded and checked, nothing is trusted.
 */
#ifndef ORRERY_GATE_STATS_H
#define ORRERY_GATE_STATS_H

#include <stddef.h>
#include <stdint.h>

#define OGS_TAG        "ORRS1:"
#define OGS_RECORD_MAX 640		/* bytes of one ORRS1: token       */
#define OGS_FILE_MAX   (16 * 1024)	/* bytes of one statistics file    */
#define OGS_FILES_MAX  4096		/* statistics files read per node  */

/* Sums over tasks (a node's files) or nodes (an AdminComment's records). */
struct ogs_totals {
	uint64_t tasks;		/* statistics files summed                 */
	uint64_t gated;		/* of them with a gate (active=1)          */
	uint64_t off;		/* gated, and the gate ended off           */
	uint64_t bad;		/* files refused (malformed, not the job's) */
	uint64_t phases, on_slot, late, missed, passthrough;
	uint64_t wait_us;	/* held by the gate, summed over tasks     */
	uint64_t max_wait_us;	/* the longest single hold                 */
	uint64_t reanchored, rearmed, disables, relocked;
	/* The job's measured iteration: the longest, over tasks and nodes,
	 * of each task's shortest work in its gate's latest window of 8
	 * iterations (a file's min_work_us=); 0: none measured. */
	uint64_t iter_us;
	/* How much it varies: the largest, over tasks and nodes, of a
	 * task's median over its windows of their longest minus shortest
	 * work (a file's range_us=); 0: none measured. */
	uint64_t range_us;
	unsigned nodes;		/* records summed (ogs_comment_sum)        */
};

/* Add one statistics file's text (NUL-terminated) to *t: tasks + 1, and
 * its counters.  0; -1 with why in err when it is not a statistics file
 * of version 1 or a value is not a plain number (*t is then unchanged). */
int ogs_stats_add(const char *text, struct ogs_totals *t, char *err,
		  size_t errlen);

/* "ORRS1:node=NAME,tasks=N,gated=G,off=K,bad=B,phases=...,on_slot=...,
 * late=...,missed=...,passthrough=...,wait_us=...,max_wait_us=...,
 * reanchored=...,rearmed=...,disables=...,relocked=...,iter_us=...,
 * range_us=...".  0, or -1 when
 * node is not a plain name or buf is too small. */
int ogs_record_format(const char *node, const struct ogs_totals *t,
		      char *buf, size_t len);

/* Parse one ORRS1: token (nodes = 1) and its node name.  1, or -1 if
 * malformed.  Unknown keys are skipped (later versions may add some). */
int ogs_record_parse(const char *token, struct ogs_totals *t, char *node,
		     size_t nodelen);

/* Sum every ORRS1: token of an AdminComment (max_wait_us: the largest).
 * The number of records summed, 0 if none, -1 if any was malformed (the
 * others are still summed). */
int ogs_comment_sum(const char *comment, struct ogs_totals *t);

/* AdminComment with this node's ORRS1: record in place of any earlier one
 * of the same node; every other token kept in order.  malloc()ed. */
char *ogs_comment_merge(const char *old, const char *node, const char *record);

#endif /* ORRERY_GATE_STATS_H */
