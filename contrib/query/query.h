/*
 * query.h - pieces shared by the orrery-query subcommands.
 *
 * orrery-query is an offline tool for administrators: it reads a Slurm
 * topology.conf (or generates a fabric), running jobs and comm profiles,
 * and shows what liborrery would decide.  It uses only orrery.h and the
 * libslurm hostlist adapter.
 */
#ifndef ORRERY_QUERY_H
#define ORRERY_QUERY_H

#include <stdint.h>
#include <stdio.h>

#include "orrery.h"

/* Exit codes (doc/orrery-query.1). */
#define EXIT_INPUT 1       /* bad input: the library's message is printed */
#define EXIT_USAGE 2       /* bad command line                            */
#define EXIT_NOPLACE 3     /* place: no candidate node set                */

/* Subcommands: argc/argv start at the subcommand's name. */
int cmd_profile(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_solve(int argc, char **argv);

/* Messages: "orrery-query: <cmd>: <text>" on stderr. */
void qerr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern const char *qcmd;

/* ---- units.c ---- */
/* "100Gbps", "100Gb/s", "400Mbps", "1.6Tbps" -> Mb/s; -1 on error. */
int parse_bandwidth(const char *s, uint64_t *mbps);
/* "20ms", "1.5s", "250us" -> µs; -1 on error. */
int parse_duration(const char *s, int64_t *us);
int parse_uint(const char *s, uint64_t max, uint64_t *out);
/* Human forms into a caller buffer: "400 Gb/s", "266.7 Gb/s", "50 Mb/s",
 * "unknown" for 0; "80 ms", "12.345 ms", "1.50 s". */
const char *fmt_bw(char *buf, size_t n, uint64_t mbps);
const char *fmt_time(char *buf, size_t n, int64_t us);
#define FMT_N 32

/* ---- topo_load.c ---- */
/* The long options every subcommand that loads a topology takes (parsed by
 * topo_opt(): their short value is 0). */
#define TOPO_LONG_OPTIONS \
	{ "topology", required_argument, NULL, 0 }, \
	{ "generate", required_argument, NULL, 0 }, \
	{ "linkspeed-unit", required_argument, NULL, 0 }, \
	{ "node-link", required_argument, NULL, 0 }, \
	{ "uplink", required_argument, NULL, 0 }, \
	{ "flows", required_argument, NULL, 0 }

struct topo_opts {
	const char *path;            /* --topology FILE                 */
	const char *generate;        /* --generate k=v,...              */
	uint64_t linkspeed_unit;     /* --linkspeed-unit, Mb/s          */
	uint64_t node_link;          /* --node-link, 0 = keep           */
	const char *uplinks[64];     /* --uplink LEVEL|SWITCH=[Kx]CAP   */
	int n_uplinks;
	uint64_t flows;              /* --flows, 0 = liborrery's        */
};
void topo_opts_init(struct topo_opts *o);
/* Handle one topology option (getopt long name and optarg); 1 if taken,
 * 0 if not a topology option, -1 on a bad value (message printed). */
int topo_opt(struct topo_opts *o, const char *name, const char *arg);
/* Read or generate, then apply --node-link and --uplink.  NULL on error
 * (message printed). */
orrery_topology_t *topo_load(const struct topo_opts *o);
/* Parse a --generate spec into a fabric; -1 on error (message printed). */
int parse_fabric(const char *spec, orrery_fabric_t *f, char *prefix_buf,
		 size_t prefix_n);

/* ---- options.c ---- */
struct option;
/* One option of a subcommand: its getopt value, its long name when that
 * value is 0 (else NULL) and its argument.  0, or -1 after printing what
 * is wrong with the value. */
typedef int (*query_take_fn)(int ch, const char *name, const char *arg,
			     void *ctx);
#define QUERY_GO (-1)          /* query_getopt: go on with the operands  */
#define QUERY_NO_OPERANDS 0    /* ... none accepted                      */
#define QUERY_OPERANDS 1       /* ... the subcommand checks them         */
/* getopt_long over opts ("h": --help).  Returns QUERY_GO with optind at
 * the first operand, or the exit status: 0 after --help (usage on
 * stdout), EXIT_USAGE for an unknown option (usage on stderr), a value
 * take() refused, or an operand where none is accepted. */
int query_getopt(int argc, char **argv, const struct option *opts,
		 void (*help)(FILE *), query_take_fn take, void *ctx,
		 int operands);
/* --NAME ARG: a whole number 1..1000000; -1 (message printed) if not. */
int query_positive(const char *name, const char *arg, uint64_t *out);

/* The options of the subcommands that load running jobs (place, solve):
 * the topology's, --jobs JOBSFILE, --state STATEFILE, --gpus-per-node G
 * (getopt values 0, 'j', 's', 'g'). */
struct cluster_args {
	struct topo_opts to;
	const char *jobs, *state;
	uint64_t gpus_per_node;
};
#define CLUSTER_LONG_OPTIONS \
	TOPO_LONG_OPTIONS, \
	{ "jobs", required_argument, NULL, 'j' }, \
	{ "state", required_argument, NULL, 's' }, \
	{ "gpus-per-node", required_argument, NULL, 'g' }
void cluster_args_init(struct cluster_args *a);
/* 1 if taken, 0 if not one of them, -1 on a bad value (message printed). */
int cluster_opt(struct cluster_args *a, int ch, const char *name,
		const char *arg);

/* ---- cluster_load.c ---- */
/* topo_load() plus running jobs from a jobs file or a state file (either
 * may be NULL).  max_candidates 0 / rank_spread < 0 = library default.  NULL on error. */
orrery_cluster_t *cluster_load(const struct cluster_args *a,
			       uint32_t max_candidates, int rank_spread);

/* ---- jobs_file.c ---- */
/* Read a running-jobs file into c (doc/orrery-query.1, JOBS FILE).
 * Models are resolved for the job's node count, gpus_per_node and the
 * topology's node link.  -1 on error (message names file:line). */
int jobs_file_load(orrery_cluster_t *c, const char *path,
		   uint32_t gpus_per_node);
/* A hostlist into topology node indices (malloc()ed); -1 with msg set. */
int expand_nodes(const orrery_topology_t *t, const char *expr, uint32_t **out,
		 size_t *n, char *msg, size_t msg_n);

/* ---- profile helpers (cmd_profile.c) ---- */
/* Parse and, for a model, resolve for the shape.  NULL on error. */
orrery_profile_t *profile_explicit(const char *spec,
				   const orrery_shape_t *shape);
/* --nodes, --gpus-per-node, --link: 1 if taken, 0 if not one of them,
 * -1 on a bad value (message printed). */
int parse_shape_opt(const char *name, const char *arg, orrery_shape_t *s);
/* Print the Up/Down table of an explicit profile, indented. */
void print_phase_table(FILE *out, const orrery_profile_t *p);

/* ---- link helpers (links.c) ---- */
/* Nodes of a set below switch sw (the crossing rule needs m of n). */
uint32_t nodes_below(const orrery_topology_t *t, size_t sw,
		     const uint32_t *nodes, size_t n);
/* The profile of a job on `nodes` as seen on the uplink of sw: the
 * library's crossing rule (orrery_profile_on_uplink; orrery.h,
 * orrery_collective) with the job's nodes in node order.  NULL on error. */
orrery_profile_t *profile_on_link(const orrery_topology_t *t, size_t sw,
				  const orrery_profile_t *p,
				  const uint32_t *nodes, size_t n);
/* "node[001-008]" for a set of node indices; malloc()ed. */
char *nodes_hostlist(const orrery_topology_t *t, const uint32_t *nodes,
		     size_t n);

/* ---- division.c ---- */
/* Link groups, predictions per mode and the choice, indented.  t may be
 * NULL (no link names); one_based prints job ids + 1 (score's numbering). */
void print_division(const orrery_division_t *d, const orrery_topology_t *t,
		    int one_based);

#endif
