/*
 * compat.h - everything in select/orrery_cons_tres that differs between
 * Slurm releases, behind one small interface.
 *
 * The plugin's release-neutral code (orrery_ctld and the files around it)
 * uses Slurm only through what every supported release has alike: job and
 * node records, bitstrings, lists, logging, xmalloc.  What differs lives in
 * one file per release, chosen by configure (SLURM_RELEASE):
 *   compat_2205.c   Slurm 22.05 (Debian 12)
 *   compat_2411.c   Slurm 24.11 (Debian 13)
 * Each one holds the plugin's Slurm-facing entry points (identity symbols,
 * the ops table of cons_tres, the select_p_* whose signatures are that
 * release's own, job_test among them) and the reader of the switch tree;
 * the entry points alike in both releases come from compat_forward.h,
 * which each includes.  Adding a release is
 * one new compat_MMmm.c (and a line in configure.ac); the few header paths
 * that moved are the only release test outside those files (below).
 */
#ifndef ORRERY_COMPAT_H
#define ORRERY_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm/slurm.h"
#include "slurm/slurm_version.h"

/* Headers that moved: src/common/{select,slurm_topology}.h became
 * src/interfaces/ in 23.02; List/ListIterator became list_t/list_itr_t in
 * 23.02 (the neutral code is written with the new names). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#include "src/interfaces/select.h"
/* bitstring.c keeps it private from 23.02 on; the layout (magic, size,
 * then the words) is unchanged through 24.11. */
#ifndef BITSTR_OVERHEAD
#define BITSTR_OVERHEAD 2
#endif
#else
#include "src/common/list.h"
#include "src/common/select.h"
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
#endif
#include "src/common/bitstring.h"
#include "src/slurmctld/slurmctld.h"

/* One switch of the cluster's tree, as the topology plugin knows it. */
typedef struct orr_switch {
	const char *name;
	int level;		/* 0: leaf (has nodes) */
	int parent;		/* index into the table, -1 for a root */
	uint32_t link_speed;	/* topology.conf LinkSpeed; 1 = not given */
	bitstr_t *node_bitmap;	/* leaves: their nodes (node_record_table
				 * indices); NULL above the leaves */
} orr_switch_t;

typedef struct orr_switches {
	orr_switch_t *sw;
	int count;
	int levels;		/* highest level + 1 */
	void *priv;		/* the release's own copy, freed with it */
} orr_switches_t;

/*
 * The switch tree of the running topology plugin.  0 with *out filled
 * (free with orr_compat_switches_free), or -1 with why[] saying what the
 * configured topology is and why orrery cannot read it (no tree, an
 * unsupported TopologyPlugin); the caller logs it once and falls back.
 */
int orr_compat_switches(orr_switches_t *out, char *why, size_t why_len);
void orr_compat_switches_free(orr_switches_t *s);

/*
 * job_test as cons_tres is called in this release.  The release-neutral
 * code sees the arguments every release has; `rel' carries the rest
 * (exclusion bitmaps, will-run data) untouched to cons_tres.
 */
typedef struct orrery_job_test_args orrery_job_test_args_t;
typedef int (*orrery_delegate_test_fn)(orrery_job_test_args_t *a,
				       bitstr_t *bitmap);
struct orrery_job_test_args {
	job_record_t *job_ptr;
	bitstr_t *bitmap;
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t mode;
	list_t *preemptee_candidates;
	list_t **preemptee_job_list;
	orrery_delegate_test_fn delegate;	/* cons_tres's job_test */
	/* Hash of the release's core-exclusion argument (reservations):
	 * part of the key under which cons_tres's answers are cached. */
	uint64_t (*hash_exclusions)(const orrery_job_test_args_t *a,
				    uint64_t seed);
	void *rel;				/* release-specific arguments */
};

#endif /* ORRERY_COMPAT_H */
