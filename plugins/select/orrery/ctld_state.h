/*
 * ctld_state.h - the state that select/orrery_cons_tres's slurmctld side
 * shares between its files (orrery_ctld.c lists them), and the helpers
 * they all use.  Everything named *_locked is called with orr_ctld_lock
 * held; all of it runs inside slurmctld only (running_in_slurmctld()).
 */
#ifndef ORRERY_CTLD_STATE_H
#define ORRERY_CTLD_STATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "compat.h"

#include "orrery.h"
#include "orrery_conf.h"
#include "orrery_ctld.h"
#include "place_cache.h"

/* slurmctld's own (not in libslurmfull): weak, as these files are only
 * run inside slurmctld but the plugin also loads in client commands. */
#pragma weak find_job_record
#pragma weak idle_node_bitmap
#pragma weak job_list

/* Per-job cache entries at most (pending profiled jobs; least recently
 * used evicted beyond). */
#define ORR_CACHE_CAP 4096

/* The cluster model and its mapping onto Slurm's node table. */
struct orr_ctld_model {
	orrery_cluster_t *cluster;	/* NULL: not built / pass-through */
	orr_switches_t switches;	/* the tree it was built from */
	bool need_build;
	/* The last build failure logged, "" after a build that worked: the
	 * same cause is said once, however many builds retry it. */
	char build_error[ORRERY_ERRMSG_MAX + 64];
	int slurm_nodes;		/* node_record_count at build */
	long *slurm2orr;		/* [slurm_nodes], -1: not in tree */
	uint32_t *orr2slurm;		/* [orrery nodes] */
	size_t orr_nodes;
	char *state_path;
	uint32_t *live_ids;		/* running jobs at job_init, sorted */
	size_t n_live;
	bool have_live;
	/* Bumped by everything that can change a ranking or cons_tres's
	 * answer to it: job begin/fini/suspend/resume/resize, node config,
	 * reconfigure, topology rebuild, state restore. */
	uint64_t version;
	uint64_t topo_version;		/* bumped by topology rebuilds */
	/* What the cluster was built from (build_signature()); 0: rebuild. */
	uint64_t build_sig;
	orr_cache_t *cache;
};

/* Counters, logged every 10 minutes (every change with debug) and at
 * reconfigure and shutdown. */
struct orr_ctld_stats {
	uint64_t tested, placements, narrowed, fallbacks, begun;
	/* Wall time of select_p_job_test: in total, and the part spent in
	 * cons_tres's job_test (every delegated call, narrowed or not). */
	uint64_t jt_calls, jt_ns, ct_calls, ct_ns;
	/* The same for the job_test calls that start a job now
	 * (SELECT_MODE_RUN_NOW: where orrery ranks and narrows). */
	uint64_t run_calls, run_ns;
	/* The same three in CPU time of the calling thread
	 * (CLOCK_THREAD_CPUTIME_ID): on a loaded host wall time also counts
	 * the time the thread waited for a CPU, wherever that fell. */
	uint64_t jt_cpu_ns, ct_cpu_ns, run_cpu_ns;
	/* Ranking: computed (miss; rank_ns is parse + resolve + place) or
	 * reused (hit); profile parses; narrowed tries not repeated because
	 * cons_tres already refused them under the same key. */
	uint64_t rank_hits, rank_misses, rank_ns, parses, tries_skipped;
	uint64_t holds;		/* holds started (hold_locked()) */
	/* Narrowed jobs whose first candidate was cons_tres's own answer on
	 * the full set: started without a second cons_tres call. */
	uint64_t kept;
	/* Model (re)builds: topology, capacities, running jobs restored
	 * from orrery_state; CPU time of the calling thread. */
	uint64_t builds, build_cpu_ns;
	/* Wall time of job_begin (evaluation, record, env, AdminComment,
	 * handing orrery_state to the saver thread). */
	uint64_t begin_ns;
	uint64_t begin_cpu_ns;	/* the scheduler thread's CPU in job_begin */
	time_t last_log;
};

extern pthread_mutex_t orr_ctld_lock;
extern orrery_conf_t orr_ocnf;
extern bool orr_conf_ok;		/* orr_ocnf loaded without error */
/* Admission (hold=) is on: read without orr_ctld_lock (plan_held(), on
 * every will-run test), written by orr_load_conf_locked(). */
extern bool orr_hold_on;
/* Learning the period (learn=) is on, with the live channel: read
 * without orr_ctld_lock by the plugin's thread, written as orr_hold_on. */
extern bool orr_learn_on;
/* Hash of orrery.conf's text as last loaded (part of the build
 * signature, ctld_cluster.c). */
extern uint64_t orr_conf_hash;
extern struct orr_ctld_model orr_g;
extern struct orr_ctld_stats orr_stats;

/* ctld_state.c */
void orr_bump_version_locked(void);
uint64_t orr_now_ns(void);		/* CLOCK_MONOTONIC */
uint64_t orr_cpu_ns(void);		/* the calling thread's CPU time */
bool orr_debug(void);
void orr_log_stats_locked(bool force);
/* One line "<reason>, falling back to cons_tres for JobId=N", once per
 * job and reason; every call counted. */
void orr_fallback(job_record_t *job_ptr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
uint64_t orr_hash_bitmap(uint64_t h, bitstr_t *b);

/* ctld_conf.c */
void orr_load_conf_locked(void);
const char *orr_no_model_reason_locked(void);

/* ctld_cluster.c */
void orr_drop_cluster_locked(void);
int orr_cmp_u32(const void *a, const void *b);
void orr_reconcile_locked(void);
bool orr_ensure_cluster_locked(void);
void orr_save_state_locked(void);
void orr_save_state_soon_locked(void);

/* ctld_job_begin.c */
void orr_record_unplaced_locked(job_record_t *job_ptr, const char *spec,
				const orr_entry_t *e, const char *why);

/* ctld_profile.c */
const char *orr_job_profile_spec(job_record_t *job_ptr);
void orr_free_profile(void *p);
orr_entry_t *orr_job_entry_locked(job_record_t *job_ptr, const char *spec);
orrery_profile_t *orr_entry_profile_locked(job_record_t *job_ptr,
					   orr_entry_t *e, uint32_t n_nodes);
bool orr_job_gone(uint32_t job_id, void *arg);

#endif /* ORRERY_CTLD_STATE_H */
