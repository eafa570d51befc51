/*
 * ctld_cluster.c - the orrery cluster (topology + running jobs), built
 * lazily from the topology plugin's switch tree (compat.h) with capacities from
 * orrery.conf; kept across a reconfigure that changes nothing it is
 * built from; its running jobs restored from StateSaveLocation/
 * orrery_state or rebuilt from their ORR1: records, forgotten when
 * slurmctld no longer runs them, and handed to the saver thread at
 * every change.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "ctld_state.h"
#include <unistd.h>

#include "src/common/node_conf.h"

#include "capacity_check.h"
#include "lib_syms.h"
#include "recover.h"
#include "state_saver.h"

/* ------------------------------------------------------------------ */
/* Topology from the switch tree                                        */
/* ------------------------------------------------------------------ */

void orr_drop_cluster_locked(void)
{
	if (orr_g.cluster)
		orrery_cluster_free(orr_g.cluster);
	orr_g.cluster = NULL;
	xfree(orr_g.slurm2orr);
	xfree(orr_g.orr2slurm);
	orr_g.orr_nodes = 0;
	orr_g.slurm_nodes = 0;
	orr_g.build_sig = 0;
}

/* Build the orrery topology from the switch tree (compat.h).  Returns
 * NULL with err filled on anything orrery cannot model (no tree, several
 * roots, a node under two leaves, ...). */
static orrery_topology_t *build_topology(const orr_switches_t *sw,
					 orrery_error_t *err)
{
	orrery_topology_t *t = orrery_topology_new();

	if (!t) {
		snprintf(err->message, sizeof(err->message), "out of memory");
		return NULL;
	}
	for (int i = 0; i < sw->count; i++) {
		const orr_switch_t *s = &sw->sw[i];
		const char *p = s->parent >= 0 ? sw->sw[s->parent].name : NULL;

		if (orrery_topology_add_switch(t, s->name, p, err))
			goto fail;
	}
	for (int i = 0; i < sw->count; i++) {
		const orr_switch_t *s = &sw->sw[i];

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

	orrery_capacity_check_ctld(&orr_ocnf, sw); /* log disagreements, once */
	/* Capacities: topology.conf LinkSpeed (times linkspeed_unit), then
	 * [uplinks] levelN, then [switch.NAME] (most specific wins). */
	if (orr_ocnf.node_link_mbps)
		orrery_topology_set_node_link(t, orr_ocnf.node_link_mbps);
	for (int i = 0; i < sw->count; i++) {
		const orr_switch_t *s = &sw->sw[i];
		uint64_t v = (uint64_t) s->link_speed *
			orr_ocnf.linkspeed_unit_mbps;

		if (s->parent >= 0 && s->link_speed > 1 &&
		    orrery_topology_set_uplink(t, s->name, v, v, err))
			goto fail;
	}
	for (int l = 0; l < ORRERY_CONF_MAX_LEVELS; l++) {
		uint64_t v = orr_ocnf.level_uplink_mbps[l];

		if (v && l < sw->levels &&
		    (orrery_topology_set_level_uplink(t, l, v, v, err) ||
		     orrery_topology_set_level_uplink_links(t, l,
				orr_ocnf.level_uplink_links[l] ?
				orr_ocnf.level_uplink_links[l] : 1, err)))
			goto fail;
	}
	for (size_t i = 0; i < orr_ocnf.n_switches; i++) {
		uint64_t v = orr_ocnf.switches[i].uplink_mbps;

		if (orrery_topology_set_uplink(t, orr_ocnf.switches[i].name, v, v,
					       err) ||
		    orrery_topology_set_uplink_links(t, orr_ocnf.switches[i].name,
				orr_ocnf.switches[i].uplink_links ?
				orr_ocnf.switches[i].uplink_links : 1, err))
			goto fail;
	}
	/* ECMP flows per job across an uplink (orrery-score(7)). */
	if (orr_ocnf.flows && orrery_topology_set_flows(t, orr_ocnf.flows, err))
		goto fail;
	return t;
fail:
	orrery_topology_free(t);
	return NULL;
}

int orr_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

/* Forget recorded jobs that slurmctld no longer runs (they ended while
 * slurmctld was down, or the state file is older than Slurm's). */
void orr_reconcile_locked(void)
{
	size_t removed = 0;

	if (!orr_g.cluster || !orr_g.have_live)
		return;
	for (size_t i = orrery_cluster_job_count(orr_g.cluster); i-- > 0;) {
		uint32_t id = orrery_cluster_job_id(orr_g.cluster, i);

		if (!bsearch(&id, orr_g.live_ids, orr_g.n_live, sizeof(uint32_t),
			     orr_cmp_u32) &&
		    orrery_cluster_remove_job(orr_g.cluster, id) == ORRERY_OK)
			removed++;
	}
	if (removed) {
		info("select/orrery: forgot %zu recorded jobs that are no longer running",
		     removed);
		orr_save_state_locked();
	}
}

/*
 * Everything the cluster model is built from: orrery.conf's text, the
 * StateSaveLocation, the node table's names in index order and the
 * switch tree.  `scontrol reconfigure' re-reads them
 * all; when none changed, the model (with its running jobs) is kept
 * instead of rebuilt from orrery_state.  0 is never returned: it means
 * "rebuild".
 */
_Static_assert(ORRERY_CONF_MAX_RANK_SPREAD == ORRERY_RANK_SPREAD_MAX &&
	       ORRERY_CONF_DEFAULT_RANK_SPREAD == ORRERY_RANK_SPREAD_DEFAULT,
	       "orrery.conf's rank_spread limits are liborrery's");

static uint64_t build_signature(const orr_switches_t *sw)
{
	uint64_t h = orr_hash_bytes(ORR_HASH_INIT, &orr_conf_hash,
				    sizeof(orr_conf_hash));

	if (slurm_conf.state_save_location)
		h = orr_hash_bytes(h, slurm_conf.state_save_location,
				   strlen(slurm_conf.state_save_location));
	h = orr_hash_bytes(h, &node_record_count, sizeof(node_record_count));
	for (int n = 0; n < node_record_count; n++) {
		const char *name = node_record_table_ptr[n] ?
			node_record_table_ptr[n]->name : NULL;

		h = orr_hash_bytes(h, name ? name : "", name ? strlen(name) + 1 : 1);
	}
	h = orr_hash_bytes(h, &sw->count, sizeof(sw->count));
	for (int i = 0; i < sw->count; i++) {
		const orr_switch_t *s = &sw->sw[i];
		int64_t v[3] = { s->level, s->link_speed, s->parent };

		h = orr_hash_bytes(h, s->name ? s->name : "",
				   s->name ? strlen(s->name) + 1 : 1);
		h = orr_hash_bytes(h, v, sizeof(v));
		h = orr_hash_bitmap(h, s->node_bitmap);
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

	orr_recover_jobs(orr_g.cluster, &job_list ? job_list : NULL, orr_g.slurm2orr,
			 orr_g.slurm_nodes, adopt_epoch, &rr);
	if (rr.recovered || rr.failed || state_bad)
		info("select/orrery: rebuilt %zu running jobs from their ORR1: records, %zu could not be%s%s%s",
		     rr.recovered, rr.failed, rr.failed ? " (first: " : "",
		     rr.failed ? rr.first_failure : "", rr.failed ? ")" : "");
	return rr.recovered;
}

/* One line per cause, not one per retry: a build is retried after every
 * reconfigure, and slurmctld's start reconfigures after it has already
 * ended the jobs that were completing when it stopped (job_fini builds,
 * read_slurm_conf then calls select_g_reconfigure), so the same cause
 * would otherwise be said twice by one process.  A different cause, or
 * the same one after a build that worked, is said again. */
static void say_build_failure(const char *what)
{
	if (!strcmp(orr_g.build_error, what))
		return;
	snprintf(orr_g.build_error, sizeof(orr_g.build_error), "%s", what);
	error("select/orrery: %s; running as plain cons_tres", what);
}

/* Make orr_g.cluster match the current topology and orrery.conf.  false: run
 * as plain cons_tres (logged once per cause, say_build_failure()). */
bool orr_ensure_cluster_locked(void)
{
	orrery_error_t err = { 0 };
	orrery_cluster_opts_t opts;
	orrery_topology_t *t;
	size_t dropped = 0;
	uint64_t sig, c0;
	const char *missing;
	bool loaded = false, state_bad = false;
	size_t recovered;
	char line[sizeof(err.message) + 32];

	if (!orr_conf_ok || orr_ocnf.mode == ORRERY_MODE_OFF)
		return false;
	if ((missing = lib_missing())) {
		snprintf(err.message, sizeof(err.message),
			 "liborrery lacks %s (built without placement?)",
			 missing);
		say_build_failure(err.message);
		orr_g.need_build = false;
		return false;
	}
	if (!orr_g.need_build && orr_g.slurm_nodes == node_record_count)
		return orr_g.cluster != NULL;
	/* The switch tree is read again at every build: it belongs to the
	 * topology plugin, which a reconfigure rebuilds. */
	orr_compat_switches_free(&orr_g.switches);
	if (orr_compat_switches(&orr_g.switches, err.message,
				sizeof(err.message))) {
		orr_drop_cluster_locked();
		orr_g.need_build = false;
		goto fail;
	}
	sig = build_signature(&orr_g.switches);
	if (orr_g.cluster && sig == orr_g.build_sig) {
		orr_g.need_build = false;
		if (orr_debug())
			info("select/orrery: reconfigure changed nothing orrery models; kept its %zu running jobs",
			     orrery_cluster_job_count(orr_g.cluster));
		return true;
	}
	orr_drop_cluster_locked();
	c0 = orr_cpu_ns();
	orr_stats.builds++;
	orr_g.need_build = false;
	orr_g.topo_version++;
	orr_bump_version_locked();

	if (!(t = build_topology(&orr_g.switches, &err)))
		goto fail;
	orrery_cluster_opts_default(&opts);
	opts.max_candidates = orr_ocnf.candidates;
	opts.rank_spread = orr_ocnf.rank_spread;
	if (orrery_cluster_new(t, &opts, &orr_g.cluster, &err)) {
		orrery_topology_free(t);
		goto fail;
	}
	orrery_topology_free(t);
	t = NULL;

	orr_g.slurm_nodes = node_record_count;
	orr_g.orr_nodes = orrery_topology_node_count(
		orrery_cluster_topology(orr_g.cluster));
	orr_g.slurm2orr = xcalloc(node_record_count ? node_record_count : 1,
			      sizeof(long));
	orr_g.orr2slurm = xcalloc(orr_g.orr_nodes ? orr_g.orr_nodes : 1,
			      sizeof(uint32_t));
	for (int n = 0; n < node_record_count; n++) {
		long o = -1;

		if (node_record_table_ptr[n])
			o = orrery_topology_node_index(
				orrery_cluster_topology(orr_g.cluster),
				node_record_table_ptr[n]->name);
		orr_g.slurm2orr[n] = o;
		if (o >= 0 && (size_t) o < orr_g.orr_nodes)
			orr_g.orr2slurm[o] = n;
	}

	xfree(orr_g.state_path);
	orr_g.state_path = xstrdup_printf("%s/orrery_state",
				      slurm_conf.state_save_location);
	if (access(orr_g.state_path, F_OK) == 0) {
		if (orrery_cluster_load(orr_g.cluster, orr_g.state_path, &dropped,
					&err)) {
			error("select/orrery: %s: %s; rebuilding the running jobs from slurmctld's records",
			      orr_g.state_path, err.message);
			state_bad = true;
		} else {
			loaded = true;
			info("select/orrery: restored %zu jobs from %s (%zu dropped: nodes left the topology)",
			     orrery_cluster_job_count(orr_g.cluster), orr_g.state_path,
			     dropped);
		}
	}
	if (!loaded)
		orrery_cluster_set_epoch_us(orr_g.cluster,
					    (int64_t) time(NULL) * 1000000);
	recovered = recover_locked(!loaded, state_bad);
	info("select/orrery: topology of %d switches, %zu nodes; epoch %"PRId64" us",
	     orr_g.switches.count, orr_g.orr_nodes,
	     orrery_cluster_epoch_us(orr_g.cluster));
	orr_g.build_error[0] = '\0';
	orr_g.build_sig = sig;
	orr_reconcile_locked();
	if (recovered)
		orr_save_state_locked();
	orr_stats.build_cpu_ns += orr_cpu_ns() - c0;
	return true;
fail:
	orr_drop_cluster_locked();
	/* Not again on every job_test: only after a reconfigure or a node
	 * table change (orr_drop_cluster_locked() zeroed slurm_nodes). */
	orr_g.slurm_nodes = node_record_count;
	snprintf(line, sizeof(line), "cannot model the topology: %s",
		 err.message);
	say_build_failure(line);
	return false;
}

/* The model's text, or -1 (said once until a serialisation works). */
static int serialise_locked(char **data, size_t *len)
{
	static bool serialise_failed;
	orrery_error_t err = { 0 };

	if (!orr_g.cluster || !orr_g.state_path)
		return -1;
	if (orrery_cluster_serialise(orr_g.cluster, data, len, &err)) {
		if (!serialise_failed)
			error("select/orrery: cannot save %s: %s (not logged again until a save succeeds)",
			      orr_g.state_path, err.message);
		serialise_failed = true;
		return -1;
	}
	serialise_failed = false;
	return 0;
}

/* Now: the model's text, serialised here in memory, goes to the saver
 * thread (state_saver.h); slurmctld never waits for the disk.  At build,
 * reconfigure, state save and fini. */
void orr_save_state_locked(void)
{
	char *data = NULL;
	size_t len = 0;

	if (!serialise_locked(&data, &len))
		orr_saver_submit(orr_g.state_path, data, len);
}

/* The saver thread's side of orr_save_state_soon_locked(). */
static int produce_state(char **data, size_t *len)
{
	int rc;

	slurm_mutex_lock(&orr_ctld_lock);
	rc = serialise_locked(data, len);
	slurm_mutex_unlock(&orr_ctld_lock);
	return rc;
}

/* At every job start and end: the saver thread serialises the model when
 * it next writes orrery_state (at most every ORR_SAVER_GAP_MS), not the
 * scheduler at every change. */
void orr_save_state_soon_locked(void)
{
	if (!orr_g.cluster || !orr_g.state_path)
		return;
	if (orr_saver_submit_deferred(orr_g.state_path, produce_state))
		orr_save_state_locked();
}
