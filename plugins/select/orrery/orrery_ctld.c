/*
 * orrery_ctld.c - select/orrery_cons_tres inside slurmctld.
 *
 *   - orrery.conf (re)read at init and reconfigure;
 *   - an orrery cluster (topology + running jobs) built lazily from
 *     topology/tree's switch_record_table, with capacities from
 *     orrery.conf, and its running jobs kept in
 *     StateSaveLocation/orrery_state;
 *   - job_test: for a job with a comm profile (ORRERY_PROFILE in its SPANK
 *     job environment, or orrery.conf's default_profile) that cons_tres
 *     can start now, rank candidate node sets and hand cons_tres the best
 *     one; next candidates, then cons_tres's own answer on the full set.
 *     A job that cannot start costs one cons_tres call and no ranking.
 *     Parsed profiles and rankings are cached per job (place_cache.h).
 *     Read-only: job_test runs many times per job;
 *   - job_begin: evaluate the allocated nodes, record the job with its
 *     shift, export ORRERY_* to the job's SPANK environment (the prolog
 *     sees SPANK_ORRERY_*) and append an ORR1: record to AdminComment;
 *   - job_fini / resize / expand: forget the job.
 *
 * Fail-open: every orrery error leaves the job to plain cons_tres and logs
 * "select/orrery: <reason>, falling back to cons_tres for JobId=N".
 * Everything runs under slurmctld's job and node locks; `lock` only guards
 * this file's state against the few calls made without them.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/env.h"
#include "src/common/node_conf.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "capacity_check.h"
#include "admin_record.h"
#include "free_cpus.h"
#include "orrery_conf.h"
#include "options.h"
#include "orrery_ctld.h"
#include "place_cache.h"
#include "recover.h"
#include "state_saver.h"

#include "lib_syms.h"

/* slurmctld's own (not in libslurmfull): weak, as this file is only run
 * inside slurmctld but the plugin also loads in client commands. */
#pragma weak find_job_record
#pragma weak idle_node_bitmap
#pragma weak job_list

/* The SPANK plugin stores the user's --comm-profile here with
 * spank_job_control_setenv(). */
#define PROFILE_ENV "ORRERY_PROFILE"
/* Candidates handed to cons_tres before the unnarrowed bitmap. */
#define MAX_TRIES ORR_CACHE_MAX_CANDS
/* Per-job cache entries at most (pending profiled jobs; least recently
 * used evicted beyond). */
#define CACHE_CAP 4096
#define STATS_PERIOD 600

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static orrery_conf_t ocnf;
static bool conf_ok;
/* Hash of orrery.conf's text as last loaded (part of build_signature()). */
static uint64_t conf_hash;

static struct {
	orrery_cluster_t *cluster;	/* NULL: not built / pass-through */
	bool need_build;
	bool build_failed;		/* logged once per reconfigure */
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
} g = { .need_build = true };

static struct {
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
	/* Narrowed jobs whose first candidate was cons_tres's own answer on
	 * the full set: started without a second cons_tres call. */
	uint64_t kept;
	/* Model (re)builds: topology, capacities, running jobs restored
	 * from orrery_state; CPU time of the calling thread. */
	uint64_t builds, build_cpu_ns;
	/* Wall time of job_begin (evaluation, record, env, AdminComment,
	 * handing orrery_state to the saver thread). */
	uint64_t begin_ns;
	time_t last_log;
} stats;

static void bump_version_locked(void)
{
	g.version++;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static bool orr_debug(void)
{
	return conf_ok && ocnf.debug;
}

static void log_stats_locked(bool force)
{
	time_t now = time(NULL);
	orr_cache_stats_t cs;
	uint64_t saves, save_ns;

	if (!force && !orr_debug() && now - stats.last_log < STATS_PERIOD)
		return;
	stats.last_log = now;
	orr_cache_stats(g.cache, &cs);
	orr_saver_stats(&saves, &save_ns);
	info("select/orrery: mode=%s profiled_tests=%"PRIu64
	     " placements=%"PRIu64" narrowed=%"PRIu64" begun=%"PRIu64
	     " fallbacks=%"PRIu64" jobs=%zu job_tests=%"PRIu64
	     " job_test_us=%"PRIu64" cons_tres_calls=%"PRIu64
	     " cons_tres_us=%"PRIu64" run_now_tests=%"PRIu64
	     " run_now_us=%"PRIu64" rank_hits=%"PRIu64" rank_misses=%"PRIu64
	     " rank_us=%"PRIu64" parses=%"PRIu64" tries_skipped=%"PRIu64
	     " cache_entries=%zu cache_evicted=%"PRIu64
	     " job_test_cpu_us=%"PRIu64" cons_tres_cpu_us=%"PRIu64
	     " run_now_cpu_us=%"PRIu64" kept_answers=%"PRIu64
	     " builds=%"PRIu64" build_cpu_us=%"PRIu64
	     " job_begin_us=%"PRIu64" saves=%"PRIu64" save_us=%"PRIu64,
	     orrery_mode_name(conf_ok ? ocnf.mode : ORRERY_MODE_OFF),
	     stats.tested, stats.placements, stats.narrowed, stats.begun,
	     stats.fallbacks,
	     g.cluster ? orrery_cluster_job_count(g.cluster) : (size_t) 0,
	     __atomic_load_n(&stats.jt_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&stats.jt_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&stats.ct_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&stats.ct_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&stats.run_calls, __ATOMIC_RELAXED),
	     __atomic_load_n(&stats.run_ns, __ATOMIC_RELAXED) / 1000,
	     stats.rank_hits, stats.rank_misses, stats.rank_ns / 1000,
	     stats.parses, stats.tries_skipped, cs.live, cs.evicted,
	     __atomic_load_n(&stats.jt_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&stats.ct_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     __atomic_load_n(&stats.run_cpu_ns, __ATOMIC_RELAXED) / 1000,
	     stats.kept, stats.builds, stats.build_cpu_ns / 1000,
	     stats.begin_ns / 1000, saves, save_ns / 1000);
}

static void fallback(job_record_t *job_ptr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fallback(job_record_t *job_ptr, const char *fmt, ...)
{
	char reason[ORRERY_ERRMSG_MAX + 128];
	va_list ap;
	static uint32_t last_job;
	static char last_reason[48];

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	stats.fallbacks++;
	/* job_test runs every scheduling pass: say each reason once per
	 * job (the counter still counts every fallback). */
	if (job_ptr->job_id == last_job &&
	    !strncmp(reason, last_reason, sizeof(last_reason) - 1))
		return;
	last_job = job_ptr->job_id;
	{
		size_t l = strnlen(reason, sizeof(last_reason) - 1);

		memcpy(last_reason, reason, l);
		last_reason[l] = '\0';
	}
	info("select/orrery: %s, falling back to cons_tres for %pJ", reason,
	     job_ptr);
}

/* A bad default_profile would fail every job on every scheduling pass:
 * reject it once, at load. */
static void check_default_profile_locked(const char *path)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err = { 0 };

	if (!ocnf.default_profile || lib_missing())
		return;
	if (orrery_profile_parse(ocnf.default_profile, &p, &err)) {
		error("select/orrery: %s: [orrery] default_profile: %s; jobs without --comm-profile are left to cons_tres",
		      path, err.message);
		free(ocnf.default_profile);
		ocnf.default_profile = NULL;
	}
	orrery_profile_free(p);
}

/* Hash of the orrery.conf text whose errors were last logged (0: none). */
static uint64_t reported_hash;

/* Every error of one load in one block: a single error on one line, as
 * before; several under a heading line, one line each. */
static void log_conf_errors(const char *path, char *err)
{
	size_t n = 1;

	for (const char *p = err; (p = strchr(p, '\n')); p++)
		n++;
	if (n == 1) {
		error("select/orrery: %s; running as plain cons_tres", err);
		return;
	}
	error("select/orrery: %s: %zu errors; running as plain cons_tres:",
	      path ? path : "orrery.conf", n);
	for (char *save = NULL, *l = strtok_r(err, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		error("select/orrery:   %s", l);
}

static void load_conf_locked(void)
{
	char err[ORRERY_CONF_ERR_MAX] = "";
	char *path = orrery_conf_path(slurm_conf.slurm_conf);
	int rc;

	gchar *text = NULL;
	gsize len = 0;

	conf_hash = ORR_HASH_INIT;
	if (path && g_file_get_contents(path, &text, &len, NULL))
		conf_hash = orr_hash_bytes(conf_hash, text, len);
	g_free(text);
	orrery_conf_free(&ocnf);
	rc = orrery_conf_load(path, &ocnf, err, sizeof(err));
	if (rc < 0) {
		/* slurmctld reloads on every reconfigure, node and partition
		 * update: a file already reported is not reported again until
		 * its text changes. */
		if (conf_hash != reported_hash)
			log_conf_errors(path, err);
		reported_hash = conf_hash;
		conf_ok = false;
	} else {
		reported_hash = 0;
		if (rc > 0)
			info("select/orrery: %s", err);
		conf_ok = true;
		check_default_profile_locked(path);
		info("select/orrery: mode=%s candidates=%u%s%s",
		     orrery_mode_name(ocnf.mode), ocnf.candidates,
		     ocnf.default_profile ? " default_profile=" : "",
		     ocnf.default_profile ? ocnf.default_profile : "");
	}
	free(path);
	/* While off (or misconfigured) jobs start unrecorded: the model must
	 * be rebuilt when orrery is back, not kept (build_signature()). */
	if (!conf_ok || ocnf.mode == ORRERY_MODE_OFF)
		g.build_sig = 0;
}

/* ------------------------------------------------------------------ */
/* Topology from topology/tree                                         */
/* ------------------------------------------------------------------ */

static void drop_cluster_locked(void)
{
	if (g.cluster)
		orrery_cluster_free(g.cluster);
	g.cluster = NULL;
	xfree(g.slurm2orr);
	xfree(g.orr2slurm);
	g.orr_nodes = 0;
	g.slurm_nodes = 0;
	g.build_sig = 0;
}

/* Build the orrery topology from switch_record_table.  Returns NULL with
 * err filled on anything orrery cannot model (no tree, several roots, a
 * node under two leaves, ...). */
static orrery_topology_t *build_topology(orrery_error_t *err)
{
	orrery_topology_t *t = orrery_topology_new();
	int *parent = NULL;

	if (!t) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return NULL;
	}
	if (switch_record_cnt <= 0 || !switch_record_table) {
		snprintf(err->message, sizeof(err->message),
			 "no switches (TopologyPlugin=topology/tree and topology.conf needed)");
		goto fail;
	}
	parent = xcalloc(switch_record_cnt, sizeof(int));
	for (int i = 0; i < switch_record_cnt; i++)
		parent[i] = -1;
	for (int i = 0; i < switch_record_cnt; i++) {
		switch_record_t *s = &switch_record_table[i];

		for (int c = 0; c < s->num_switches && s->switch_index; c++) {
			int ci = s->switch_index[c];

			if (ci >= 0 && ci < switch_record_cnt)
				parent[ci] = i;
		}
	}
	for (int i = 0; i < switch_record_cnt; i++) {
		switch_record_t *s = &switch_record_table[i];
		const char *p = parent[i] >= 0 ?
			switch_record_table[parent[i]].name : NULL;

		if (orrery_topology_add_switch(t, s->name, p, err))
			goto fail;
	}
	for (int i = 0; i < switch_record_cnt; i++) {
		switch_record_t *s = &switch_record_table[i];

		if (s->level != 0 || !s->node_bitmap)
			continue;
		for (int n = 0; n < node_record_count &&
			     n < bit_size(s->node_bitmap); n++) {
			if (!bit_test(s->node_bitmap, n) ||
			    !node_record_table_ptr[n])
				continue;
			if (orrery_topology_add_node(
				    t, node_record_table_ptr[n]->name, s->name,
				    err))
				goto fail;
		}
	}
	if (orrery_topology_finalize(t, err))
		goto fail;

	orrery_capacity_check_ctld(&ocnf);	/* log disagreements, once */
	/* Capacities: topology.conf LinkSpeed (times linkspeed_unit), then
	 * [uplinks] levelN, then [switch.NAME] (most specific wins). */
	if (ocnf.node_link_mbps)
		orrery_topology_set_node_link(t, ocnf.node_link_mbps);
	for (int i = 0; i < switch_record_cnt; i++) {
		switch_record_t *s = &switch_record_table[i];
		uint64_t v = (uint64_t) s->link_speed *
			ocnf.linkspeed_unit_mbps;

		if (parent[i] >= 0 && s->link_speed > 1 &&
		    orrery_topology_set_uplink(t, s->name, v, v, err))
			goto fail;
	}
	for (int l = 0; l < ORRERY_CONF_MAX_LEVELS; l++) {
		uint64_t v = ocnf.level_uplink_mbps[l];

		if (v && l < switch_levels &&
		    orrery_topology_set_level_uplink(t, l, v, v, err))
			goto fail;
	}
	for (size_t i = 0; i < ocnf.n_switches; i++) {
		uint64_t v = ocnf.switches[i].uplink_mbps;

		if (orrery_topology_set_uplink(t, ocnf.switches[i].name, v, v,
					       err))
			goto fail;
	}
	xfree(parent);
	return t;
fail:
	xfree(parent);
	orrery_topology_free(t);
	return NULL;
}

static void save_state_locked(void);

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* Forget recorded jobs that slurmctld no longer runs (they ended while
 * slurmctld was down, or the state file is older than Slurm's). */
static void reconcile_locked(void)
{
	size_t removed = 0;

	if (!g.cluster || !g.have_live)
		return;
	for (size_t i = orrery_cluster_job_count(g.cluster); i-- > 0;) {
		uint32_t id = orrery_cluster_job_id(g.cluster, i);

		if (!bsearch(&id, g.live_ids, g.n_live, sizeof(uint32_t),
			     cmp_u32) &&
		    orrery_cluster_remove_job(g.cluster, id) == ORRERY_OK)
			removed++;
	}
	if (removed) {
		info("select/orrery: forgot %zu recorded jobs that are no longer running",
		     removed);
		save_state_locked();
	}
}

/*
 * Everything the cluster model is built from: orrery.conf's text, the
 * StateSaveLocation, the node table's names in index order and
 * topology/tree's switch records.  `scontrol reconfigure' re-reads them
 * all; when none changed, the model (with its running jobs) is kept
 * instead of rebuilt from orrery_state.  0 is never returned: it means
 * "rebuild".
 */
static uint64_t hash_bitmap(uint64_t h, bitstr_t *b);

static uint64_t build_signature(void)
{
	uint64_t h = orr_hash_bytes(ORR_HASH_INIT, &conf_hash,
				    sizeof(conf_hash));

	if (slurm_conf.state_save_location)
		h = orr_hash_bytes(h, slurm_conf.state_save_location,
				   strlen(slurm_conf.state_save_location));
	h = orr_hash_bytes(h, &node_record_count, sizeof(node_record_count));
	for (int n = 0; n < node_record_count; n++) {
		const char *name = node_record_table_ptr[n] ?
			node_record_table_ptr[n]->name : NULL;

		h = orr_hash_bytes(h, name ? name : "", name ? strlen(name) + 1 : 1);
	}
	h = orr_hash_bytes(h, &switch_record_cnt, sizeof(switch_record_cnt));
	for (int i = 0; switch_record_table && i < switch_record_cnt; i++) {
		switch_record_t *sw = &switch_record_table[i];
		uint64_t v[3] = { sw->level, sw->link_speed, sw->num_switches };

		h = orr_hash_bytes(h, sw->name ? sw->name : "",
				   sw->name ? strlen(sw->name) + 1 : 1);
		h = orr_hash_bytes(h, v, sizeof(v));
		for (int c = 0; sw->switch_index && c < sw->num_switches; c++)
			h = orr_hash_bytes(h, &sw->switch_index[c],
					   sizeof(sw->switch_index[c]));
		h = hash_bitmap(h, sw->node_bitmap);
	}
	return h ? h : 1;
}

/* Running jobs that orrery_state lacks (none, when it was missing or
 * unusable) come back from their ORR1: records, so that new jobs are
 * still placed and shifted against them.  One line when anything was
 * rebuilt or could not be, or when the state file was unusable. */
static size_t recover_locked(bool adopt_epoch, bool state_bad)
{
	orr_recover_result_t rr;

	orr_recover_jobs(g.cluster, &job_list ? job_list : NULL, g.slurm2orr,
			 g.slurm_nodes, adopt_epoch, &rr);
	if (rr.recovered || rr.failed || state_bad)
		info("select/orrery: rebuilt %zu running jobs from their ORR1: records, %zu could not be%s%s%s",
		     rr.recovered, rr.failed, rr.failed ? " (first: " : "",
		     rr.failed ? rr.first_failure : "", rr.failed ? ")" : "");
	return rr.recovered;
}

/* Make g.cluster match the current topology and orrery.conf.  false: run
 * as plain cons_tres (logged once per reconfigure). */
static bool ensure_cluster_locked(void)
{
	orrery_error_t err = { 0 };
	orrery_cluster_opts_t opts;
	orrery_topology_t *t;
	size_t dropped = 0;
	uint64_t sig, c0;
	const char *missing;
	bool loaded = false, state_bad = false;
	size_t recovered;

	if (!conf_ok || ocnf.mode == ORRERY_MODE_OFF)
		return false;
	if ((missing = lib_missing())) {
		if (!g.build_failed)
			error("select/orrery: liborrery lacks %s (built without placement?); running as plain cons_tres",
			      missing);
		g.build_failed = true;
		g.need_build = false;
		return false;
	}
	if (!g.need_build && g.slurm_nodes == node_record_count)
		return g.cluster != NULL;
	sig = build_signature();
	if (g.cluster && sig == g.build_sig) {
		g.need_build = false;
		if (orr_debug())
			info("select/orrery: reconfigure changed nothing orrery models; kept its %zu running jobs",
			     orrery_cluster_job_count(g.cluster));
		return true;
	}
	drop_cluster_locked();
	c0 = cpu_ns();
	stats.builds++;
	g.need_build = false;
	g.topo_version++;
	bump_version_locked();

	if (!(t = build_topology(&err)))
		goto fail;
	orrery_cluster_opts_default(&opts);
	opts.max_candidates = ocnf.candidates;
	if (orrery_cluster_new(t, &opts, &g.cluster, &err)) {
		orrery_topology_free(t);
		goto fail;
	}
	orrery_topology_free(t);
	t = NULL;

	g.slurm_nodes = node_record_count;
	g.orr_nodes = orrery_topology_node_count(
		orrery_cluster_topology(g.cluster));
	g.slurm2orr = xcalloc(node_record_count ? node_record_count : 1,
			      sizeof(long));
	g.orr2slurm = xcalloc(g.orr_nodes ? g.orr_nodes : 1,
			      sizeof(uint32_t));
	for (int n = 0; n < node_record_count; n++) {
		long o = -1;

		if (node_record_table_ptr[n])
			o = orrery_topology_node_index(
				orrery_cluster_topology(g.cluster),
				node_record_table_ptr[n]->name);
		g.slurm2orr[n] = o;
		if (o >= 0 && (size_t) o < g.orr_nodes)
			g.orr2slurm[o] = n;
	}

	xfree(g.state_path);
	g.state_path = xstrdup_printf("%s/orrery_state",
				      slurm_conf.state_save_location);
	if (access(g.state_path, F_OK) == 0) {
		if (orrery_cluster_load(g.cluster, g.state_path, &dropped,
					&err)) {
			error("select/orrery: %s: %s; rebuilding the running jobs from slurmctld's records",
			      g.state_path, err.message);
			state_bad = true;
		} else {
			loaded = true;
			info("select/orrery: restored %zu jobs from %s (%zu dropped: nodes left the topology)",
			     orrery_cluster_job_count(g.cluster), g.state_path,
			     dropped);
		}
	}
	if (!loaded)
		orrery_cluster_set_epoch_us(g.cluster,
					    (int64_t) time(NULL) * 1000000);
	recovered = recover_locked(!loaded, state_bad);
	info("select/orrery: topology of %d switches, %zu nodes; epoch %"PRId64" us",
	     switch_record_cnt, g.orr_nodes,
	     orrery_cluster_epoch_us(g.cluster));
	g.build_failed = false;
	g.build_sig = sig;
	reconcile_locked();
	if (recovered)
		save_state_locked();
	stats.build_cpu_ns += cpu_ns() - c0;
	return true;
fail:
	drop_cluster_locked();
	/* Not again on every job_test: only after a reconfigure or a node
	 * table change (drop_cluster_locked() zeroed slurm_nodes). */
	g.slurm_nodes = node_record_count;
	if (!g.build_failed)
		error("select/orrery: cannot model the topology: %s; running as plain cons_tres",
		      err.message);
	g.build_failed = true;
	return false;
}

/* At every job start and end: the model's text, serialised here in
 * memory, goes to the saver thread (state_saver.h), which writes the
 * newest one; slurmctld never waits for the disk. */
static void save_state_locked(void)
{
	static bool serialise_failed;
	orrery_error_t err = { 0 };
	char *data = NULL;
	size_t len = 0;

	if (!g.cluster || !g.state_path)
		return;
	if (orrery_cluster_serialise(g.cluster, &data, &len, &err)) {
		if (!serialise_failed)
			error("select/orrery: cannot save %s: %s (not logged again until a save succeeds)",
			      g.state_path, err.message);
		serialise_failed = true;
		return;
	}
	serialise_failed = false;
	orr_saver_submit(g.state_path, data, len);
}

/* ------------------------------------------------------------------ */
/* Profiles                                                            */
/* ------------------------------------------------------------------ */

static const char *job_profile_spec(job_record_t *job_ptr)
{
	const char *spec = NULL;

	if (job_ptr->spank_job_env && job_ptr->spank_job_env_size) {
		size_t n = strlen(PROFILE_ENV);

		for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
			const char *e = job_ptr->spank_job_env[i];

			if (e && !strncmp(e, PROFILE_ENV, n) && e[n] == '=') {
				spec = e + n + 1;
				break;
			}
		}
	}
	if ((!spec || !*spec) && ocnf.default_profile)
		spec = ocnf.default_profile;
	return (spec && *spec) ? spec : NULL;
}

static void free_profile(void *p)
{
	orrery_profile_free(p);
}

/* The job's cache entry for profile text spec, its profile parsed (once
 * per job and text), or NULL (out of memory, or a bad profile reported
 * through fallback() at its first parse). */
static orr_entry_t *job_entry_locked(job_record_t *job_ptr, const char *spec)
{
	orrery_error_t err = { 0 };
	orr_entry_t *e;
	bool created;

	if (!g.cache && !(g.cache = orr_cache_new(CACHE_CAP, free_profile)))
		return NULL;
	if (!(e = orr_cache_get(g.cache, job_ptr->job_id, spec, &created)))
		return NULL;
	if (created) {
		orrery_profile_t *p = NULL;

		stats.parses++;
		if (orrery_profile_parse(spec, &p, &err)) {
			e->parse_failed = true;
			fallback(job_ptr, "bad comm profile: %s", err.message);
		}
		e->parsed = p;
	}
	if (e->parse_failed) {
		if (!created)
			stats.fallbacks++;	/* logged at the parse */
		return NULL;
	}
	return e;
}

/* The profile of entry e resolved for n_nodes (owned by e), or NULL
 * (reported through fallback()). */
static orrery_profile_t *entry_profile_locked(job_record_t *job_ptr,
					      orr_entry_t *e, uint32_t n_nodes)
{
	orrery_profile_t *r = NULL;
	orrery_error_t err = { 0 };
	orrery_shape_t shape = {
		.nodes = n_nodes,
		.link_mbps = orrery_topology_node_link(
			orrery_cluster_topology(g.cluster)),
	};

	if (e->resolved && e->resolved_nodes == n_nodes &&
	    e->resolved_version == g.topo_version)
		return e->resolved;
	if (e->resolved)
		orrery_profile_free(e->resolved);
	e->resolved = NULL;
	if (orrery_profile_resolve(e->parsed, &shape, &r, &err)) {
		fallback(job_ptr, "bad comm profile: %s", err.message);
		return NULL;
	}
	e->resolved = r;
	e->resolved_nodes = n_nodes;
	e->resolved_version = g.topo_version;
	return r;
}

/* Slurm's bitstr_t words (22.05: BITSTR_OVERHEAD header words, bit i in
 * word i/64 at bit i%64), bits past the end masked. */
static uint64_t hash_bitmap(uint64_t h, bitstr_t *b)
{
	int64_t nbits;
	size_t words;
	const uint64_t *w;

	if (!b)
		return orr_hash_bytes(h, "-", 1);
	nbits = bit_size(b);
	words = (nbits + 63) / 64;
	w = (const uint64_t *) (b + BITSTR_OVERHEAD);
	h = orr_hash_bytes(h, &nbits, sizeof(nbits));
	for (size_t i = 0; i < words; i++) {
		uint64_t v = w[i];

		if (i + 1 == words && (nbits & 63))
			v &= (1ull << (nbits & 63)) - 1;
		h = orr_hash_bytes(h, &v, sizeof(v));
	}
	return h;
}

/* A job that slurmctld no longer has, or has finished: its cache entry
 * can go.  Only called with the job read/write lock held. */
static bool job_gone(uint32_t job_id, void *arg)
{
	job_record_t *j;

	(void) arg;
	if (!find_job_record)
		return false;
	j = find_job_record(job_id);
	return !j || IS_JOB_FINISHED(j) || IS_JOB_COMPLETING(j);
}

/* ------------------------------------------------------------------ */
/* Hooks                                                               */
/* ------------------------------------------------------------------ */

void orrery_ctld_init(void)
{
	slurm_mutex_lock(&lock);
	/* The one strong reference to liborrery: keeps it in DT_NEEDED
	 * (the weak ones alone would let the linker drop it). */
	info("select/orrery: liborrery %s", orrery_version());
	load_conf_locked();
	g.need_build = true;
	if (!g.cache)
		g.cache = orr_cache_new(CACHE_CAP, free_profile);
	stats.last_log = time(NULL);
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_fini(void)
{
	slurm_mutex_lock(&lock);
	log_stats_locked(true);
	save_state_locked();
	orr_saver_stop();	/* written before slurmctld exits */
	drop_cluster_locked();
	orr_cache_free(g.cache);
	g.cache = NULL;
	xfree(g.state_path);
	xfree(g.live_ids);
	orrery_conf_free(&ocnf);
	conf_ok = false;
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_reconfigure(void)
{
	slurm_mutex_lock(&lock);
	log_stats_locked(true);	/* counters up to now, e.g. for benchmarks */
	save_state_locked();
	load_conf_locked();
	g.need_build = true;
	g.build_failed = false;
	bump_version_locked();
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_topology_changed(void)
{
	slurm_mutex_lock(&lock);
	g.need_build = true;
	bump_version_locked();
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_state_changed(void)
{
	slurm_mutex_lock(&lock);
	bump_version_locked();
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_job_init(List job_list)
{
	ListIterator it;
	job_record_t *job_ptr;
	size_t cap = job_list ? list_count(job_list) : 0;

	slurm_mutex_lock(&lock);
	xfree(g.live_ids);
	g.n_live = 0;
	g.live_ids = xcalloc(cap ? cap : 1, sizeof(uint32_t));
	if (job_list) {
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it)) && g.n_live < cap)
			if (IS_JOB_RUNNING(job_ptr) ||
			    IS_JOB_SUSPENDED(job_ptr))
				g.live_ids[g.n_live++] = job_ptr->job_id;
		list_iterator_destroy(it);
	}
	qsort(g.live_ids, g.n_live, sizeof(uint32_t), cmp_u32);
	g.have_live = true;
	bump_version_locked();
	reconcile_locked();
	slurm_mutex_unlock(&lock);
}

/* cons_tres's job_test, timed.  Called with and without `lock` (always
 * under slurmctld's job write lock), hence the atomic adds. */
static int delegate(orrery_job_test_args_t *a, bitstr_t *bitmap)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns();
	int rc = a->delegate(a->job_ptr, bitmap, a->min_nodes, a->max_nodes,
			     a->req_nodes, a->mode, a->preemptee_candidates,
			     a->preemptee_job_list, a->exc_core_bitmap);

	__atomic_fetch_add(&stats.ct_ns, now_ns() - t0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.ct_cpu_ns, cpu_ns() - c0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.ct_calls, 1, __ATOMIC_RELAXED);
	return rc;
}

/* What cons_tres's answer depends on besides the bitmap and the state
 * version: cores held by reservations and the job's size. */
static uint64_t req_hash(const orrery_job_test_args_t *a)
{
	struct job_details *d = a->job_ptr->details;
	uint64_t v[7] = {
		a->max_nodes, a->req_nodes,
		d ? d->min_cpus : 0, d ? d->max_cpus : 0,
		d ? d->num_tasks : 0, d ? d->pn_min_cpus : 0,
		d ? d->pn_min_memory : 0,
	};

	return orr_hash_bytes(hash_bitmap(ORR_HASH_INIT, a->exc_core_bitmap),
			      v, sizeof(v));
}

/*
 * Nodes orrery ranks among, from the offered `bitmap': those with CPUs
 * enough for the job (free_cpus.c), and of those the ones that run no job
 * when there are at least `want' of them.  slurmctld already removes busy
 * nodes from the bitmap of an exclusive job, but a job that may share
 * nodes is offered every node, however few cores it has left; ranking
 * among those put the best candidates on nodes that could not take the
 * job, cons_tres refused them all and the job landed where cons_tres
 * alone would put it (doc/benchmark-report.md).  Idle nodes first: a
 * communication-heavy job also wants its node's NIC to itself, a shared
 * NIC being a link orrery does not model.  Should fewer than `want' nodes
 * pass the CPU count (it ignores memory and GRES), every offered node is
 * ranked and cons_tres sorts it out.
 */
static void mark_free_nodes(job_record_t *job_ptr, bitstr_t *bitmap,
			    uint8_t *free_nodes, uint32_t want)
{
	bitstr_t *idle = &idle_node_bitmap ? idle_node_bitmap : NULL;
	uint32_t need = job_ptr->details ? job_ptr->details->pn_min_cpus : 1;
	bitstr_t *fit = orr_nodes_with_free_cpus(bitmap, need ? need : 1,
						 &job_list ? job_list : NULL);
	bitstr_t *from = bitmap;
	uint32_t n_idle = 0;

	if (fit && bit_set_count(fit) >= want)
		from = fit;
	for (size_t i = 0; i < g.orr_nodes; i++) {
		uint32_t s = g.orr2slurm[i];

		free_nodes[i] = (s < bit_size(from)) && bit_test(from, s);
		if (free_nodes[i] && idle && s < bit_size(idle) &&
		    bit_test(idle, s))
			n_idle++;
	}
	if (idle && n_idle >= want) {
		for (size_t i = 0; i < g.orr_nodes; i++) {
			uint32_t s = g.orr2slurm[i];

			if (free_nodes[i] &&
			    !(s < bit_size(idle) && bit_test(idle, s)))
				free_nodes[i] = 0;
		}
	}
	FREE_NULL_BITMAP(fit);
}

/* Rank candidate node sets of n_nodes among a->bitmap and keep the
 * first MAX_TRIES in e under key.  false: placement failed (reported). */
static bool rank_locked(orrery_job_test_args_t *a, orr_entry_t *e,
			const orrery_profile_t *prof,
			const orr_rank_key_t *key, uint32_t n_nodes)
{
	orrery_placement_t *pl = NULL;
	orrery_error_t err = { 0 };
	orr_cand_t cands[MAX_TRIES];
	uint8_t *free_nodes;
	uint32_t *nodes = NULL;
	uint32_t want = n_nodes ? n_nodes : 1;
	size_t cnt, n_c = 0;
	bool ok = false;

	free_nodes = xcalloc(g.orr_nodes ? g.orr_nodes : 1, 1);
	mark_free_nodes(a->job_ptr, a->bitmap, free_nodes, want);
	if (orrery_cluster_place(g.cluster, free_nodes, want, prof,
				 &pl, &err)) {
		snprintf(e->fallback, sizeof(e->fallback), "placement_error");
		fallback(a->job_ptr, "placement failed: %s", err.message);
		goto out;
	}
	cnt = orrery_placement_count(pl);
	nodes = xcalloc((size_t) MAX_TRIES * want, sizeof(uint32_t));
	for (size_t c = 0; c < cnt && n_c < MAX_TRIES; c++) {
		uint32_t *dst = nodes + n_c * want;
		size_t n = orrery_placement_nodes(pl, c, dst, want);
		const orrery_eval_t *ev = orrery_placement_eval(pl, c);
		size_t k = 0;

		if (!ev)
			break;
		if (n > want)	/* only `want' were copied */
			n = want;
		for (size_t i = 0; i < n; i++)	/* to Slurm node indices */
			if (dst[i] < g.orr_nodes)
				dst[k++] = g.orr2slurm[dst[i]];
		cands[n_c++] = (orr_cand_t) {
			.nodes = dst, .n = k,
			.score_min = orrery_eval_score_min(ev),
			.score_mean = orrery_eval_score_mean(ev),
			.shift_us = orrery_eval_shift_us(ev),
		};
	}
	ok = orr_cache_set_ranking(g.cache, e, key, cnt, cands, n_c);
out:
	xfree(nodes);
	xfree(free_nodes);
	orrery_placement_free(pl);
	return ok;
}

/* A narrowed answer that changes what the job's options mean is refused
 * like one cons_tres refused itself. */
static bool answer_keeps_options(job_record_t *job_ptr, bitstr_t *full,
				 bitstr_t *answer, size_t c)
{
	char why[96];

	if (orr_answer_keeps_options(job_ptr, full, answer, why, sizeof(why)))
		return true;
	info("select/orrery: %pJ candidate %zu not taken: %s", job_ptr, c + 1,
	     why);
	return false;
}

static void log_candidate(job_record_t *job_ptr, const orr_entry_t *e,
			  size_t c, bitstr_t *try, bool narrow)
{
	char *names = bitmap2node_name(try);

	info("select/orrery: %s %pJ candidate %zu/%zu %s score_min=%.3f score_mean=%.3f shift=%"PRId64"us",
	     narrow ? "trying" : "advise:", job_ptr, c + 1, e->n_total, names,
	     e->cand[c].score_min, e->cand[c].score_mean,
	     e->cand[c].shift_us);
	xfree(names);
}

/*
 * Rank (or reuse the ranking of) the job among a->bitmap; with narrow,
 * try the candidates: SLURM_SUCCESS with a->bitmap narrowed, or
 * SLURM_ERROR when cons_tres took none (*tries: how many it was
 * offered).  The ranking is reused while its
 * key holds (same state version, bitmap, request); so is what cons_tres
 * answered: candidates it refused under that key are not offered again.
 * `answer': the nodes cons_tres just chose on the full set; candidates
 * are of its size (options.c: -N min-max, --spread-job, ... keep their
 * meaning), and a narrowed answer is taken only if it keeps what the
 * job's options define (orr_answer_keeps_options()).  A first candidate
 * equal to it is taken without asking cons_tres again, since nothing
 * has rewritten the job's resources since that answer.
 */
static int place_locked(orrery_job_test_args_t *a, bool narrow,
			bitstr_t *answer, size_t *tries)
{
	uint32_t n_nodes = bit_set_count(answer);
	job_record_t *job_ptr = a->job_ptr;
	orr_entry_t *e;
	orr_rank_key_t key;
	int rc = SLURM_ERROR;
	size_t first;

	if (!(e = job_entry_locked(job_ptr, job_profile_spec(job_ptr))))
		return SLURM_ERROR;
	stats.tested++;
	key = (orr_rank_key_t) {
		.version = g.version,
		.bitmap_hash = hash_bitmap(ORR_HASH_INIT, a->bitmap),
		.req_hash = req_hash(a),
		.min_nodes = n_nodes,
	};
	if (e->ranked && orr_key_equal(&e->key, &key)) {
		stats.rank_hits++;
	} else {
		uint64_t t0 = now_ns();
		const orrery_profile_t *prof;
		bool ok;

		stats.rank_misses++;
		orr_cache_unrank(g.cache, e);
		prof = entry_profile_locked(job_ptr, e, n_nodes);
		ok = prof && rank_locked(a, e, prof, &key, n_nodes);
		stats.rank_ns += now_ns() - t0;
		if (!ok)
			goto out;
	}
	if (!e->n_cand) {
		snprintf(e->fallback, sizeof(e->fallback), "no_candidate");
		if (orr_debug())
			info("select/orrery: no candidate of %u nodes among the free ones for %pJ",
			     n_nodes, job_ptr);
		goto out;
	}
	stats.placements++;
	first = e->outcome == ORR_OUTCOME_UNKNOWN ? 0 : (size_t) e->outcome;
	for (size_t c = narrow ? first : 0; c < e->n_cand; c++) {
		bitstr_t *try = bit_alloc(bit_size(a->bitmap));
		bool kept;

		for (uint32_t i = 0; i < e->cand[c].n; i++)
			if (e->cand[c].nodes[i] < bit_size(try))
				bit_set(try, e->cand[c].nodes[i]);
		if (!narrow || orr_debug())
			log_candidate(job_ptr, e, c, try, narrow);
		if (!narrow) {
			FREE_NULL_BITMAP(try);
			break;
		}
		kept = !*tries && answer && bit_equal(try, answer);
		if (kept) {
			stats.kept++;
			if (orr_debug())
				info("select/orrery: %pJ candidate %zu is cons_tres's own choice: kept",
				     job_ptr, c + 1);
		} else {
			(*tries)++;
		}
		if (kept || (delegate(a, try) == SLURM_SUCCESS &&
			     answer_keeps_options(job_ptr, answer, try, c))) {
			bit_copybits(a->bitmap, try);
			e->fallback[0] = '\0';
			FREE_NULL_BITMAP(try);
			e->outcome = (int) c;
			stats.narrowed++;
			rc = SLURM_SUCCESS;
			break;
		}
		FREE_NULL_BITMAP(try);
		e->outcome = (int) c + 1;
	}
	if (narrow)
		stats.tries_skipped += first;
	if (narrow && rc != SLURM_SUCCESS)
		snprintf(e->fallback, sizeof(e->fallback),
			 "candidates_refused");
	else if (!narrow)
		snprintf(e->fallback, sizeof(e->fallback), "advise");
out:
	log_stats_locked(false);
	return rc;
}

static int job_test(orrery_job_test_args_t *a);

int orrery_ctld_job_test(orrery_job_test_args_t *a)
{
	uint64_t c0 = cpu_ns(), t0 = now_ns();
	int rc = job_test(a);
	uint64_t dt = now_ns() - t0, dc = cpu_ns() - c0;

	__atomic_fetch_add(&stats.jt_ns, dt, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.jt_cpu_ns, dc, __ATOMIC_RELAXED);
	__atomic_fetch_add(&stats.jt_calls, 1, __ATOMIC_RELAXED);
	if (SELECT_IS_MODE_RUN_NOW(a->mode)) {
		__atomic_fetch_add(&stats.run_ns, dt, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stats.run_cpu_ns, dc, __ATOMIC_RELAXED);
		__atomic_fetch_add(&stats.run_calls, 1, __ATOMIC_RELAXED);
	}
	return rc;
}

/*
 * Enforce mode, a job to start now.  cons_tres first answers on the full
 * set: a job that cannot start anywhere (most calls: a waiting job is
 * tested on every pass) costs what it costs without orrery, and no
 * ranking.  A job that can start is then offered orrery's candidates;
 * if cons_tres refuses them all, it answers on the full set again.  (Its
 * first answer cannot be kept once another call ran: every job_test
 * call also rewrites the job's job_resrcs, total_cpus and GRES
 * selection.)  Called with `lock' held;
 * returns with it released.
 */
static int narrow_locked(orrery_job_test_args_t *a)
{
	bitstr_t *full = bit_copy(a->bitmap);
	size_t tries = 0;
	int rc;

	slurm_mutex_unlock(&lock);
	rc = delegate(a, full);
	if (rc != SLURM_SUCCESS)
		goto out;
	slurm_mutex_lock(&lock);
	rc = place_locked(a, true, full, &tries);	/* a->bitmap: offered set */
	slurm_mutex_unlock(&lock);
	if (rc == SLURM_SUCCESS)
		goto out;
	if (!tries) {	/* nothing ran since the full answer: it stands */
		bit_copybits(a->bitmap, full);
		rc = SLURM_SUCCESS;
		goto out;
	}
	rc = delegate(a, a->bitmap);
out:
	FREE_NULL_BITMAP(full);
	return rc;
}

/* Advise mode: cons_tres decides on the full set; for a job that can
 * start, the best candidate among the offered nodes is logged.  Called
 * with `lock' held; returns with it released. */
static int advise_locked(orrery_job_test_args_t *a)
{
	orrery_job_test_args_t offered = *a;
	int rc;

	offered.bitmap = bit_copy(a->bitmap);
	slurm_mutex_unlock(&lock);
	rc = delegate(a, a->bitmap);
	if (rc == SLURM_SUCCESS) {
		slurm_mutex_lock(&lock);
		size_t tries = 0;

		place_locked(&offered, false, a->bitmap, &tries);
		slurm_mutex_unlock(&lock);
	}
	FREE_NULL_BITMAP(offered.bitmap);
	return rc;
}

static int job_test(orrery_job_test_args_t *a)
{
	job_record_t *job_ptr = a->job_ptr;
	const char *unkept;
	bool narrow;

	/* Will-run (backfill's plan), test-only and reservation tests:
	 * cons_tres's, untouched and without even the lock. */
	if (!SELECT_IS_MODE_RUN_NOW(a->mode))
		return delegate(a, a->bitmap);
	slurm_mutex_lock(&lock);
	if (!ensure_cluster_locked() || !job_profile_spec(job_ptr))
		goto unlocked_delegate;
	/* Options a narrowed bitmap would not keep (options.c): the job is
	 * cons_tres's, and its record says why. */
	narrow = ocnf.mode == ORRERY_MODE_ENFORCE;
	if (narrow && (unkept = orr_option_unkept(job_ptr,
						  a->preemptee_candidates))) {
		orr_entry_t *e = job_entry_locked(job_ptr,
						  job_profile_spec(job_ptr));

		if (e && strcmp(e->fallback, unkept)) {
			snprintf(e->fallback, sizeof(e->fallback), "%s",
				 unkept);
			info("select/orrery: %pJ has %s, left to cons_tres as it is",
			     job_ptr, unkept);
		}
		goto unlocked_delegate;
	}
	if (!narrow && ocnf.mode != ORRERY_MODE_ADVISE)
		goto unlocked_delegate;
	if (narrow)
		return narrow_locked(a);	/* unlocks */
	return advise_locked(a);	/* unlocks */
unlocked_delegate:
	slurm_mutex_unlock(&lock);
	return delegate(a, a->bitmap);
}

/* Set NAME=value in the job's SPANK environment (seen by the prolog as
 * SPANK_NAME). */
static void spank_env_set(job_record_t *job_ptr, const char *name,
			  const char *value)
{
	size_t n = strlen(name);
	char *entry = xstrdup_printf("%s=%s", name, value);

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		char *e = job_ptr->spank_job_env[i];

		if (e && !strncmp(e, name, n) && e[n] == '=') {
			xfree(job_ptr->spank_job_env[i]);
			job_ptr->spank_job_env[i] = entry;
			return;
		}
	}
	xrecalloc(job_ptr->spank_job_env, job_ptr->spank_job_env_size + 2,
		  sizeof(char *));
	job_ptr->spank_job_env[job_ptr->spank_job_env_size++] = entry;
	job_ptr->spank_job_env[job_ptr->spank_job_env_size] = NULL;
}

/* Append (or replace) our record in AdminComment, keeping whatever else
 * is there (e.g. jobstats' JS1:). */
static void admin_comment_set(job_record_t *job_ptr, const char *record)
{
	char *merged = orrery_admin_comment_merge(job_ptr->admin_comment,
						  record);

	if (!merged)
		return;
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
}

/* Why a profiled job gets no orrery model at all. */
static const char *no_model_reason_locked(void)
{
	if (!conf_ok)
		return "conf_error";
	if (ocnf.mode == ORRERY_MODE_OFF)
		return "mode_off";
	if (lib_missing())
		return "no_placement_lib";
	return "topology";
}

/* The profile the job asked for, canonical when it parsed (as the user
 * would write it: "gpt2:batch=16,precision=bf16", not the resolved
 * pattern), else as written.  malloc()ed. */
static char *requested_text(const orr_entry_t *e, const char *spec)
{
	char *canon = (e && e->parsed) ? orrery_profile_canonical(e->parsed) :
		NULL;
	char *r = strndup(canon ? canon : spec, 2048);

	if (canon)
		orrery_free(canon);
	return r;
}

/* A profiled job that orrery could not evaluate: its record says what it
 * asked for and why nothing came of it (orrery-sacct shows both). */
static void record_unplaced_locked(job_record_t *job_ptr, const char *spec,
				   const orr_entry_t *e, const char *why)
{
	char *req = requested_text(e, spec);
	orrery_admin_record_t r = {
		.requested = req, .fallback = why,
		.from_default = spec == ocnf.default_profile,
	};
	char *rec = orrery_admin_record_format(&r);

	if (rec)
		admin_comment_set(job_ptr, rec);
	free(rec);
	free(req);
}

void orrery_ctld_job_begin(job_record_t *job_ptr)
{
	const orrery_profile_t *prof = NULL;
	orrery_eval_t *ev = NULL;
	orrery_error_t err = { 0 };
	orr_entry_t *e = NULL;
	const char *why = NULL;	/* set: a fallback-only record at out */
	uint32_t *nodes = NULL;
	size_t n = 0;
	const char *spec;
	char *canon = NULL, *rec = NULL, *req = NULL, *names, buf[64];
	int64_t shift, period, epoch;
	double smin;
	int cnt;
	uint64_t t0 = now_ns();

	slurm_mutex_lock(&lock);
	bump_version_locked();	/* cons_tres allocated: any job */
	if (!(spec = job_profile_spec(job_ptr)))
		goto out;
	why = no_model_reason_locked();
	if (!ensure_cluster_locked())
		goto out;
	why = "no_nodes";
	if (!job_ptr->node_bitmap)
		goto out;
	/* node_cnt is set after select_g_job_begin(): count the bitmap. */
	cnt = bit_set_count(job_ptr->node_bitmap);
	if (cnt <= 0)
		goto out;
	why = "bad_profile";
	if (!(e = job_entry_locked(job_ptr, spec)))
		goto out;	/* recorded as written */
	orr_cache_unrank(g.cache, e);	/* placed: the ranking is spent */
	if (!(prof = entry_profile_locked(job_ptr, e, cnt)))
		goto out;
	why = "evaluation";
	nodes = xcalloc(cnt, sizeof(uint32_t));
	for (int i = 0; i < bit_size(job_ptr->node_bitmap) &&
		     i < g.slurm_nodes && n < (size_t) cnt; i++) {
		if (!bit_test(job_ptr->node_bitmap, i))
			continue;
		if (g.slurm2orr[i] < 0) {
			why = "node_not_in_tree";
			fallback(job_ptr, "node %s is not in the switch tree",
				 node_record_table_ptr[i] ?
				 node_record_table_ptr[i]->name : "?");
			goto out;
		}
		nodes[n++] = (uint32_t) g.slurm2orr[i];
	}
	if (orrery_cluster_evaluate(g.cluster, nodes, n, prof, &ev, &err)) {
		fallback(job_ptr, "evaluation failed: %s", err.message);
		goto out;
	}
	shift = orrery_eval_shift_us(ev);
	period = orrery_eval_period_us(ev);
	smin = orrery_eval_score_min(ev);
	epoch = orrery_cluster_epoch_us(g.cluster);
	orrery_cluster_remove_job(g.cluster, job_ptr->job_id); /* requeue */
	if (orrery_cluster_add_job(g.cluster, job_ptr->job_id, nodes, n, prof,
				   shift, &err)) {
		fallback(job_ptr, "cannot record the job: %s", err.message);
		goto out;
	}
	stats.begun++;
	why = NULL;
	save_state_locked();

	snprintf(buf, sizeof(buf), "%"PRId64, period);
	spank_env_set(job_ptr, "ORRERY_PERIOD_US", buf);
	snprintf(buf, sizeof(buf), "%"PRId64, epoch);
	spank_env_set(job_ptr, "ORRERY_EPOCH_US", buf);
	snprintf(buf, sizeof(buf), "%"PRId64, shift);
	spank_env_set(job_ptr, "ORRERY_SHIFT_US", buf);
	snprintf(buf, sizeof(buf), "%.4f", smin);
	spank_env_set(job_ptr, "ORRERY_JOB_SCORE", buf);

	canon = orrery_profile_canonical(prof);
	req = requested_text(e, spec);
	{
		orrery_admin_record_t r = {
			.period_us = period, .shift_us = shift,
			.epoch_us = epoch, .score_min = smin,
			.score_mean = orrery_eval_score_mean(ev),
			.links = orrery_eval_link_count(ev), .profile = canon,
			.placed = true, .requested = req,
			.from_default = spec == ocnf.default_profile,
			/* set when cons_tres, not orrery, chose the nodes */
			.fallback = e->fallback,
		};
		rec = orrery_admin_record_format(&r);
	}
	if (rec)
	admin_comment_set(job_ptr, rec);
	names = bitmap2node_name(job_ptr->node_bitmap);
	info("select/orrery: %pJ on %s: period=%"PRId64"us shift=%"PRId64"us score_min=%.3f",
	     job_ptr, names, period, shift, smin);
	xfree(names);
out:
	if (why)
		record_unplaced_locked(job_ptr, spec, e, why);
	stats.begin_ns += now_ns() - t0;
	log_stats_locked(false);
	slurm_mutex_unlock(&lock);
	free(req);
	free(rec);
	if (canon)
		orrery_free(canon);
	xfree(nodes);
	if (ev)
		orrery_eval_free(ev);
}

void orrery_ctld_job_fini(job_record_t *job_ptr)
{
	slurm_mutex_lock(&lock);
	bump_version_locked();
	/* This job's entry, and those of jobs that ended without running
	 * (cancelled while pending: no job_fini for them). */
	if (g.cache) {
		orr_cache_drop(g.cache, job_ptr->job_id);
		orr_cache_sweep(g.cache, job_gone, NULL);
	}
	/* Build (and load the state) if nothing has yet: a job recorded
	 * before a restart may end before any job_test. */
	if (ensure_cluster_locked() &&
	    orrery_cluster_remove_job(g.cluster, job_ptr->job_id) == ORRERY_OK) {
		save_state_locked();
		log_stats_locked(false);
	}
	slurm_mutex_unlock(&lock);
}
