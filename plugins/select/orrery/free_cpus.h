/*
 * free_cpus.h - which of the nodes slurmctld offers a job still have CPUs
 * enough for it, counted the way cons_tres sees them.  Inside slurmctld
 * only, under its job read (or write) lock.
 */
#ifndef ORRERY_FREE_CPUS_H
#define ORRERY_FREE_CPUS_H

#include "compat.h"

/*
 * Nodes of `offered' with at least `need' CPUs that no running or
 * suspended job of `jobs' holds (the node's effective CPUs, CoreSpecCount
 * and CpuSpecList removed, less each job's job_resrcs CPUs on it).  A new
 * bitmap of offered's size; NULL when `jobs' is NULL (no job list: not in
 * slurmctld).
 */
bitstr_t *orr_nodes_with_free_cpus(bitstr_t *offered, uint32_t need,
				   list_t *jobs);

#endif /* ORRERY_FREE_CPUS_H */
