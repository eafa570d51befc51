/*
 * runtime_internal.h - state shared by the files of liborrery-runtime:
 *   runtime.c  environment, gate, waiting, statistics, finish
 *   record.c   record mode (the timeline file)
 *   writer.c   the writes made while running, by a thread of their own
 * One process-wide instance, guarded by rt.lock.
 */
#ifndef ORRERY_RUNTIME_INTERNAL_H
#define ORRERY_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "gate/gate.h"
#include "channel_record.h"
#include "orrery_runtime.h"

#define RT_PREFIX "orrery-runtime: "
#define RT_PATH_MAX 4096
#define RT_HOST_MAX 256

struct rt_state {
	pthread_mutex_t lock;
	int inited;
	int active;
	int verbose;
	char why[ORRERY_ERRMSG_MAX + 128]; /* why the runtime is a no-op */
	orrery_gate_t gate;       /* valid when active */
	int64_t slot_base_us;     /* epoch + phase offset + shift */
	char host[RT_HOST_MAX];
	long rank;                /* -1 if unknown */
	char stats_path[RT_PATH_MAX]; /* expanded, or "" */
	char stats_pattern[RT_PATH_MAX]; /* as given, when it has %p */
	char job_stats_dir[RT_PATH_MAX]; /* ORRERY_RUNTIME_JOB_STATS, or "" */
	char step[12];            /* SLURM_STEP_ID, or "batch" */
	uint64_t finished_phases; /* what the last finish() saw */
	uint64_t finished_records;
	int finished;
	int finish_rc;
	int64_t tick_next_us;     /* next write while running (rt_tick_locked) */
	int tick_now;             /* write at the next tick (the channel) */
	int stats_stopped;        /* a write failed: none until exit */
	/* The live channel (channel.c). */
	char chan_path[RT_PATH_MAX];  /* "" = none */
	uint32_t job_id;
	int64_t phase_offset_us;
	int64_t chan_next_us;         /* next look at the file */
	int64_t chan_mtime_ns, chan_ino, chan_size;
	uint64_t chan_seen, chan_gen; /* newest read, in force */
	int chan_pending, chan_off, chan_said;
	orrc_record_t chan_rec;       /* pending record */
	int64_t chan_rec_seen_us;     /* when this rank read it */
	uint64_t updates_received, updates_applied, late_switches;
	int64_t last_apply_us, last_pub_us;
	orrery_gate_stats_t carried;  /* counters of replaced gates */
	uint64_t chan_passthrough;    /* phases released while off by it */
	/* The caller's phase rule (orrery_runtime_phase_event). */
	int bursts_counted;           /* 0 none, 1 on, 2 stopped */
	uint64_t stalls_passed, short_periods, relocked;
	/* A forked child counts from the fork (runtime.c, at_fork_child):
	 * the gate's counters then, subtracted from what it reports. */
	int forked;
	orrery_gate_stats_t fork_base;
};

extern struct rt_state rt;

/* runtime.c: print at or above a verbosity level (takes no lock). */
void rt_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* runtime.c: a job's slots (epoch, shift, its first Up phase's offset)
 * as the gate's epoch and shift; p->period_us set. */
void rt_gate_place(orrery_gate_params_t *p, int64_t epoch, int64_t shift, int64_t offset);

/* channel.c; called with rt.lock held. */
void chan_init(void);                 /* reads ORRERY_CHANNEL */
/* A phase is ready at now_us: look for a newer record (at most every
 * 200 ms), switch when its apply-at time has come.  1 when the gate is
 * off by the channel (release at once). */
int chan_tick(int64_t now_us);
/* Counters of the gate and of the gates it replaced. */
void chan_gate_stats(orrery_gate_stats_t *out);
/* What a statistics file says, taken under rt.lock (runtime.c). */
struct rt_snap {
	orrery_runtime_stats_t s;
	int bursts_counted;
	uint64_t stalls_passed, short_periods, relocked;
};
void rt_snap_locked(struct rt_snap *out);
/* Write both statistics files from a snapshot: no lock (the writer
 * thread, or a caller holding rt.lock with the writer idle).  0 or -1. */
int rt_write_snap(const struct rt_snap *s);
/* runtime.c: is any statistics file to be written? */
int rt_has_stats(void);
/* runtime.c: a phase or a collective at now_us: at most every 2 s,
 * hand the statistics and the buffered timeline to the writer (what a
 * killed process leaves).  Lock held. */
void rt_tick_locked(int64_t now_us);

/* writer.c.  Hand a statistics snapshot and the timeline's buffered lines
 * to the writer thread: 0 handed over (or nothing to write, or written
 * here when no thread could be started), 1 the writer is still busy with
 * the last (nothing taken).  Lock held. */
int wr_submit_locked(void);
void wr_idle_locked(void);        /* wait until the writer is idle */
void wr_fork_prepare(void);       /* after rt.lock: writer idle, held */
void wr_fork_parent(void);
void wr_fork_child(void);         /* the child has no writer thread */

/* record.c; called with rt.lock held unless said. */
struct rec_entry;
struct rec_batch {                /* lines handed to the writer */
	struct rec_entry *e;
	size_t n;
	char source[16];
};
void rec_init(void);              /* reads ORRERY_RECORD* */
int rec_enabled(void);
void rec_take_locked(struct rec_batch *b); /* writer idle: swap buffers */
void rec_write_batch(const struct rec_batch *b); /* the writer's side */
int rec_finish_locked(void);      /* writer idle: the rest; 0 or -1 */
void rec_fork_prepare(void);      /* the file's buffer written out */
void rec_fork_child(void);        /* the child records to its own file */
uint64_t rec_count(void);
uint64_t rec_dropped(void);

#endif
