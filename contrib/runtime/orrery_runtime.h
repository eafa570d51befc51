/*
 * orrery_runtime.h - the job-side runtime of orrery (liborrery-runtime).
 *
 * A training process calls orrery_runtime_wait_for_slot() before the first
 * communication of each iteration; the runtime holds it until the job's
 * next slot (orrery-runtime(7)):
 *
 *     slot_k = EPOCH + PHASE_OFFSET + SHIFT + k * PERIOD
 *
 * Everything comes from the environment the SPANK plugin sets
 * (orrery-env(7)).  A process without those variables gets a no-op
 * runtime: every call succeeds and nothing waits.  A job never fails
 * because of the runtime.
 *
 * Plain C, no C++ runtime, no liborrery: safe to load into any training
 * process (directly, through ctypes, or under the NCCL interposer
 * liborrery-nccl.so, which shares this one runtime per process).
 * Thread-safe: every call may be made from any thread.
 * Times are CLOCK_REALTIME microseconds since the Unix epoch.
 */
#ifndef ORRERY_RUNTIME_H
#define ORRERY_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORRERY_RUNTIME_API_VERSION 1

/* Counters of the gate since init (copied from the gate policy, see
 * orrery-runtime(7)), the parameters in force, and record-mode counts.
 * Fixed-width fields only, so ctypes mirrors it easily. */
typedef struct orrery_runtime_stats {
	uint64_t phases;         /* phases that asked the gate             */
	uint64_t on_slot;        /* released on a slot (waited or exact)   */
	uint64_t late;           /* released within the tolerance, late    */
	uint64_t missed;         /* missed a slot, waited for the next     */
	uint64_t passthrough;    /* released ungated while the gate is off */
	int64_t total_wait_us;
	int64_t max_wait_us;
	int64_t total_late_us;   /* drift absorbed by the tolerance        */
	int64_t period_us;       /* 0 for a no-op runtime                  */
	int64_t slot_base_us;    /* EPOCH + PHASE_OFFSET + SHIFT           */
	uint64_t recorded;       /* record mode: collectives written       */
	uint64_t record_dropped; /* record mode: over the line limit       */
	int32_t active;          /* 1 if gating, 0 for a no-op runtime     */
	int32_t disabled;        /* 1 while the gate is off                */
	uint64_t reanchored;     /* re-anchored to the measured iteration  */
	uint64_t rearmed;        /* back on the grid, or on again          */
	uint64_t disables;       /* turned itself off                      */
	int64_t period_now_us;   /* period in force now (0 while off)      */
	int64_t measured_us;     /* measured work per iteration (mean)     */
	int32_t mode;            /* 0 grid, 1 anchored, 2 off (orrery.h)   */
	int32_t reserved;
	/* The live channel (ORRERY_CHANNEL): records of a newer generation
	 * read, and switched to; switches made after the record's apply-at
	 * time had passed (the record reached this rank late). */
	uint64_t updates_received;
	uint64_t updates_applied;
	uint64_t late_switches;
	uint64_t channel_gen;    /* generation in force, 0 = launch values */
	int64_t last_apply_us;   /* when this rank switched last           */
	int64_t last_pub_us;     /* when the controller published that one */
	int32_t channel_gate;    /* -1 no channel, 1 on, 0 off by channel  */
	int32_t reserved2;
	/* The gate's measure of the job's own work per iteration (waits
	 * excluded), over windows of 8 iterations: the shortest of the
	 * latest window, and the longest minus the shortest, the median over
	 * the latest windows (orrery.h, orrery_gate_stats_t); 0 before a
	 * window has completed. */
	int64_t min_work_us;
	int64_t range_us;
} orrery_runtime_stats_t;

/* Read the environment (idempotent; later calls return the first answer).
 * Returns 1 if gating is active, 0 for a no-op runtime (variables absent
 * or invalid, or ORRERY_GATE=off: one stderr line says why at
 * ORRERY_RUNTIME_VERBOSE >= 1).  Never fails.  Registers finish() with
 * atexit(). */
int orrery_runtime_init(void);
int orrery_runtime_active(void);

/* Block until the gate releases this phase (calls init if needed).
 * Returns the microseconds waited; 0 at once for a no-op runtime. */
int64_t orrery_runtime_wait_for_slot(void);

/* The gate's decision for a phase ready at now_us, without sleeping: the
 * time to release it (>= now_us).  Counts in the statistics like
 * wait_for_slot().  A no-op runtime returns now_us. */
int64_t orrery_runtime_release_at(int64_t now_us);

/* What a caller's phase rule did (the NCCL interposer's, orrery-runtime(7)
 * Phase rule), for the statistics file: bursts_counted=, stalls_passed=,
 * short_periods=, relocked=.  Unknown events are ignored.  Counting events only:
 * nothing here changes the gate. */
enum orrery_runtime_phase_event {
	ORRERY_RUNTIME_PHASES_COUNTED = 1, /* bursts counted from a list   */
	ORRERY_RUNTIME_PHASE_STALL,        /* a late burst passed, stalled */
	ORRERY_RUNTIME_PHASE_SHORT,        /* gated before the period's
					    * other bursts were seen      */
	ORRERY_RUNTIME_PHASES_STOPPED,     /* the list is not the job's:
					    * counting stopped            */
	ORRERY_RUNTIME_PHASE_RELOCK,       /* a moved gate holds the first
					    * burst again                 */
};
void orrery_runtime_phase_event(int event);

/* Current CLOCK_REALTIME in microseconds (the clock of the slots). */
int64_t orrery_runtime_now_us(void);

void orrery_runtime_stats(orrery_runtime_stats_t *out);

/* Write the statistics file (ORRERY_RUNTIME_STATS, key=value lines,
 * written to a temporary name and renamed), print a summary line on
 * stderr at verbose >= 1 and flush the record-mode timeline.  Called by
 * atexit(); calling it earlier is fine (the exit call then only rewrites
 * the files).  0 on success, -1 if a file could not be written (the
 * reason is printed on stderr at verbose >= 1). */
int orrery_runtime_finish(void);

/* Record mode (ORRERY_RECORD=PREFIX, orrery-timeline(5)): one line per
 * collective in PREFIX.<host>.<pid>.timeline.  comm: a short id of the
 * communicator (at most 31 characters kept); op: allreduce, allgather,
 * reducescatter, broadcast, reduce, send, recv or alltoall.  Returns 1
 * if recorded, 0 if record mode is off or the line limit was reached,
 * -1 on bad arguments. */
int orrery_runtime_record(int64_t start_us, int64_t end_us, uint64_t bytes,
			  const char *comm, const char *op);
/* Who records: "nccl" (the interposer), "torch", "fake" (tests).  Must be
 * called before the first record; the default is "app". */
int orrery_runtime_set_source(const char *source);
/* 1 if ORRERY_RECORD is set (and init has run). */
int orrery_runtime_recording(void);

#ifdef __cplusplus
}
#endif

#endif /* ORRERY_RUNTIME_H */
