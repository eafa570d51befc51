/*
 * orrery_spank.h - internals shared by the files of the orrery SPANK plugin.
 *
 * One file per SPANK context, as pyxis does it:
 *   spank_orrery.c  plugin identity and the slurm_spank_* dispatch
 *   args.c          plugstack.conf arguments (strict key=value)
 *   option.c        --comm-profile registration and validation
 *   job_env.c       allocator/local: the canonical profile into the job
 *   relay.c         the node-local relay file (prolog writes, steps read)
 *   task.c          remote: ORRERY_* into every task
 *   gate.c          --comm-gate, LD_PRELOAD of the NCCL interposer
 *   counters_job.c  RDMA congestion counters per job (counters=1)
 *   gate_stats_job.c the gate's statistics per job (gate_stats=1)
 *   publish.c       both records to the accounting publisher
 *   channel.c       the live channel's node-side poller
 *   learn.c         learning the period: the job's measured iteration to slurmctld
 *   nic_affinity.c  NCCL_IB_HCA / UCX_NET_DEVICES per task
 */
#ifndef ORRERY_SPANK_H
#define ORRERY_SPANK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/spank.h>

#define OSP_LOG_PREFIX "orrery: "

/* Fixed names: nothing here ever comes from user input. */
#define OSP_OPTION_NAME   "comm-profile"
#define OSP_INPUT_ENV     "ORRERY_COMM_PROFILE"   /* user's fallback input */
#define OSP_ENV_PROFILE   "ORRERY_PROFILE"
#define OSP_ENV_PERIOD    "ORRERY_PERIOD_US"
#define OSP_ENV_EPOCH     "ORRERY_EPOCH_US"
#define OSP_ENV_SHIFT     "ORRERY_SHIFT_US"
#define OSP_ENV_SCORE     "ORRERY_JOB_SCORE"
#define OSP_ENV_LEARN     "ORRERY_LEARN"    /* select/orrery learn=, prolog only */
#define OSP_ENV_PHASE_OFFSET "ORRERY_PHASE_OFFSET_US"
#define OSP_ENV_PHASE_SPAN   "ORRERY_PHASE_SPAN_US"
#define OSP_ENV_PHASES       "ORRERY_PHASES_US"
#define OSP_ENV_GATE      "ORRERY_GATE"   /* none:WHY when not gated */
#define OSP_ENV_JOB_STATS "ORRERY_RUNTIME_JOB_STATS" /* gate_stats=1 */
#define OSP_GATE_OPTION_NAME "comm-gate"

/* The NCCL interposer's installed path (configure: $pkglibdir). */
#ifndef OSP_GATE_LIBRARY_DEFAULT
#define OSP_GATE_LIBRARY_DEFAULT "/usr/lib/orrery/liborrery-nccl.so"
#endif
/* Slurm passes the job's SPANK environment to prolog/epilog with this
 * prefix: ORRERY_SHIFT_US in spank_job_env is SPANK_ORRERY_SHIFT_US. */
#define OSP_SPANK_PREFIX  "SPANK_"

#define OSP_DEFAULT_RUNTIME_DIR "/run/orrery"
#define OSP_DEFAULT_CHANNEL_POLL_MS 1000
#define OSP_ENV_CHANNEL   "ORRERY_CHANNEL"  /* the job's channel file */
#define OSP_ENV_MARGIN    "ORRERY_GATE_MARGIN_PPM"  /* gate_margin= */
#define OSP_DEFAULT_SYSFS_ROOT  "/sys"
#ifndef OSP_DEFAULT_PUBLISHER
#define OSP_DEFAULT_PUBLISHER "/usr/libexec/orrery/orrery-counters-publish"
#endif
#define OSP_PATH_MAX       1024
#define OSP_RELAY_MAX      8192  /* bytes of one relay file */
#define OSP_NUM_MAX        32    /* characters of one numeric field */
#define OSP_PRELOAD_MAX    8192  /* a task's LD_PRELOAD we extend */
/* ORRERY_PHASES_US: up to ORRERY_MAX_PHASES "OFFSET+DURATION," of two
 * 20-digit numbers. */
#define OSP_PHASES_MAX     (ORRERY_MAX_PHASES * 42 + 1)

struct osp_conf {
	char *default_profile;   /* canonical, or NULL */
	char *runtime_dir;       /* may contain %n (node name) */
	int require_profile;
	int verbose;
	int test_controller;     /* TESTING ONLY: fake the controller's values */
	int comm_gate;           /* default of --comm-gate: 1 auto, 0 off */
	char *gate_library;      /* the interposer tasks preload (admin's) */
	int counters;            /* record RDMA congestion counters per job */
	char *sysfs_root;        /* may contain %n; "/sys" */
	char *counters_publisher; /* program that writes ORRC1:/ORRS1: to accounting */
	int gate_stats;          /* the gate's statistics per job to accounting */
	int nic_affinity;        /* export NCCL_IB_HCA / UCX_NET_DEVICES */
	char *hwloc_xml;         /* may contain %n; NULL: this node's topology */
	int channel_poll_ms;     /* live channel poll period; 0: off */
	uint32_t gate_margin_ppm; /* every gate's margin (gate_margin=) */
};

extern struct osp_conf osp_conf;

/* args.c: parse plugstack arguments; -1 (logged) on any bad or unknown
 * argument, which makes the plugin, and with `required', Slurm, fail. */
int osp_args_parse(int ac, char **av, struct osp_conf *conf);
void osp_args_free(struct osp_conf *conf);

/* option.c */
int osp_option_register(spank_t sp);
/* The raw --comm-profile value as given (NULL if absent). */
const char *osp_option_value(void);
/* remote: the value, from the callback or spank_option_getopt. */
const char *osp_option_getopt(spank_t sp);
void osp_option_free(void);
/* The canonical profile validated in this process (NULL if none). */
const char *osp_option_canonical(void);
/* Turn a user's SPEC into its canonical form: parse it, or for "@PATH" /
 * "file:PATH" read the file (as the calling user). 0, or -1 with the
 * library's message in msg. allow_files = 0 refuses file specs. */
int osp_spec_canonical(const char *spec, int allow_files, char **canonical,
		       char *msg, size_t msglen);

/* job_env.c: allocator and local contexts, after the options. */
int osp_job_env_post_opt(spank_t sp);

/* relay.c */
struct osp_relay {
	char profile[4096 + 1];
	char period_us[OSP_NUM_MAX + 1];
	char epoch_us[OSP_NUM_MAX + 1];
	char shift_us[OSP_NUM_MAX + 1];
	char job_score[OSP_NUM_MAX + 1];
	/* select/orrery's learn= tolerance: the poller reports the job's
	 * measured iteration (channel.c); not given to the tasks. */
	char learn[OSP_NUM_MAX + 1];
};
/* pattern with %n replaced by node (and %% by %); -1 if it does not fit
 * or %n is needed and node_ok(node) is false. */
int osp_expand_pattern(const char *pattern, const char *node,
		       int (*node_ok)(const char *), char *out, size_t len);
/* runtime_dir with %n replaced by node; -1 if %n is needed but unknown. */
int osp_relay_dir(const char *node, char *out, size_t len);
/* RUNTIME_DIR/<job_id><suffix> on node: the relay file (""), the
 * channel file (".channel"), the statistics directory (".gate"). */
int osp_job_path(const char *node, uint32_t job_id, const char *suffix,
		 char *out, size_t len);
int osp_relay_path(const char *node, uint32_t job_id, char *out, size_t len);
int osp_relay_write(const char *node, uint32_t job_id,
		    const struct osp_relay *r);
/* 1 read, 0 no file, -1 invalid file (logged). */
int osp_relay_read(const char *node, uint32_t job_id, struct osp_relay *r);
int osp_relay_remove(const char *node, uint32_t job_id);
/* Make dir (runtime_dir, expanded) if need be and check that it is root's
 * and writable only by root; -1 (logged) otherwise. */
int osp_runtime_dir_make(const char *dir);
/* Strict checks of what crosses a trust boundary. */
int osp_valid_int(const char *s);     /* decimal int64 >= 0 */
int osp_valid_score(const char *s);   /* [0-9]+(.[0-9]+)?, <= 1e6 */

/* gate.c */
int osp_gate_register(spank_t sp);
/* 1 auto, 0 off, -1 anything else. */
int osp_gate_parse(const char *val);
/* remote: the option if given, else the plugstack default. */
int osp_gate_wanted(spank_t sp);
void osp_gate_free(void);
/* LD_PRELOAD with lib first: 1 written to out, 0 lib already in old,
 * -1 too long. */
int osp_preload_value(const char *lib, const char *old, char *out, size_t len);
/* option.c: bad input in sbatch/salloc/srun: slurm_error(fmt, what,
 * msg), then exit (one line on the user's terminal, nothing queued). */
void osp_reject_input(const char *fmt, const char *what, const char *msg)
	__attribute__((noreturn, format(printf, 1, 0)));
/* First Up phase's offset and the span to the end of the last Up phase of
 * a canonical profile (a model resolved for `nodes`), and in `list` (at
 * least OSP_PHASES_MAX bytes) every Up phase as "OFFSET+DURATION" in
 * microseconds, offsets from the first, in order, comma-separated.  0; 1
 * with msg when the resolved profile has no Up phase (nothing to gate);
 * -1 with msg. */
int osp_phase_geometry(const char *canonical, uint32_t nodes, int64_t *offset_us,
		       int64_t *span_us, char *list, char *msg, size_t msglen);

/* task.c: the job_prolog / epilog and user_init work. */
int osp_prolog(spank_t sp);
int osp_epilog(spank_t sp);
int osp_user_init(spank_t sp);
/* remote init_post_opt (slurmstepd, root): read this node's relay file
 * for osp_user_init, which runs with the user's privileges. */
void osp_relay_load(spank_t sp);

/* counters_job.c: RDMA counters at job start (prolog) and end (epilog). */
/* pattern with %n replaced by node (and %% by %); -1 if it does not fit
 * or %n is needed and node is not a plain name. */
int osp_expand_node(const char *pattern, const char *node, char *out,
		    size_t len);
int osp_counters_prolog(spank_t sp, uint32_t job_id);
/* This node's ORRC1: record into rec: 1, or 0 when there is none. */
int osp_counters_epilog(spank_t sp, uint32_t job_id, char *rec, size_t len);

/* gate_stats_job.c: the gate's statistics per job (gate_stats=1).  dir:
 * RUNTIME_DIR/<jobid>.gate; prolog makes it the job's; epilog sums its
 * files into this node's ORRS1: record: 1, or 0 when there is none. */
int osp_gate_stats_dir(const char *node, uint32_t job_id, char *out, size_t len);
void osp_gate_stats_prolog(spank_t sp, uint32_t job_id);
int osp_gate_stats_epilog(spank_t sp, uint32_t job_id, char *rec, size_t len);
/* While the job runs (the channel poller, learning the period): the
 * node's statistics files summed into *t, read as the epilog reads them
 * and left in place.  0, or -1 when there is no such directory of the
 * job's user (uid). */
struct ogs_totals;
int osp_gate_stats_now(const char *node, uint32_t job_id, uid_t uid,
		       struct ogs_totals *t);

/* publish.c: start counters_publisher, detached, with this node's
 * records (space-separated tokens). */
void osp_publish(uint32_t job_id, const char *node, const char *records);

/* channel.c: the live channel, node side (remote context, slurmstepd,
 * root).  start: from init_post_opt, a poller thread for an orrery job
 * (its relay file exists) when channel_poll_ms > 0; stop: from exit
 * (joins it).  path: the job's channel file on this node. */
int osp_channel_path(const char *node, uint32_t job_id, char *out, size_t len);
void osp_channel_start(spank_t sp);
void osp_channel_stop(void);
void osp_channel_remove(const char *node, uint32_t job_id);

/* learn.c: learning the period, node side (the channel's poller thread).
 * init: from osp_channel_start, with the job's relay (its learn= value,
 * from select/orrery); tick: at every poll, with the job's batch host and
 * AdminComment as slurmctld has them (only the batch host reports). */
void osp_learn_init(uint32_t job_id, uid_t uid, const char *node,
		    const struct osp_relay *r);
void osp_learn_tick(const char *batch_host, const char *admin_comment,
		    int verbose);

/* nic_affinity.c: user_init, remote context. */
int osp_nic_affinity(spank_t sp);

#endif /* ORRERY_SPANK_H */
