/*
 * compat_2205.c - select/orrery_cons_tres's Slurm-facing side for Slurm
 * 22.05 (compat.h): the plugin's entry points with 22.05's select_p_*
 * signatures, and the switch tree read from topology/tree's
 * switch_record_table (libslurmfull in 22.05).
 *
 * Every select_p_* call is forwarded to cons_tres, loaded as a second
 * plugin context the way select/cray_aries wraps it (src/plugins/select/
 * other/).  Only slurmctld does anything more: job_test may narrow the
 * candidate node bitmap to the set orrery ranks best before cons_tres sees
 * it, job_begin/job_fini keep orrery's record of running jobs and their
 * time shifts (orrery_ctld.c).  Every orrery failure degrades to plain
 * cons_tres for that job.
 *
 * The type string contains "cons_tres" on purpose: Slurm 22.05 enables
 * MaxNodeCount, dynamic nodes (scontrol create node, slurmd -Z) and
 * heterogeneous GRES on job expansion by xstrstr(SelectType, "cons_tres").
 *
 * This file is built against the configured Slurm source tree of exactly
 * the installed version (contrib/slurm-source/fetch): Slurm checks
 * plugin_version to the micro release.
 */
#include "config.h"	/* Slurm's, found first via -iquote */

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/plugin.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "compat.h"
#include "ctld_state.h"	/* orr_hash_bitmap */
#include "orrery_ctld.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
    SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 6, 0)
#error "compat_2205.c is for Slurm 22.05 (configure picks compat_MMmm.c)"
#endif

#include "compat_forward.h"	/* identity, init, fini and the forwarders alike in 22.05 and 24.11 */

/* 22.05's job_test arguments beyond the common ones. */
typedef struct {
	bitstr_t *exc_core_bitmap;
} rel_args_t;

static int delegate_job_test(orrery_job_test_args_t *a, bitstr_t *bitmap)
{
	rel_args_t *r = a->rel;

	return (*ops.job_test)(a->job_ptr, bitmap, a->min_nodes, a->max_nodes,
			       a->req_nodes, a->mode, a->preemptee_candidates,
			       a->preemptee_job_list, r->exc_core_bitmap);
}

static uint64_t hash_exclusions(const orrery_job_test_args_t *a,
				uint64_t seed)
{
	const rel_args_t *r = a->rel;

	return orr_hash_bitmap(seed, r->exc_core_bitmap);
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	rel_args_t r = { .exc_core_bitmap = exc_core_bitmap };
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

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*ops.job_signal)(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return (*ops.jobinfo_sprint)(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return (*ops.jobinfo_xstrdup)(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	if (in_ctld)
		orrery_ctld_state_changed();
	return (*ops.update_node_config)(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt,
				    bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return (*ops.resv_test)(resv_desc_ptr, node_cnt, avail_bitmap,
				core_bitmap);
}

/* ------------------------------------------------------------------ */
/* Switch tree: topology/tree's switch_record_table (libslurmfull)     */
/* ------------------------------------------------------------------ */

int orr_compat_switches(orr_switches_t *out, char *why, size_t why_len)
{
	int n = switch_record_cnt;

	memset(out, 0, sizeof(*out));
	if (n <= 0 || !switch_record_table) {
		snprintf(why, why_len,
			 "no switches (TopologyPlugin=topology/tree and topology.conf needed)");
		return -1;
	}
	out->sw = xcalloc(n, sizeof(orr_switch_t));
	out->count = n;
	for (int i = 0; i < n; i++)
		out->sw[i].parent = -1;
	for (int i = 0; i < n; i++) {
		switch_record_t *s = &switch_record_table[i];

		out->sw[i].name = s->name;
		out->sw[i].level = s->level;
		out->sw[i].link_speed = s->link_speed;
		out->sw[i].node_bitmap = s->level == 0 ? s->node_bitmap : NULL;
		for (int c = 0; c < s->num_switches && s->switch_index; c++) {
			int ci = s->switch_index[c];

			if (ci >= 0 && ci < n)
				out->sw[ci].parent = i;
		}
		if (s->level + 1 > out->levels)
			out->levels = s->level + 1;
	}
	return 0;
}

void orr_compat_switches_free(orr_switches_t *s)
{
	/* Names and bitmaps are switch_record_table's own. */
	xfree(s->sw);
	memset(s, 0, sizeof(*s));
}
