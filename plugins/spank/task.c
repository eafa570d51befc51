/*
 * task.c - the job_script (prolog/epilog, root) and remote (slurmstepd)
 * contexts: relay the job's profile and the controller's values to every
 * task of every step on every node.
 *
 * Tasks receive only these fixed names: ORRERY_PROFILE, ORRERY_PERIOD_US,
 * ORRERY_EPOCH_US, ORRERY_SHIFT_US, ORRERY_JOB_SCORE, ORRERY_PHASE_OFFSET_US,
 * ORRERY_PHASE_SPAN_US, ORRERY_PHASES_US, ORRERY_GATE_MARGIN_PPM (the
 * admin's gate_margin=), ORRERY_CHANNEL and
 * ORRERY_RUNTIME_JOB_STATS (paths this plugin made), and with
 * --comm-gate=auto the admin's gate_library at the front of LD_PRELOAD.
 * The controller's names are never taken from a value that passed through
 * user hands unchecked: everything is validated again here.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <orrery.h>

#include "counters.h"
#include "gate_stats.h"
#include "orrery_spank.h"

static int job_id_from(spank_t sp, uint32_t *id)
{
	const char *s;
	char *end;
	unsigned long v;

	if (spank_get_item(sp, S_JOB_ID, id) == ESPANK_SUCCESS && *id)
		return 0;
	s = getenv("SLURM_JOB_ID");
	if (!s || !osp_valid_int(s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

/* Copy a controller value from the prolog's environment after checking it. */
static void take_env(const char *name, char *field, size_t size, int score)
{
	char var[64];
	const char *val;

	snprintf(var, sizeof(var), OSP_SPANK_PREFIX "%s", name);
	val = getenv(var);
	if (!val)
		return;
	if (strlen(val) >= size || !(score ? osp_valid_score(val) : osp_valid_int(val))) {
		slurm_error(OSP_LOG_PREFIX "prolog: %s is not a valid number: ignored", var);
		return;
	}
	strcpy(field, val);
}

extern char **environ;

int osp_prolog(spank_t sp)
{
	const char *node = getenv("SLURMD_NODENAME");
	const char *profile = getenv(OSP_SPANK_PREFIX OSP_ENV_PROFILE);
	struct osp_relay r;
	uint32_t id;

	if (job_id_from(sp, &id) < 0) {
		slurm_error(OSP_LOG_PREFIX "prolog: no job id");
		return 0;
	}
	if (osp_conf.counters)
		osp_counters_prolog(sp, id);
	if (osp_conf.verbose) {
		char **e;

		for (e = environ; *e; e++)
			if (strncmp(*e, OSP_SPANK_PREFIX "ORRERY_", 13) == 0)
				slurm_info(OSP_LOG_PREFIX "prolog: job %" PRIu32 ": %.*s set",
					   id, (int)strcspn(*e, "="), *e);
	}
	memset(&r, 0, sizeof(r));
	if (profile) {
		char msg[ORRERY_ERRMSG_MAX + 64];
		char *canonical = NULL;

		/* The job's environment came from the submitting host: parse
		 * again (never a file: we are root here). */
		if (osp_spec_canonical(profile, 0, &canonical, msg, sizeof(msg)) < 0) {
			slurm_error(OSP_LOG_PREFIX "prolog: job %" PRIu32 ": invalid " OSP_ENV_PROFILE ": %s",
				    id, msg);
		} else if (strlen(canonical) < sizeof(r.profile)) {
			strcpy(r.profile, canonical);
		} else {
			slurm_error(OSP_LOG_PREFIX "prolog: job %" PRIu32 ": canonical profile longer than %zu characters: not relayed",
				    id, sizeof(r.profile) - 1);
		}
		free(canonical);
	}
	take_env(OSP_ENV_PERIOD, r.period_us, sizeof(r.period_us), 0);
	take_env(OSP_ENV_EPOCH, r.epoch_us, sizeof(r.epoch_us), 0);
	take_env(OSP_ENV_SHIFT, r.shift_us, sizeof(r.shift_us), 0);
	take_env(OSP_ENV_SCORE, r.job_score, sizeof(r.job_score), 1);
	take_env(OSP_ENV_LEARN, r.learn, sizeof(r.learn), 1);
	if (!r.profile[0] && !r.period_us[0] && !r.shift_us[0])
		return 0;       /* not an orrery job */

	if (osp_conf.gate_stats)
		osp_gate_stats_prolog(sp, id);
	/* A failing prolog drains the node: log and carry on instead. */
	if (osp_relay_write(node, id, &r) == 0 && osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "prolog: job %" PRIu32 " on %s: period_us=%s shift_us=%s",
			   id, node ? node : "?", r.period_us[0] ? r.period_us : "-",
			   r.shift_us[0] ? r.shift_us : "-");
	return 0;
}

int osp_epilog(spank_t sp)
{
	char recs[ORC_RECORD_MAX + OGS_RECORD_MAX + 2] = "";
	size_t n;
	uint32_t id;

	if (job_id_from(sp, &id) < 0)
		return 0;
	/* This node's records, published together by one publisher. */
	if (osp_conf.counters && osp_counters_epilog(sp, id, recs, ORC_RECORD_MAX) != 1)
		recs[0] = '\0';	/* nothing, not a part */
	n = strlen(recs);
	if (osp_conf.gate_stats &&
	    osp_gate_stats_epilog(sp, id, recs + n + !!n, OGS_RECORD_MAX) == 1 && n)
		recs[n] = ' ';
	if (recs[0])
		osp_publish(id, getenv("SLURMD_NODENAME"), recs);
	osp_relay_remove(getenv("SLURMD_NODENAME"), id);
	osp_channel_remove(getenv("SLURMD_NODENAME"), id);
	return 0;
}

static int put(spank_t sp, const char *name, const char *val)
{
	spank_err_t rc;

	if (!val || !val[0]) {
		/* Only values this plugin checked reach the gate. */
		spank_unsetenv(sp, name);
		return 0;
	}
	rc = spank_setenv(sp, name, val, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error(OSP_LOG_PREFIX "setenv %s: %s", name, spank_strerror(rc));
		return -1;
	}
	return 0;
}

/* The profile's phase geometry, for the runtime (gate.c).  *nogate: why
 * the job needs no gate, where nothing is wrong (a one-node job has no
 * network phase; a profile may have none for the job's size). */
static int put_geometry(spank_t sp, uint32_t id, const char *profile,
			const char **nogate)
{
	char msg[ORRERY_ERRMSG_MAX + 64], off[OSP_NUM_MAX + 1], span[OSP_NUM_MAX + 1];
	char list[OSP_PHASES_MAX];
	uint32_t nodes = 0;
	int64_t o, s;
	int rc = 0, g = -1;

	off[0] = span[0] = list[0] = '\0';
	spank_get_item(sp, S_JOB_NNODES, &nodes);
	if (profile && nodes == 1)
		*nogate = "single-node";
	else if (profile &&
		 (g = osp_phase_geometry(profile, nodes, &o, &s, list, msg, sizeof(msg))) == 0) {
		snprintf(off, sizeof(off), "%" PRId64, o);
		snprintf(span, sizeof(span), "%" PRId64, s);
	} else if (profile && g == 1) {
		*nogate = "no-communication";
	} else if (profile) {
		slurm_error(OSP_LOG_PREFIX "job %" PRIu32 ": no phase offset: %s", id, msg);
	}
	rc |= put(sp, OSP_ENV_PHASE_OFFSET, off);
	rc |= put(sp, OSP_ENV_PHASE_SPAN, span);
	rc |= put(sp, OSP_ENV_PHASES, list);
	return rc;
}

/* ORRERY_GATE=none:WHY in the tasks of a profiled job that gets no gate,
 * so that the job can tell why (orrery-env(7)); a user's own ORRERY_GATE
 * stays. */
static void put_no_gate(spank_t sp, uint32_t id, const char *why)
{
	char cur[64], val[64];

	if (spank_getenv(sp, OSP_ENV_GATE, cur, sizeof(cur)) == ESPANK_SUCCESS)
		return;
	snprintf(val, sizeof(val), "none:%s", why);
	if (spank_setenv(sp, OSP_ENV_GATE, val, 0) != ESPANK_SUCCESS)
		return;
	if (osp_conf.verbose)
		slurm_verbose(OSP_LOG_PREFIX "job %" PRIu32 ": no gate (%s)", id, why);
}

/* --comm-gate=auto: the admin's interposer first in LD_PRELOAD. */
static int put_preload(spank_t sp, uint32_t id)
{
	const char *lib = osp_conf.gate_library;
	char old[OSP_PRELOAD_MAX], val[OSP_PRELOAD_MAX + OSP_PATH_MAX];
	spank_err_t rc;
	int w;

	if (access(lib, R_OK) != 0) {
		slurm_error(OSP_LOG_PREFIX "job %" PRIu32 ": --" OSP_GATE_OPTION_NAME ": gate_library %s: %m; not gated",
			    id, lib);
		return 0;
	}
	rc = spank_getenv(sp, "LD_PRELOAD", old, sizeof(old));
	if (rc == ESPANK_ENV_NOEXIST)
		old[0] = '\0';
	else if (rc != ESPANK_SUCCESS) {
		slurm_error(OSP_LOG_PREFIX "job %" PRIu32 ": LD_PRELOAD unreadable (%s); not gated",
			    id, spank_strerror(rc));
		return 0;
	}
	w = osp_preload_value(lib, old, val, sizeof(val));
	if (w <= 0) {
		if (w < 0)
			slurm_error(OSP_LOG_PREFIX "job %" PRIu32 ": LD_PRELOAD too long; not gated", id);
		return 0;
	}
	if (put(sp, "LD_PRELOAD", val) < 0)
		return -1;
	if (osp_conf.verbose)
		slurm_verbose(OSP_LOG_PREFIX "job %" PRIu32 ": NCCL collectives gated (%s)", id, lib);
	return 0;
}

/* slurmstepd's own environment names this node (multiple-slurmd); the
 * task environment may still carry the batch host's name, copied by srun
 * from the batch script, so it is only the fallback. */
static void node_name(spank_t sp, char *node, size_t len)
{
	if (getenv("SLURMD_NODENAME"))
		snprintf(node, len, "%s", getenv("SLURMD_NODENAME"));
	else if (spank_getenv(sp, "SLURMD_NODENAME", node, len) != ESPANK_SUCCESS)
		node[0] = '\0';
}

/* The relay file is root's, mode 0600 (other users on the node do not
 * read a job's profile and slot), and user_init runs with the job user's
 * privileges: so slurmstepd reads it earlier, as root, in init_post_opt,
 * and user_init, in the same slurmstepd, uses that copy. */
static struct osp_relay relay;
static uint32_t relay_job;	/* whose relay was read; 0: none */

void osp_relay_load(spank_t sp)
{
	char node[256] = "";
	uint32_t id;

	relay_job = 0;
	if (job_id_from(sp, &id) < 0)
		return;
	node_name(sp, node, sizeof(node));
	if (osp_relay_read(node, id, &relay) > 0)
		relay_job = id;
}

int osp_user_init(spank_t sp)
{
	char node[256] = "";
	struct osp_relay r;
	char *fallback = NULL;
	const char *profile, *nogate = NULL;
	uint32_t id;
	int rc = 0;

	if (job_id_from(sp, &id) < 0)
		return 0;
	node_name(sp, node, sizeof(node));
	if (relay_job == id)
		r = relay;
	else
		memset(&r, 0, sizeof(r));
	profile = r.profile[0] ? r.profile : NULL;
	if (!profile) {
		/* No relay (no PrologFlags=Alloc, or no controller values):
		 * the option as given, when it is not a file, else the
		 * site default. */
		const char *val = osp_option_getopt(sp);
		char msg[ORRERY_ERRMSG_MAX + 64];

		if (val && val[0] != '@' && strncmp(val, "file:", 5) != 0 &&
		    osp_spec_canonical(val, 0, &fallback, msg, sizeof(msg)) == 0)
			profile = fallback;
		else if (osp_conf.default_profile)
			profile = osp_conf.default_profile;
	}
	if (!profile && !r.period_us[0]) {
		free(fallback);
		return 0;
	}
	rc |= put(sp, OSP_ENV_PROFILE, profile);
	rc |= put(sp, OSP_ENV_PERIOD, r.period_us);
	rc |= put(sp, OSP_ENV_EPOCH, r.epoch_us);
	rc |= put(sp, OSP_ENV_SHIFT, r.shift_us);
	rc |= put(sp, OSP_ENV_SCORE, r.job_score);
	rc |= put_geometry(sp, id, profile, &nogate);
	/* No slot from the controller: select/orrery not in use, or the
	 * job's record says why it fell back (orrery-sacct). */
	if (!nogate && !(r.shift_us[0] && r.period_us[0]))
		nogate = "no-slot";
	if (nogate)
		put_no_gate(sp, id, nogate);
	else if (osp_gate_wanted(sp) == 1)
		rc |= put_preload(sp, id);
	/* The gate's statistics for accounting (gate_stats_job.c), where
	 * the prolog made the job's directory. */
	if (!nogate && osp_conf.gate_stats) {
		char dir[OSP_PATH_MAX];

		if (osp_gate_stats_dir(node, id, dir, sizeof(dir)) == 0 &&
		    faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) == 0)
			rc |= put(sp, OSP_ENV_JOB_STATS, dir);
	} else {
		spank_unsetenv(sp, OSP_ENV_JOB_STATS);
	}
	/* Every gate's margin, the site's (gate_margin=): a job's own value
	 * is replaced, since neighbours' gates must stretch alike. */
	if (!nogate && osp_conf.gate_margin_ppm) {
		char m[OSP_NUM_MAX + 1];

		snprintf(m, sizeof(m), "%" PRIu32, osp_conf.gate_margin_ppm);
		rc |= put(sp, OSP_ENV_MARGIN, m);
	} else {
		spank_unsetenv(sp, OSP_ENV_MARGIN);
	}
	/* The live channel's file (channel.c), where its poller runs: the
	 * runtime accepts it only root-owned and for this job. */
	if (!nogate && osp_conf.channel_poll_ms > 0) {
		char chan[OSP_PATH_MAX];

		if (osp_channel_path(node, id, chan, sizeof(chan)) == 0)
			rc |= put(sp, OSP_ENV_CHANNEL, chan);
	} else {
		spank_unsetenv(sp, OSP_ENV_CHANNEL);
	}
	if (osp_conf.verbose)
		slurm_verbose(OSP_LOG_PREFIX "job %" PRIu32 " on %s: %s%s", id, node,
			      r.period_us[0] ? "controller values relayed, " : "",
			      profile ? profile : "(no profile)");
	free(fallback);
	return rc ? -1 : 0;
}
