/*
 * runtime_internal.h - state shared by the files of liborrery-runtime:
 *   runtime.c  environment, gate, waiting, statistics, finish
 *   record.c   record mode (the timeline file)
 * One process-wide instance, guarded by rt.lock.
 */
#ifndef ORRERY_RUNTIME_INTERNAL_H
#define ORRERY_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "gate/gate.h"
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
	uint64_t finished_phases; /* what the last finish() saw */
	uint64_t finished_records;
	int finished;
	int finish_rc;
};

extern struct rt_state rt;

/* runtime.c: print at or above a verbosity level (takes no lock). */
void rt_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* record.c; all called with rt.lock held. */
void rec_init(void);              /* reads ORRERY_RECORD* */
int rec_enabled(void);
int rec_flush(int final);         /* 0, or -1 (logged) */
uint64_t rec_count(void);
uint64_t rec_dropped(void);

#endif
