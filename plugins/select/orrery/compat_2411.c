/*
 * compat_2411.c - select/orrery_cons_tres's Slurm-facing side for Slurm
 * 24.11 (compat.h): the plugin's entry points with 24.11's select_p_*
 * signatures (31 of them; job_test takes resv_exc_t and will-run data),
 * forwarded to select/cons_tres, and the switch tree read through the
 * topology interface (topology_g_get), since 24.05 moved the switch
 * table into the topology/tree plugin itself.
 *
 * Why still a delegating select plugin on 24.11 (select-orrery(8),
 * "Slurm releases"): the select_p_* interface is intact in 24.11 and
 * orrery's narrowing happens before cons_tres sees the node bitmap, so
 * cons_tres and whichever TopologyPlugin is configured (tree, block)
 * place inside orrery's choice exactly as they do without it: GRES,
 * reservations, preemption and backfill stay Slurm's.  A topology plugin
 * wrapping topology/tree through topology_p_eval_nodes would have to be
 * the cluster's one TopologyPlugin (no wrapping tree and block at once),
 * reimplement the 14 topology_p_* forwarders, and would see only what
 * cons_tres hands eval_nodes after its own filtering, with no job_begin
 * or job_fini to keep the model of running jobs.
 *
 * topology/block: blocks (the base blocks, not the aggregated ones) are
 * the leaves under one spine orrery adds, so a job is narrowed to blocks
 * the way it is narrowed to leaf switches under topology/tree.
 *
 * Built against the configured 24.11 source tree (contrib/slurm-source/
 * fetch DIR 24.11.5, inside the root of contrib/slurm-root/build).
 */
#include "config.h"	/* Slurm's, found first via -iquote */

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/hostlist.h"
#include "src/common/plugin.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "compat.h"
#include "ctld_state.h"	/* orr_hash_bitmap */
#include "orrery_ctld.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0) || \
    SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 12, 0)
#error "compat_2411.c is for Slurm 24.11 (configure picks compat_MMmm.c)"
#endif

/* 24.11 keeps the select ops table private to src/interfaces/select.c:
 * the same layout and symbol names, in the same order, here. */
typedef struct {
	uint32_t *plugin_id;
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preeemptee_candidates,
			list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
			will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr,
				     select_jobinfo_t *step_jobinfo,
				     uint32_t node_count,
				     bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo,
			    enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo,
				    job_record_t *job_ptr, void *data);
	int (*reconfigure)(void);
} slurm_select_ops_t;

static const char *node_select_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_get_info_from_plugin",
	"select_p_reconfigure",
};

#include "compat_forward.h"	/* identity, init, fini and the forwarders alike in 22.05 and 24.11 */

/* 24.11's job_test arguments beyond the common ones. */
typedef struct {
	resv_exc_t *resv_exc_ptr;
	will_run_data_t *will_run_ptr;
} rel_args_t;

static int delegate_job_test(orrery_job_test_args_t *a, bitstr_t *bitmap)
{
	rel_args_t *r = a->rel;

	return (*ops.job_test)(a->job_ptr, bitmap, a->min_nodes, a->max_nodes,
			       a->req_nodes, a->mode, a->preemptee_candidates,
			       a->preemptee_job_list, r->resv_exc_ptr,
			       r->will_run_ptr);
}

/* Cores (and GRES) reservations keep from the job: the whole-cluster core
 * bitmap or the per-node one, and whether GRES exclusions apply. */
static uint64_t hash_exclusions(const orrery_job_test_args_t *a,
				uint64_t seed)
{
	const rel_args_t *r = a->rel;
	const resv_exc_t *x = r->resv_exc_ptr;
	uint64_t h = seed, g[2];

	if (!x)
		return h;
	h = orr_hash_bitmap(h, x->core_bitmap);
	for (int i = 0; x->exc_cores && i < node_record_count; i++)
		h = orr_hash_bitmap(h, x->exc_cores[i]);
	g[0] = x->gres_list_exc ? list_count(x->gres_list_exc) + 1 : 0;
	g[1] = x->gres_list_inc ? list_count(x->gres_list_inc) + 1 : 0;
	return orr_hash_bytes(h, g, sizeof(g));
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list,
			     resv_exc_t *resv_exc_ptr,
			     will_run_data_t *will_run_ptr)
{
	rel_args_t r = {
		.resv_exc_ptr = resv_exc_ptr, .will_run_ptr = will_run_ptr,
	};
	orrery_job_test_args_t a = {
		.job_ptr = job_ptr, .bitmap = bitmap, .min_nodes = min_nodes,
		.max_nodes = max_nodes, .req_nodes = req_nodes, .mode = mode,
		.preemptee_candidates = preemptee_candidates,
		.preemptee_job_list = preemptee_job_list,
		.delegate = delegate_job_test,
		.hash_exclusions = hash_exclusions,
		.rel = &r,
	};

	if (in_ctld)
		return orrery_ctld_job_test(&a);
	return delegate_job_test(&a, bitmap);
}

/* ------------------------------------------------------------------ */
/* Switch tree: topology/tree through topology_g_get, or topology/block */
/* ------------------------------------------------------------------ */

/* topology/block's packed view (topology_block.c keeps the type private;
 * this is its 24.11 layout, which plugin_version pins to this release). */
typedef struct {
	bool aggregated;
	uint16_t block_index;
	char *name;
	char *nodes;
	uint32_t size;
} orr_bblock_t;
typedef struct {
	uint32_t record_count;
	orr_bblock_t *topo_array;
} orr_block_info_t;

/* topology/tree's: an array of the public topo_info_t. */
typedef struct {
	uint32_t record_count;
	topo_info_t *topo_array;
} orr_tree_info_t;

typedef struct {
	char **names;		/* xstrdup'ed, one per switch */
	int count;
} priv_t;

static int add_switch(orr_switches_t *out, priv_t *p, const char *name,
		      int level, uint32_t link_speed, bool leaf)
{
	int i = out->count++;
	bitstr_t *b;

	xrecalloc(out->sw, out->count, sizeof(orr_switch_t));
	xrecalloc(p->names, out->count, sizeof(char *));
	p->names[i] = xstrdup(name);
	p->count = out->count;
	out->sw[i].name = p->names[i];
	out->sw[i].level = level;
	out->sw[i].parent = -1;
	out->sw[i].link_speed = link_speed;
	/* The plugin's own bitmap of the switch's (block's) nodes, copied:
	 * a reconfigure rebuilds the plugin's tables. */
	if (leaf && (b = topology_g_get_bitmap((char *) name)))
		out->sw[i].node_bitmap = bit_copy(b);
	if (level + 1 > out->levels)
		out->levels = level + 1;
	return i;
}

static int find_switch(const orr_switches_t *out, const char *name)
{
	for (int i = 0; i < out->count; i++)
		if (!xstrcmp(out->sw[i].name, name))
			return i;
	return -1;
}

static int read_tree(orr_switches_t *out, priv_t *p, orr_tree_info_t *ti,
		     char *why, size_t why_len)
{
	for (uint32_t i = 0; i < ti->record_count; i++) {
		topo_info_t *s = &ti->topo_array[i];

		add_switch(out, p, s->name ? s->name : "", s->level,
			   s->link_speed, s->level == 0);
	}
	for (uint32_t i = 0; i < ti->record_count; i++) {
		topo_info_t *s = &ti->topo_array[i];
		hostlist_t *hl;
		char *c;

		if (!s->switches || !s->switches[0])
			continue;
		if (!(hl = hostlist_create(s->switches))) {
			snprintf(why, why_len, "switch %s: bad Switches=%s",
				 s->name, s->switches);
			return -1;
		}
		while ((c = hostlist_shift(hl))) {
			int ci = find_switch(out, c);

			if (ci >= 0 && ci != (int) i)
				out->sw[ci].parent = (int) i;
			free(c);
		}
		hostlist_destroy(hl);
	}
	return 0;
}

static int read_blocks(orr_switches_t *out, priv_t *p, orr_block_info_t *bi,
		       char *why, size_t why_len)
{
	int root, n = 0;

	root = add_switch(out, p, "orrery-blocks", 1, 1, false);
	for (uint32_t i = 0; i < bi->record_count; i++) {
		orr_bblock_t *b = &bi->topo_array[i];
		int k;

		if (b->aggregated || !b->name)
			continue;
		k = add_switch(out, p, b->name, 0, 1, true);
		out->sw[k].parent = root;
		n++;
	}
	if (!n) {
		snprintf(why, why_len, "topology/block has no base blocks");
		return -1;
	}
	return 0;
}

int orr_compat_switches(orr_switches_t *out, char *why, size_t why_len)
{
	dynamic_plugin_data_t *info = NULL;
	priv_t *p;
	int id = topology_get_plugin_id(), rc = -1;
	static int logged_block;

	memset(out, 0, sizeof(*out));
	if (id != TOPOLOGY_PLUGIN_TREE && id != TOPOLOGY_PLUGIN_BLOCK) {
		snprintf(why, why_len,
			 "TopologyPlugin=%s has no switch tree (orrery reads topology/tree or topology/block)",
			 slurm_conf.topology_plugin ?
			 slurm_conf.topology_plugin : "(none)");
		return -1;
	}
	if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, &info) != SLURM_SUCCESS ||
	    !info || !info->data) {
		snprintf(why, why_len, "the topology plugin returned no topology");
		goto out;
	}
	p = xmalloc(sizeof(*p));
	out->priv = p;
	if (id == TOPOLOGY_PLUGIN_TREE)
		rc = read_tree(out, p, info->data, why, why_len);
	else
		rc = read_blocks(out, p, info->data, why, why_len);
	if (!rc && !out->count) {
		snprintf(why, why_len,
			 "no switches (TopologyPlugin=topology/tree and topology.conf needed)");
		rc = -1;
	}
	if (!rc && id == TOPOLOGY_PLUGIN_BLOCK && !logged_block++)
		info("select/orrery: topology/block: %d blocks are orrery's leaf switches, under one spine it adds",
		     out->count - 1);
out:
	if (info)
		topology_g_topology_free(info);
	if (rc)
		orr_compat_switches_free(out);
	return rc;
}

void orr_compat_switches_free(orr_switches_t *s)
{
	priv_t *p = s->priv;

	for (int i = 0; i < s->count; i++)
		FREE_NULL_BITMAP(s->sw[i].node_bitmap);
	if (p) {
		for (int i = 0; i < p->count; i++)
			xfree(p->names[i]);
		xfree(p->names);
		xfree(p);
	}
	xfree(s->sw);
	memset(s, 0, sizeof(*s));
}
