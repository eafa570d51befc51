/*
 * orrery.h - the one public interface of liborrery.
 *
 * liborrery describes the periodic communication of training jobs (comm
 * profiles), scores how well jobs can share a switch uplink (compatibility
 * score on a unified circle), derives per-job time shifts, maps jobs onto a
 * tree of switches and ranks candidate node sets.  It has no Slurm
 * dependency: the Slurm plugins, the tools and the simulator all call it
 * through this header only.
 *
 * Conventions
 *   - Times are int64_t microseconds, bandwidths uint64_t Mbit/s (one
 *     direction of a link).  Scores are doubles, 1.0 = never over capacity.
 *   - Every fallible call returns ORRERY_OK (0) or a negative orrery_rc and,
 *     when err is not NULL, fills it with a one-line message naming the
 *     offending input.  No C++ exception ever crosses this interface.
 *   - Objects are opaque handles, created by the _new, _parse and _load calls and
 *     released by the matching _free call (which accepts NULL).
 *     Strings returned as char * are malloc()ed: release with orrery_free().
 *     Strings returned as const char * belong to the handle.
 *   - Thread safety: there is no global mutable state.  Distinct handles may
 *     be used from distinct threads; one handle may be read (const calls)
 *     from several threads at once, but a call that takes a non-const handle
 *     needs exclusive access to it.
 */
#ifndef ORRERY_H
#define ORRERY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ORRERY_API_VERSION 1

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

typedef enum orrery_rc {
	ORRERY_OK = 0,
	ORRERY_EINVAL = -1,    /* malformed input (syntax, unknown name)   */
	ORRERY_ERANGE = -2,    /* a number outside its documented range    */
	ORRERY_ELIMIT = -3,    /* a size limit (length, count) exceeded    */
	ORRERY_ENOENT = -4,    /* named thing (file, node, job) not found  */
	ORRERY_EIO = -5,       /* reading or writing a file failed         */
	ORRERY_ECORRUPT = -6,  /* a file is truncated or fails its checksum */
	ORRERY_EVERSION = -7,  /* a file of an unknown format version      */
	ORRERY_ENOMEM = -8,    /* allocation failed                        */
	ORRERY_ESTATE = -9,    /* call not valid for this object's state   */
	ORRERY_EINTERNAL = -10 /* a bug in liborrery; the message says where */
} orrery_rc;

#define ORRERY_ERRMSG_MAX 512

typedef struct orrery_error {
	int code;                         /* one of orrery_rc */
	char message[ORRERY_ERRMSG_MAX];  /* NUL-terminated, no newline */
} orrery_error_t;

const char *orrery_strerror(int code);
const char *orrery_version(void);      /* package version, e.g. "0.1.0" */
void orrery_free(void *p);

/* Fault injection for hardening tests: ORRERY_FAULT=POINT[:KIND],...
 * (e.g. "place", "evaluate:bad_alloc", "all").  An armed point fails its
 * call: KIND error (default) with ORRERY_EINTERNAL; exception, bad_alloc
 * and unknown throw inside the library to exercise the C API's exception
 * barrier (select-orrery(8), FAULT INJECTION).  Returns 1 if `point` is
 * armed.  */
int orrery_fault_armed(const char *point);

/* ------------------------------------------------------------------ */
/* Communication profiles                                              */
/* ------------------------------------------------------------------ */

/* Hard limits on untrusted profile input. */
#define ORRERY_SPEC_MAX_LEN      4096
#define ORRERY_MAX_PHASES        64
#define ORRERY_MIN_PERIOD_US     1000LL            /* 1 ms  */
#define ORRERY_MAX_PERIOD_US     3600000000LL      /* 1 h   */
#define ORRERY_MIN_DEMAND_MBPS   1ULL              /* 1 Mb/s */
#define ORRERY_MAX_DEMAND_MBPS   10000000ULL       /* 10 Tb/s */
#define ORRERY_PROFILE_FILE_MAX  (1024 * 1024)     /* bytes */
#define ORRERY_MAX_STAGES        1024              /* pipeline, /ppS  */
#define ORRERY_MAX_RAILS         64                /* rails, /railR   */

/* How an Up phase's traffic maps onto the uplinks of a tree (lib/topology,
 * the rules in lib/topology/link_map.cpp; doc/orrery-profile.7, Crossing
 * rules).  An uplink with m of the job's n nodes below it (0 < m < n):
 * RING: a ring ordered by switch crosses each uplink between the job's
 *       nodes once per direction, carrying the phase demand.
 * ALLTOALL (/a2a): every node sends demand/(n-1) to every other node, so
 *       the uplink carries demand*m*(n-m)/(n-1), in m*(n-m) connections.
 * PIPELINE (/ppS, groups = S stages, 2..ORRERY_MAX_STAGES): the job's
 *       nodes in node order (ascending node index, Slurm's order) form
 *       S' = min(S, n) stages, stage b holding nodes floor(b*n/S') ..
 *       floor((b+1)*n/S')-1.  At each of the S'-1 stage boundaries node j
 *       of stage b sends its activations to node j of stage b+1 and gets
 *       gradients back (j below the smaller stage's size): one pair, the
 *       phase demand once per direction.  The uplink carries demand times
 *       the pairs with one node below it and one outside, in that many
 *       connections.  E.g. 25 Gb/s, n = 8, a leaf with nodes 0-3: /pp4
 *       (stages 0-1, 2-3, 4-5, 6-7; pairs 0-2 1-3 2-4 3-5 4-6 5-7) crosses
 *       with 2-4 and 3-5: 50 Gb/s; /pp8 only with 3-4: 25 Gb/s (a ring 25,
 *       an all-to-all 25*4*4/7 = 57.1 Gb/s).
 * RAIL (/railR, groups = R rails, 1..ORRERY_MAX_RAILS): a hierarchical
 *       all-reduce on nodes with R NICs on R rails (rail-optimised
 *       leaves): reduced inside the node first (no fabric traffic), then
 *       R rings, ring r joining NIC r of every node.  Each ring crosses the
 *       uplinks a ring would, with demand/R (the per-NIC demand), and only
 *       its own rail's uplink: on an uplink of k parallel links, ring r is
 *       on link r mod k (pinned, not hashed; orrery_rail_link).  Together
 *       the uplink carries the phase demand, in R connections.  E.g.
 *       400 Gb/s per node, /rail8: 50 Gb/s per NIC and per rail uplink.
 *       orrery-sim pins the rings; the score does not yet (it counts R
 *       hashed connections, overstating collisions on rail uplinks). */
typedef enum orrery_collective {
	ORRERY_COLL_RING = 0,
	ORRERY_COLL_ALLTOALL = 1,
	ORRERY_COLL_PIPELINE = 2,
	ORRERY_COLL_RAIL = 3
} orrery_collective;

typedef struct orrery_phase {
	int64_t offset_us;     /* start within the period, 0 <= offset < period */
	int64_t duration_us;   /* > 0, offset + duration <= period              */
	uint64_t demand_mbps;  /* per-node NIC demand while Up                  */
	int collective;        /* orrery_collective                             */
	uint32_t groups;       /* PIPELINE: stages; RAIL: rails; else 0         */
} orrery_phase_t;

/* The job's size and fabric, needed to turn a catalogue model into an
 * explicit pattern.  Zero fields take the model's documented defaults. */
typedef struct orrery_shape {
	uint32_t nodes;          /* nodes in the job                     */
	uint32_t gpus_per_node;  /* GPUs per node                        */
	uint64_t link_mbps;      /* per-node NIC rate to the leaf switch */
} orrery_shape_t;

typedef struct orrery_profile orrery_profile_t;

/* Parse a --comm-profile string: a catalogue model ("resnet50",
 * "gpt2:batch=32,precision=bf16") or an explicit pattern
 * ("period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a").
 * Strings starting with '@' or "file:" are rejected here: files are read
 * with orrery_profile_load_file() by the submitting user only. */
int orrery_profile_parse(const char *spec, orrery_profile_t **out,
			 orrery_error_t *err);

/* Read a captured-profile file (GLib key-file, doc/orrery-profile.7). */
int orrery_profile_load_file(const char *path, orrery_profile_t **out,
			     orrery_error_t *err);
/* Same, from a buffer (len bytes, need not be NUL-terminated). */
int orrery_profile_load_data(const char *data, size_t len,
			     orrery_profile_t **out, orrery_error_t *err);
/* Write an explicit profile as a profile file; `comment` may be NULL.
 * Extra statistics (confidence) are written by the capture tool itself. */
int orrery_profile_save_file(const orrery_profile_t *p, const char *path,
			     const char *comment, orrery_error_t *err);

/* Build an explicit profile from numbers (capture tool, simulator). The
 * same validation as the parser applies. */
int orrery_profile_new(int64_t period_us, const orrery_phase_t *phases,
		       size_t n_phases, orrery_profile_t **out,
		       orrery_error_t *err);

/* Resolve to an explicit pattern for a job shape.  An explicit profile
 * resolves to a copy of itself (shape ignored). */
int orrery_profile_resolve(const orrery_profile_t *p,
			   const orrery_shape_t *shape,
			   orrery_profile_t **out, orrery_error_t *err);

orrery_profile_t *orrery_profile_copy(const orrery_profile_t *p);
void orrery_profile_free(orrery_profile_t *p);

/* Canonical form: parse(canonical(p)) equals p.  malloc()ed. */
char *orrery_profile_canonical(const orrery_profile_t *p);
int orrery_profile_equal(const orrery_profile_t *a,
			 const orrery_profile_t *b);
int orrery_profile_is_model(const orrery_profile_t *p);
/* Model name for a catalogue profile, NULL for an explicit one. */
const char *orrery_profile_model(const orrery_profile_t *p);

/* Explicit profiles only (0 / ORRERY_ESTATE for an unresolved model). */
int64_t orrery_profile_period_us(const orrery_profile_t *p);
size_t orrery_profile_phase_count(const orrery_profile_t *p);
int orrery_profile_phase(const orrery_profile_t *p, size_t i,
			 orrery_phase_t *out);
/* Mean demand over the period, Mbit/s; fraction of the period that is Up. */
double orrery_profile_mean_demand_mbps(const orrery_profile_t *p);
double orrery_profile_duty_cycle(const orrery_profile_t *p);

/* The model catalogue. */
size_t orrery_catalogue_count(void);
const char *orrery_catalogue_name(size_t i);
const char *orrery_catalogue_summary(size_t i); /* one line: params, kind */

/* ------------------------------------------------------------------ */
/* Unified circle and the compatibility score of one link              */
/* ------------------------------------------------------------------ */

typedef struct orrery_circle_opts {
	uint32_t bins;          /* angles on the circle; default 360         */
	int64_t quantum_us;     /* periods rounded up to this; default 1000  */
	int64_t cap_us;         /* max unified perimeter; default 60 s       */
	uint64_t exact_budget;  /* max demand-vector operations for the exact
				   rotation search; beyond: heuristic.
				   default 2e7                               */
} orrery_circle_opts_t;

void orrery_circle_opts_default(orrery_circle_opts_t *o);

typedef struct orrery_link_result orrery_link_result_t;

/* Best rotations for n explicit profiles sharing one link of capacity
 * capacity_mbps.  fixed_shift_us may be NULL (every job free to rotate);
 * otherwise entries >= 0 pin that job's shift and entries < 0 leave it
 * free.  Demands are used as given (already scaled to this link). */
int orrery_link_score(const orrery_profile_t *const *profiles, size_t n,
		      uint64_t capacity_mbps, const int64_t *fixed_shift_us,
		      const orrery_circle_opts_t *opts,
		      orrery_link_result_t **out, orrery_error_t *err);

double orrery_link_result_score(const orrery_link_result_t *r);
double orrery_link_result_score_unshifted(const orrery_link_result_t *r);
/* Fraction of the circle where demand exceeds capacity (after rotation). */
double orrery_link_result_over_fraction(const orrery_link_result_t *r);
double orrery_link_result_over_fraction_unshifted(const orrery_link_result_t *r);
int64_t orrery_link_result_perimeter_us(const orrery_link_result_t *r);
size_t orrery_link_result_job_count(const orrery_link_result_t *r);
/* Shift of job i, in [0, its gate period). */
int64_t orrery_link_result_shift_us(const orrery_link_result_t *r, size_t i);
/* Period job i is gated to on this circle (its period rounded up). */
int64_t orrery_link_result_gate_period_us(const orrery_link_result_t *r,
					  size_t i);
/* 1 if the exact search ran, 0 if the heuristic did. */
int orrery_link_result_exact(const orrery_link_result_t *r);
/* 1 if the periods could not be unified under the cap: the jobs' demands
 * were then spread evenly over the circle (no rotation can help them). */
int orrery_link_result_smeared(const orrery_link_result_t *r);
/* Draw the circle: each job's Up arcs before and after rotation, and the
 * capacity, as SVG. `title` may be NULL. */
int orrery_link_result_write_svg(const orrery_link_result_t *r,
				 const char *const *labels, const char *title,
				 FILE *out, orrery_error_t *err);
void orrery_link_result_free(orrery_link_result_t *r);

/* ------------------------------------------------------------------ */
/* Topology: a tree of switches, nodes on leaves                        */
/* ------------------------------------------------------------------ */

typedef struct orrery_topology orrery_topology_t;

orrery_topology_t *orrery_topology_new(void);
void orrery_topology_free(orrery_topology_t *t);

/* Build by hand.  Switches may be added in any order; `parent` may name a
 * switch added later.  finalize() checks for one root, no cycles, nodes only
 * on leaf switches, unique names, and computes levels (leaf = 0). */
int orrery_topology_add_switch(orrery_topology_t *t, const char *name,
			       const char *parent, orrery_error_t *err);
int orrery_topology_add_node(orrery_topology_t *t, const char *node,
			     const char *leaf_switch, orrery_error_t *err);
int orrery_topology_finalize(orrery_topology_t *t, orrery_error_t *err);

/* Capacities (per direction) of a switch's uplink to its parent, and the
 * default per-node NIC rate.  Unset uplinks have capacity 0 = unknown
 * (treated as unconstrained, reported as such). */
int orrery_topology_set_uplink(orrery_topology_t *t, const char *sw,
			       uint64_t up_mbps, uint64_t down_mbps,
			       orrery_error_t *err);
int orrery_topology_set_level_uplink(orrery_topology_t *t, int level,
				     uint64_t up_mbps, uint64_t down_mbps,
				     orrery_error_t *err);
void orrery_topology_set_node_link(orrery_topology_t *t, uint64_t mbps);
uint64_t orrery_topology_node_link(const orrery_topology_t *t);

/* Parallel uplinks (ECMP): a switch's uplink capacity is `links` parallel
 * links of capacity/links each, and a job's flows are hashed onto them
 * (the collision model: doc/orrery-score.7, ECMP).  1..1024; default 1
 * (one pipe).  By switch name, or for every switch of a level (after
 * finalize). */
int orrery_topology_set_uplink_links(orrery_topology_t *t, const char *sw,
				     uint32_t links, orrery_error_t *err);
int orrery_topology_set_level_uplink_links(orrery_topology_t *t, int level,
					   uint32_t links, orrery_error_t *err);
uint32_t orrery_topology_uplink_links(const orrery_topology_t *t, size_t i);
/* Flows a job sends across an uplink (ECMP hashing): 1..4096, default 2.
 * One count for every job (profiles cannot set their own yet). */
int orrery_topology_set_flows(orrery_topology_t *t, uint32_t flows,
			      orrery_error_t *err);
uint32_t orrery_topology_flows(const orrery_topology_t *t);
/* Expected collision excess (Mbit/s) of `flows` equal flows carrying
 * total_mbps in all over `links` parallel links of capacity_mbps in all:
 * the score's ECMP model (doc/orrery-score.7).  links = 1: the excess
 * over one pipe, max(0, total - capacity). */
double orrery_ecmp_excess(uint64_t capacity_mbps, uint32_t links,
			  uint32_t flows, double total_mbps);

/* Expand a hostlist expression ("n[001-016],gpu7"): call emit() once per
 * host in order; return 0 or -1 on a bad expression.  The tools pass
 * libslurm's slurm_hostlist_* here; liborrery never expands by itself. */
typedef int (*orrery_hostlist_fn)(const char *expr, void *ctx,
				  void (*emit)(const char *host, void *ectx),
				  void *ectx);

/* Read Slurm's topology.conf (SwitchName=, Switches=, Nodes=, LinkSpeed=).
 * LinkSpeed values are multiplied by linkspeed_unit_mbps (0 = ignore
 * LinkSpeed) and become the switch's uplink capacity.  The result is
 * finalized.  Errors name the file, line and token. */
int orrery_topology_read_slurm(const char *path, orrery_hostlist_fn expand,
			       void *expand_ctx, uint64_t linkspeed_unit_mbps,
			       orrery_topology_t **out, orrery_error_t *err);
/* The same from a buffer (len bytes, need not be NUL-terminated); `name`
 * (may be NULL: "topology.conf") stands for the file in error messages. */
int orrery_topology_parse_slurm(const char *text, size_t len, const char *name,
				orrery_hostlist_fn expand, void *expand_ctx,
				uint64_t linkspeed_unit_mbps,
				orrery_topology_t **out, orrery_error_t *err);

/* Generate a fabric: `tiers` 2 (leaves under one spine layer) or 3 (leaves
 * in pods under a core).  Node names are prefix + zero-padded index.
 * Leaf uplink = nodes_per_leaf * node_link / oversub_leaf; pod uplink =
 * leaves_per_pod * leaf uplink / oversub_pod. A leaf/spine Clos with many
 * spines is modelled as one aggregate spine switch (its uplinks summed). */
typedef struct orrery_fabric {
	int tiers;                 /* 2 or 3                           */
	uint32_t nodes_per_leaf;
	uint32_t leaves;           /* total leaf switches              */
	uint32_t leaves_per_pod;   /* tiers == 3 only                  */
	uint64_t node_link_mbps;
	double oversub_leaf;       /* >= 1                             */
	double oversub_pod;        /* >= 1, tiers == 3 only            */
	const char *node_prefix;   /* default "node"                   */
} orrery_fabric_t;
int orrery_topology_generate(const orrery_fabric_t *f,
			     orrery_topology_t **out, orrery_error_t *err);
/* Write topology.conf (hostlist-compressed Nodes=, LinkSpeed in Gb/s). */
int orrery_topology_write_slurm(const orrery_topology_t *t, FILE *out,
				orrery_error_t *err);

size_t orrery_topology_node_count(const orrery_topology_t *t);
const char *orrery_topology_node_name(const orrery_topology_t *t, size_t i);
/* Index of a node, or -1. */
long orrery_topology_node_index(const orrery_topology_t *t, const char *name);
size_t orrery_topology_switch_count(const orrery_topology_t *t);
const char *orrery_topology_switch_name(const orrery_topology_t *t, size_t i);
long orrery_topology_switch_index(const orrery_topology_t *t,
				  const char *name);
int orrery_topology_switch_level(const orrery_topology_t *t, size_t i);
long orrery_topology_switch_parent(const orrery_topology_t *t, size_t i);
uint64_t orrery_topology_uplink_mbps(const orrery_topology_t *t, size_t i);
/* Leaf switch of node i. */
long orrery_topology_node_leaf(const orrery_topology_t *t, size_t i);

/* The crossing rule (see orrery_collective): job profile p as seen on an
 * uplink with m of the job's n nodes below it (0 < m < n).  The result is
 * the pattern the scorer puts on that link; demands may exceed the
 * per-node limit (an all-to-all uplink carries several nodes' traffic).
 * Pipeline phases take the m nodes below to be the job's first m in node
 * order; a phase with nothing across keeps its place with demand 0. */
int orrery_profile_on_link(const orrery_profile_t *p, uint32_t m, uint32_t n,
			   orrery_profile_t **out, orrery_error_t *err);
/* The same for any node set: below[i] != 0 when the job's i-th node in
 * node order is below the uplink (i < n). */
int orrery_profile_on_uplink(const orrery_profile_t *p, const uint8_t *below,
			     uint32_t n, orrery_profile_t **out,
			     orrery_error_t *err);
/* The crossing rule of one phase on one uplink (below as above): the load
 * across it per direction as a multiple of the phase demand (ring and
 * rail 1, all-to-all m(n-m)/(n-1), pipeline the crossing pairs; 0 when
 * nothing crosses), and in *connections (may be NULL) the connections it
 * travels in (ring 1, all-to-all m(n-m), pipeline the pairs, rail R): what
 * ECMP hashes, each times the job's flows (rail rings: orrery_rail_link).
 * < 0 for a NULL or unknown
 * phase, a NULL below with n > 0, or n > 1,000,000. */
double orrery_phase_crossing(const orrery_phase_t *ph, const uint8_t *below,
			     uint32_t n, uint32_t *connections);
/* The parallel link (0..links-1) rail ring `rail` of a RAIL phase uses on
 * an uplink of `links` parallel links: rail mod links (0 if links is 0). */
uint32_t orrery_rail_link(uint32_t rail, uint32_t links);

/* ------------------------------------------------------------------ */
/* Cluster state: topology + running jobs with their shifts             */
/* ------------------------------------------------------------------ */

typedef struct orrery_cluster orrery_cluster_t;

/* rank_spread: how many more leaf switches (or switch levels) than the
 * most local candidate the contention-aware ranking may spread a job to
 * (orrery_cluster_place); 0 = the most local candidates only. */
#define ORRERY_RANK_SPREAD_MAX 4
#define ORRERY_RANK_SPREAD_DEFAULT 0

typedef struct orrery_cluster_opts {
	orrery_circle_opts_t circle;
	uint32_t max_candidates;  /* placement candidates scored; default 64 */
	uint32_t rank_spread;     /* 0..ORRERY_RANK_SPREAD_MAX; default
				   * ORRERY_RANK_SPREAD_DEFAULT */
} orrery_cluster_opts_t;

void orrery_cluster_opts_default(orrery_cluster_opts_t *o);

/* The cluster keeps its own copy of the topology. */
int orrery_cluster_new(const orrery_topology_t *t,
		       const orrery_cluster_opts_t *opts,
		       orrery_cluster_t **out, orrery_error_t *err);
void orrery_cluster_free(orrery_cluster_t *c);
const orrery_topology_t *orrery_cluster_topology(const orrery_cluster_t *c);

/* Common time origin of all slots (µs since the Unix epoch); set once when
 * the state is created and kept across restarts. */
int64_t orrery_cluster_epoch_us(const orrery_cluster_t *c);
void orrery_cluster_set_epoch_us(orrery_cluster_t *c, int64_t epoch_us);
/* Increases on every add/remove; lets callers cache work per version. */
uint64_t orrery_cluster_version(const orrery_cluster_t *c);

/* Record a running job.  `profile` must be explicit (resolved); `nodes`
 * are topology node indices.  Fails with ORRERY_EINVAL on a duplicate id. */
int orrery_cluster_add_job(orrery_cluster_t *c, uint32_t job_id,
			   const uint32_t *nodes, size_t n_nodes,
			   const orrery_profile_t *profile, int64_t shift_us,
			   orrery_error_t *err);
/* ORRERY_ENOENT if unknown. */
int orrery_cluster_remove_job(orrery_cluster_t *c, uint32_t job_id);
size_t orrery_cluster_job_count(const orrery_cluster_t *c);
/* Job ids in ascending order: i-th job id. */
uint32_t orrery_cluster_job_id(const orrery_cluster_t *c, size_t i);
int orrery_cluster_job_shift_us(const orrery_cluster_t *c, uint32_t job_id,
				int64_t *shift_us, int64_t *period_us);
const orrery_profile_t *orrery_cluster_job_profile(const orrery_cluster_t *c,
						   uint32_t job_id);
/* A running job's measured iteration time, µs: its gate's min_work_us
 * (orrery_gate_stats_t: the shortest release-to-next-request of a window,
 * waiting excluded), reported once per window.  c keeps the latest four;
 * when the shortest of them (at least two) differs from the period c
 * models the job with by more than tolerance (a fraction of that period,
 * 0..0.5), c models the job at that period from now on: the compute of
 * the profile it was added with scaled to fit, its Up phases kept
 * (orrery_cluster_job_profile still returns that profile), its shift
 * kept.  *changed is then 1: re-solve with orrery_cluster_realign (the job's link group is solved
 * again, not carried over) and publish with orrery_division_job_gate.
 * ORRERY_ERANGE, the job left as it was: the measurement is outside half
 * to twice the profile's period, or leaves no compute.  Not in the state
 * file: a reloaded cluster takes the retimed pattern as the job's profile.
 * orrery-sim --learn-periods drives this, and select/orrery with
 * orrery.conf learn=TOL (the job's batch host reports its windows,
 * select-orrery(8) LEARNING THE PERIOD). */
int orrery_cluster_job_measured(orrery_cluster_t *c, uint32_t job_id,
				int64_t iteration_us, double tolerance,
				int *changed, orrery_error_t *err);
/* The rule orrery_cluster_job_measured applies, for a caller that keeps a
 * job's windows itself (the SPANK plugin's batch host, which reports only
 * what would move the model): the shortest of windows[0..n) in
 * *shortest_us (may be NULL); 1 when it is more than tolerance (a
 * fraction of period_us) off period_us.  0 when it is not, when n is not
 * 2..ORRERY_MEASURED_KEPT (the windows a cluster keeps) or period_us is
 * not above 0. */
#define ORRERY_MEASURED_KEPT 4
int orrery_measured_off(const int64_t *windows, size_t n, int64_t period_us,
			double tolerance, int64_t *shortest_us);
/* Node indices of a job; returns the count, copies at most max. */
size_t orrery_cluster_job_nodes(const orrery_cluster_t *c, uint32_t job_id,
				uint32_t *nodes, size_t max);

/* Versioned, checksummed state file, written atomically (temp + rename).
 * load() replaces the jobs of c; nodes are stored by name.  A truncated,
 * corrupt or foreign-version file leaves c unchanged and returns
 * ORRERY_ECORRUPT / ORRERY_EVERSION.  Jobs on nodes the topology no longer
 * has are dropped and counted in *dropped (may be NULL). */
int orrery_cluster_save(const orrery_cluster_t *c, const char *path,
			orrery_error_t *err);
/* The same in two steps, for a caller that must not wait for the disk
 * where it holds its locks (select/orrery inside slurmctld): the file's
 * text (malloc()ed, NUL-terminated; *len may be NULL), serialised in
 * memory, and its atomic, durable write (temporary file, fsync, rename,
 * fsync of the directory), which may run in another thread. */
int orrery_cluster_serialise(const orrery_cluster_t *c, char **out,
			     size_t *len, orrery_error_t *err);
int orrery_state_write(const char *path, const char *data, size_t len,
		       orrery_error_t *err);
int orrery_cluster_load(orrery_cluster_t *c, const char *path,
			size_t *dropped, orrery_error_t *err);
/* The same from a buffer holding a state file's bytes (len bytes, need not
 * be NUL-terminated); `origin` (may be NULL: "state data") stands for the
 * file in error messages. */
int orrery_cluster_load_data(orrery_cluster_t *c, const char *data, size_t len,
			     const char *origin, size_t *dropped,
			     orrery_error_t *err);

/* ------------------------------------------------------------------ */
/* Evaluating a node set, placing a job, solving shifts                 */
/* ------------------------------------------------------------------ */

/* What happens to the links a node set would use.  Running jobs keep their
 * shifts; the newcomer gets the one shift (in [0, its gate period)) that
 * maximises the minimum score over its links, then the mean. */
typedef struct orrery_eval orrery_eval_t;

int orrery_cluster_evaluate(const orrery_cluster_t *c, const uint32_t *nodes,
			    size_t n_nodes, const orrery_profile_t *profile,
			    orrery_eval_t **out, orrery_error_t *err);
double orrery_eval_score_min(const orrery_eval_t *e);   /* 1 if no links */
double orrery_eval_score_mean(const orrery_eval_t *e);
int64_t orrery_eval_shift_us(const orrery_eval_t *e);
int64_t orrery_eval_period_us(const orrery_eval_t *e);  /* gate period */
size_t orrery_eval_link_count(const orrery_eval_t *e);
/* Per crossed uplink: switch index, capacity, number of other jobs on it,
 * score and over-capacity fraction with the chosen shift, and the score
 * the newcomer would get unshifted (shift 0). */
typedef struct orrery_link_eval {
	uint32_t switch_index;
	uint64_t capacity_mbps;
	uint32_t other_jobs;
	double score;
	double over_fraction;
	double score_unshifted;
} orrery_link_eval_t;
int orrery_eval_link(const orrery_eval_t *e, size_t i,
		     orrery_link_eval_t *out);
void orrery_eval_free(orrery_eval_t *e);

/* Rank candidate node sets for a job of n_nodes with an explicit profile.
 * free_nodes[i] != 0 marks topology node i as usable.  Ranking: locality
 * first (lowest common switch level, then fewest leaf switches, as
 * topology/tree's best fit), then score_min, then score_mean, then the mean
 * unshifted score (prefer candidates that need no shift), then Slurm's
 * node order.  At most opts.max_candidates are scored; the result is
 * deterministic.  Zero candidates is not an error.
 *
 * Contention-aware: when the first candidate of that order crosses a
 * contended uplink, the first few candidates of its locality (and, with
 * opts.rank_spread > 0, a few spread up to rank_spread more leaves /
 * levels) are ranked by the slowdown their placement is predicted to
 * cause (the link-group model of orrery_cluster_realign: newcomer plus the
 * running jobs on those links, less those jobs' prediction without it);
 * one step wider must save more than 0.05 of it per step
 * (doc/orrery-score.7, CONTENTION-AWARE RANKING).  orrery_placement_cost
 * gives the prediction. */
typedef struct orrery_placement orrery_placement_t;

int orrery_cluster_place(const orrery_cluster_t *c,
			 const uint8_t *free_nodes, uint32_t n_nodes,
			 const orrery_profile_t *profile,
			 orrery_placement_t **out, orrery_error_t *err);
size_t orrery_placement_count(const orrery_placement_t *p);
/* Candidates enumerated before the cap cut the list. */
size_t orrery_placement_enumerated(const orrery_placement_t *p);
/* Node indices of candidate i (returns count, copies at most max). */
size_t orrery_placement_nodes(const orrery_placement_t *p, size_t i,
			      uint32_t *nodes, size_t max);
const orrery_eval_t *orrery_placement_eval(const orrery_placement_t *p,
					   size_t i);
int orrery_placement_lca_level(const orrery_placement_t *p, size_t i);
uint32_t orrery_placement_leaf_count(const orrery_placement_t *p, size_t i);
/* Predicted slowdown candidate i's placement causes (sum over the jobs of
 * predicted / isolated iteration, less the same without the newcomer and
 * its own 1); < 0: not predicted (first candidate on no contended link,
 * not among the predicted few, or too large a group). */
double orrery_placement_cost(const orrery_placement_t *p, size_t i);
/* What admission weighs (orrery_placement_hold): the cost less the part
 * the newcomer would pay on those links alone (its own traffic over an
 * uplink's capacity, which no neighbour's departure takes back); < 0 when
 * the cost is not predicted. */
double orrery_placement_hold_cost(const orrery_placement_t *p, size_t i);
void orrery_placement_free(orrery_placement_t *p);

/* Admission (doc/orrery-score.7, HOLDING A JOB): 1 when the job had better
 * wait than start on candidate i now: the slowdown that placement is
 * predicted to add because of its neighbours (orrery_placement_hold_cost)
 * exceeds hold_cost, and the job has waited less than hold_max_s (seconds
 * since it became eligible).
 * Contention adds that many jobs' worth of run time for as long as it
 * lasts; waiting costs the job itself one.  0 otherwise: cost not
 * predicted (< 0), hold_max_s <= 0 (off), hold_cost not above 0, or NULL.
 * The defaults are those the simulator measured (orrery-sim(1),
 * orrery-hold). */
#define ORRERY_HOLD_COST_DEFAULT 0.5
#define ORRERY_HOLD_MAX_S_DEFAULT 10800.0
int orrery_placement_hold(const orrery_placement_t *p, size_t i,
			  double hold_cost, double waited_s, double hold_max_s);
/* The same rule on a cost the caller kept (select/orrery caches its
 * rankings' costs, not the placements). */
int orrery_hold_decide(double cost, double hold_cost, double waited_s,
		       double hold_max_s);

/* Re-solve every running job's shift from scratch (offline planning, the
 * query tool): best rotations per link, then a breadth-first traversal of
 * the job-link affinity graph.  With loops, a maximum-weight spanning tree
 * (weight = the link's gain from rotation) is kept and the score actually
 * achieved on each loop-closing link is reported.  The cluster's shifts are
 * replaced only if apply != 0. */
typedef struct orrery_solve orrery_solve_t;

int orrery_cluster_solve(orrery_cluster_t *c, int apply,
			 orrery_solve_t **out, orrery_error_t *err);
size_t orrery_solve_link_count(const orrery_solve_t *s);
typedef struct orrery_solve_link {
	uint32_t switch_index;
	uint32_t jobs;
	double score_optimal;    /* this link optimised alone              */
	double score_achieved;   /* with the shifts the traversal assigned */
	int loop_closing;        /* 1 if this link closed a loop           */
} orrery_solve_link_t;
int orrery_solve_link(const orrery_solve_t *s, size_t i,
		      orrery_solve_link_t *out);
int orrery_solve_loops(const orrery_solve_t *s);   /* loops found */
/* New shift of a job (µs) or ORRERY_ENOENT. */
int orrery_solve_job_shift(const orrery_solve_t *s, uint32_t job_id,
			   int64_t *shift_us);
void orrery_solve_free(orrery_solve_t *s);

/* ------------------------------------------------------------------ */
/* Time division of link groups (orrery-score(7), TIME DIVISION)        */
/* ------------------------------------------------------------------ */

/* A link group is a connected set of constrained uplinks (capacity known,
 * at least two jobs each) and the jobs crossing them.  For each group,
 * liborrery predicts every job's iteration time with one fluid model
 * (max-min fair sharing of the group's links) three ways:
 *   ROTATE: gated at its own period with the rotation (affinity) shift;
 *   DIVIDE: gated to one common period with one slot per job, chosen so
 *           that no link is over capacity (only when the best rotation
 *           score is below 1 and the group has at most 16 jobs);
 *   SHARE:  ungated, all jobs starting in step;
 * and chooses the mode with the lowest total predicted slowdown (sum over
 * the jobs of predicted / isolated iteration time); a mode must win by
 * 0.5 % over the one preferred before it (SHARE, ROTATE, DIVIDE).  A
 * group whose busiest link is over capacity on average (its jobs' bits
 * per isolated iteration above what it carries) is never ROTATE: its
 * jobs cannot keep their own periods; its reason says so. */
typedef enum orrery_group_mode {
	ORRERY_GROUP_ROTATE = 0,
	ORRERY_GROUP_DIVIDE = 1,
	ORRERY_GROUP_SHARE = 2
} orrery_group_mode;
const char *orrery_group_mode_name(int mode);  /* "rotate", ... */

typedef struct orrery_division orrery_division_t;

/* Every link group of the cluster's running jobs (nothing is changed). */
int orrery_cluster_divide(const orrery_cluster_t *c, orrery_division_t **out,
			  orrery_error_t *err);
/* Re-alignment after jobs came or went: the same, given the division the
 * running jobs follow now (prev, may be NULL).  A group with the same jobs
 * on the same links keeps prev's decision (reused); a changed group is
 * re-solved, and all its shifts are moved by the one amount that leaves
 * the most of its jobs' gates as in prev.  orrery_division_job_t.changed
 * marks the jobs whose gate parameters differ from prev (every job when
 * prev is NULL).  apply != 0 records rotated jobs' new shifts in c. */
int orrery_cluster_realign(orrery_cluster_t *c, const orrery_division_t *prev,
			   int apply, orrery_division_t **out,
			   orrery_error_t *err);
/* n explicit profiles on one link (demands as given); job ids are the
 * profile indices 0..n-1. */
int orrery_link_divide(const orrery_profile_t *const *profiles, size_t n,
		       uint64_t capacity_mbps, const orrery_circle_opts_t *opts,
		       orrery_division_t **out, orrery_error_t *err);

typedef struct orrery_division_group {
	uint32_t links;
	uint32_t jobs;
	double score;            /* rotation score achieved, min over links */
	int mode;                /* orrery_group_mode chosen               */
	int64_t period_us;       /* time division's common period; 0 = none */
	/* Predicted total slowdown (sum of predicted / isolated iteration
	 * time over the group's jobs); < 0 when not predicted. */
	double slowdown_rotate, slowdown_divide, slowdown_share;
	const char *reason;      /* one line; belongs to the division */
	int reused;              /* realign: carried over from prev       */
} orrery_division_group_t;

size_t orrery_division_group_count(const orrery_division_t *d);
int orrery_division_group(const orrery_division_t *d, size_t i,
			  orrery_division_group_t *out);
/* Switch indices of group i's links (returns the count, copies <= max). */
size_t orrery_division_group_links(const orrery_division_t *d, size_t i,
				   uint32_t *switches, size_t max);

typedef struct orrery_division_job {
	uint32_t job_id;
	long group;              /* -1: shares no constrained link         */
	int gated;               /* gate on under the chosen mode          */
	int64_t period_us;       /* gate period and shift when gated       */
	int64_t shift_us;
	int64_t isolated_us;     /* iteration time alone                   */
	/* Predicted iteration time, µs; < 0 when not predicted. */
	double iter_rotate_us, iter_divide_us, iter_share_us;
	int64_t divide_shift_us; /* slot under time division (if computed) */
	int changed;             /* realign: gate differs from prev's     */
	/* Its gate period under time division: the group's common period,
	 * or a whole fraction of it when the job gets several slots in it
	 * (0 when not computed). */
	int64_t divide_period_us;
} orrery_division_job_t;

size_t orrery_division_job_count(const orrery_division_t *d);
int orrery_division_job(const orrery_division_t *d, size_t i,
			orrery_division_job_t *out);
/* ORRERY_ENOENT if the job is not in the division. */
int orrery_division_find_job(const orrery_division_t *d, uint32_t job_id,
			     orrery_division_job_t *out);
/* The gate a running job is given for entry i of d, a division from
 * orrery_cluster_realign(c, prev, 0, ...): d's, except that a job gated in
 * a rotated group keeps the period and shift c records for it (the one it
 * runs on: a newcomer was shifted against its running neighbours, as
 * CASSINI does, and a running job is not moved).  select/orrery publishes
 * this gate and orrery-sim's orrery policy applies it.  For a job
 * retimed to its measured iteration (orrery_cluster_job_measured) the
 * shift is for a gate that places the profile's first Up phase, as the
 * job-side gate does: moved by where the retimed pattern has that phase.
 * ORRERY_ENOENT if the job is not in c. */
int orrery_division_job_gate(const orrery_cluster_t *c,
			     const orrery_division_t *d, size_t i,
			     orrery_division_job_t *out);
void orrery_division_free(orrery_division_t *d);

/* ------------------------------------------------------------------ */
/* Gate: when may a job's next communication phase start?              */
/* ------------------------------------------------------------------ */

/* Slots: epoch + shift + k * period, on a grid common to the cluster.
 * Policy (lib/gate/gate.c, orrery-runtime(7)): wait for the next unused
 * slot; release at once if at most late_tolerance past a slot; a phase later
 * than that misses the slot and waits for the next.  The gate measures the
 * job's own work per iteration (ready time minus the previous release).
 * When miss_limit of the last miss_window phases missed:
 *   - if that work is longer than the given period (phases stretched,
 *     period drifted), the gate RE-ANCHORS: slots every measured iteration
 *     time (the mean, or the latest if longer; rounded up to 1 ms) from
 *     now;
 *   - otherwise an anchored gate goes back to the given grid, and one on
 *     the grid (misses without a longer iteration: erratic timing) turns
 *     OFF (pass-through).
 * It RE-ARMS once the cause is gone: an anchored gate goes back to the
 * given grid after miss_window iterations in a row whose work fits the
 * given period; an off gate re-arms after miss_window iterations in a row
 * within late_tolerance of the measured mean (on the given grid if they
 * fit its period, else re-anchored).  Each time it leaves again after
 * re-arming, the run needed doubles (up to 32 windows).  miss_window 0:
 * never leaves the given grid.
 *
 * MARGIN: with margin_ppm, the grid is the given one slowed down by
 * 1 + margin_ppm / 10^6 about the epoch: slots epoch + shift * (1 + m) +
 * k * period * (1 + m).  Every job of a cluster must use the same margin
 * (their arrangement is kept, each gap between neighbours' slots grows);
 * a job whose iterations vary about its period then arrives early for
 * its slot more often than late, where on the bare period its lateness
 * adds up from one iteration to the next until it misses a slot
 * (doc/benchmark-report.md, "Jitter").  Pass the shift of the first Up
 * phase from the epoch (ORRERY_SHIFT_US + ORRERY_PHASE_OFFSET_US, modulo
 * the period) so that the whole arrangement scales. */
typedef enum orrery_gate_mode {
	ORRERY_GATE_GRID = 0,      /* on the given grid (epoch, shift, period) */
	ORRERY_GATE_ANCHORED = 1,  /* re-anchored to its measured iteration   */
	ORRERY_GATE_OFF = 2        /* pass-through                            */
} orrery_gate_mode;

typedef struct orrery_gate_params {
	int64_t period_us;          /* gate period (ORRERY_PERIOD_US)       */
	int64_t epoch_us;           /* ORRERY_EPOCH_US                      */
	int64_t shift_us;           /* ORRERY_SHIFT_US, in [0, period)      */
	int64_t late_tolerance_us;  /* 0 = period / 10                      */
	uint32_t miss_window;       /* default 8, at most 32; 0 = never off */
	uint32_t miss_limit;        /* default 4                            */
	uint32_t margin_ppm;        /* default 0; at most ORRERY_GATE_MAX_MARGIN_PPM */
} orrery_gate_params_t;
#define ORRERY_GATE_MAX_MARGIN_PPM 200000

typedef struct orrery_gate_stats {
	uint64_t phases;         /* phases that asked the gate            */
	uint64_t on_slot;        /* released on a slot (waited or exact)  */
	uint64_t late;           /* released within the tolerance, late   */
	uint64_t missed;         /* missed a slot, waited for the next    */
	uint64_t passthrough;    /* released ungated while off            */
	int64_t total_wait_us;
	int64_t max_wait_us;
	int64_t total_late_us;   /* drift absorbed by the tolerance       */
	int disabled;            /* 1 while the gate is off               */
	int mode;                /* orrery_gate_mode now                  */
	uint64_t reanchored;     /* times it re-anchored                  */
	uint64_t rearmed;        /* times it went back to the grid or on  */
	uint64_t disables;       /* times it turned itself off            */
	int64_t period_us;       /* period in force now (0 while off)     */
	int64_t measured_us;     /* measured work per iteration (mean)    */
	/* The shortest work of the latest ORRERY_GATE_MEASURE_WINDOW
	 * iterations in a row (0: none complete yet), and how many such
	 * windows have completed.  Sharing a link only lengthens a job's
	 * work, so this is the closest to its own iteration time
	 * (orrery_cluster_job_measured). */
	int64_t min_work_us;
	uint64_t windows;
	/* How much the work varies from one iteration to the next: the
	 * longest minus the shortest work of each such window, the median
	 * over the latest ORRERY_GATE_RANGE_WINDOWS windows (0: none yet;
	 * a window with a pause in it, the job's start or a checkpoint, does
	 * not move a median).  A gate margin (margin_ppm) lets a job whose
	 * iterations vary arrive early for its slots; this is what a site
	 * reads to choose it (orrery-sacct's IterRange). */
	int64_t range_us;
} orrery_gate_stats_t;
#define ORRERY_GATE_MEASURE_WINDOW 8
#define ORRERY_GATE_RANGE_WINDOWS 15

typedef struct orrery_gate orrery_gate_t;

void orrery_gate_params_default(orrery_gate_params_t *p);
int orrery_gate_new(const orrery_gate_params_t *params, orrery_gate_t **out,
		    orrery_error_t *err);
/* A phase is ready at now_us (same clock as epoch: CLOCK_REALTIME µs);
 * returns when to release it (>= now_us) and updates the counters. */
int64_t orrery_gate_release_at(orrery_gate_t *g, int64_t now_us);
/* A phase ready at now_us that goes without asking the gate (the live
 * channel switched gating off): released at once, not counted as a phase,
 * but its work is measured (measured_us, min_work_us) as if it had asked. */
void orrery_gate_observe(orrery_gate_t *g, int64_t now_us);
void orrery_gate_stats(const orrery_gate_t *g, orrery_gate_stats_t *out);
/* A job whose gate was replaced (a re-alignment: new period or shift)
 * reports the replaced gates' statistics with the gate in force: into
 * *acc, the statistics of the newer gate (or gates), add those of the
 * older ones.  Counts are summed, max_wait_us is the larger, range_us is
 * each one's weighted by its windows (a mean of medians: an
 * approximation), min_work_us stays the newer one's
 * unless it has none yet; the state (mode, disabled, period_us,
 * measured_us) stays the newer one's.  The job-side runtime and
 * orrery-sim keep their counters over re-alignments with this. */
void orrery_gate_stats_carry(orrery_gate_stats_t *acc,
			     const orrery_gate_stats_t *older);
void orrery_gate_free(orrery_gate_t *g);

#ifdef __cplusplus
}
#endif

#endif /* ORRERY_H */
