/*
 * hostlist_slurm.h - hostlist expressions through libslurm.
 *
 * liborrery never expands "node[001-016]" by itself: it takes an
 * orrery_hostlist_fn.  This adapter implements one over libslurm's public
 * slurm_hostlist_* calls, so orrery-query and the tests read topology.conf
 * exactly the way Slurm does.  Built without libslurm, it accepts plain
 * comma-separated names only and says so.
 */
#ifndef ORRERY_HOSTLIST_SLURM_H
#define ORRERY_HOSTLIST_SLURM_H

#include <stddef.h>

/* Most hosts one expression may expand to (guards against "n[1-999999999]"). */
#define HOSTLIST_SLURM_MAX_HOSTS 1000000

/* An orrery_hostlist_fn: ctx is unused (may be NULL). */
int hostlist_slurm_expand(const char *expr, void *ctx,
			  void (*emit)(const char *host, void *ectx),
			  void *ectx);

/* "node001,node002,gpu7" -> "node[001-002],gpu7"; malloc()ed, NULL on
 * allocation failure.  Without libslurm: the names joined with commas. */
char *hostlist_slurm_compress(const char *const *names, size_t n);

/* 1 if built with libslurm. */
int hostlist_slurm_available(void);

#endif
