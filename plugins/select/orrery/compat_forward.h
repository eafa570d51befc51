/*
 * compat_forward.h - the select_p_* entry points (and init/fini) whose
 * signatures are the same in Slurm 22.05 and 24.11: each forwards to
 * select/cons_tres, with orrery's slurmctld hooks around the calls that
 * change allocations.  Not a header of declarations: it is included once,
 * by the release's compat_MMmm.c, after that file has defined
 *   slurm_select_ops_t  its release's table of cons_tres's entry points
 *   node_select_syms    the symbol names in ops order
 * It defines the plugin's identity (the same in every release), ops
 * (filled by init()), g_context and in_ctld.
 * A release whose signature of one of these differs defines that one
 * itself and stops including this file for it (or includes a copy).
 */
#ifndef ORRERY_COMPAT_FORWARD_H
#define ORRERY_COMPAT_FORWARD_H

/* Not one of Slurm's SELECT_PLUGIN_* ids (101..110); see select-orrery.8. */
#define ORRERY_SELECT_PLUGIN_ID 171

const char plugin_name[] = "orrery network-aware placement over cons_tres";
const char plugin_type[] = "select/orrery_cons_tres";
const uint32_t plugin_id = ORRERY_SELECT_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static slurm_select_ops_t ops;	/* cons_tres's entry points, filled by init() */
static plugin_context_t *g_context;
static bool in_ctld;

extern int init(void)
{
	/* Slurm's own symbol list (libslurmfull), so the table matches the
	 * ops struct of the tree we were compiled against. */
	g_context = plugin_context_create("select", "select/cons_tres",
					  (void **) &ops, node_select_syms,
					  sizeof(ops));
	if (!g_context) {
		error("%s: cannot load select/cons_tres to delegate to",
		      plugin_type);
		return SLURM_ERROR;
	}
	in_ctld = running_in_slurmctld();
	if (in_ctld)
		orrery_ctld_init();	/* never fails: pass-through on error */
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	int rc = SLURM_SUCCESS;

	if (in_ctld)
		orrery_ctld_fini();
	if (g_context)
		rc = plugin_context_destroy(g_context);
	g_context = NULL;
	return rc;
}

extern int select_p_state_save(char *dir_name)
{
	if (in_ctld)
		orrery_ctld_state_save();
	return (*ops.state_save)(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*ops.state_restore)(dir_name);
}

extern int select_p_job_init(list_t *job_list)
{
	int rc = (*ops.job_init)(job_list);

	if (in_ctld)
		orrery_ctld_job_init(job_list);
	return rc;
}

extern int select_p_node_init(void)
{
	int rc = (*ops.node_init)();

	if (in_ctld)
		orrery_ctld_topology_changed();	/* node table rebuilt */
	return rc;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*ops.job_begin)(job_ptr);

	if (in_ctld && rc == SLURM_SUCCESS)
		orrery_ctld_job_begin(job_ptr);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*ops.job_ready)(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	/* Both jobs change shape: orrery forgets them (their shifts were
	 * computed for the old node sets). */
	if (in_ctld) {
		orrery_ctld_job_fini(from_job_ptr);
		orrery_ctld_job_fini(to_job_ptr);
	}
	return (*ops.job_expand)(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr,
				node_record_t *node_ptr)
{
	if (in_ctld)
		orrery_ctld_job_fini(job_ptr);
	return (*ops.job_resized)(job_ptr, node_ptr);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	if (in_ctld)
		orrery_ctld_job_fini(job_ptr);
	return (*ops.job_fini)(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	if (in_ctld)
		orrery_ctld_state_changed();
	return (*ops.job_suspend)(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	if (in_ctld)
		orrery_ctld_state_changed();
	return (*ops.job_resume)(job_ptr, indf_susp);
}

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*ops.step_pick_nodes)(job_ptr, jobinfo, node_count,
				      avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*ops.step_start)(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*ops.step_finish)(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*ops.nodeinfo_pack)(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*ops.nodeinfo_unpack)(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*ops.nodeinfo_alloc)();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*ops.nodeinfo_free)(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*ops.nodeinfo_set_all)();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*ops.nodeinfo_set)(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*ops.nodeinfo_get)(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*ops.jobinfo_alloc)();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*ops.jobinfo_free)(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*ops.jobinfo_set)(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*ops.jobinfo_get)(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(
	select_jobinfo_t *jobinfo)
{
	return (*ops.jobinfo_copy)(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return (*ops.jobinfo_pack)(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*ops.jobinfo_unpack)(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*ops.get_info_from_plugin)(dinfo, job_ptr, data);
}

extern int select_p_reconfigure(void)
{
	int rc = (*ops.reconfigure)();

	if (in_ctld)
		orrery_ctld_reconfigure();
	return rc;
}

#endif /* ORRERY_COMPAT_FORWARD_H */
