/*
 * cluster_load.c - topology plus running jobs, for place and solve:
 * --jobs JOBSFILE (orrery-query(1)) or --state STATEFILE (orrery-state(5),
 * the select plugin's state file).
 */
#include <stdlib.h>

#include "query.h"

orrery_cluster_t *cluster_load(const struct cluster_args *a,
			       uint32_t max_candidates, int rank_spread)
{
	const char *jobs = a->jobs, *state = a->state;
	orrery_topology_t *t = topo_load(&a->to);
	orrery_cluster_opts_t copts;
	orrery_cluster_t *c = NULL;
	orrery_error_t err;

	if (!t)
		return NULL;
	if (jobs && state) {
		qerr("give --jobs or --state, not both");
		goto fail;
	}
	orrery_cluster_opts_default(&copts);
	if (max_candidates)
		copts.max_candidates = max_candidates;
	if (rank_spread >= 0)
		copts.rank_spread = (uint32_t)rank_spread;
	if (orrery_cluster_new(t, &copts, &c, &err)) {
		qerr("%s", err.message);
		goto fail;
	}
	orrery_topology_free(t);
	t = NULL;
	if (jobs && jobs_file_load(c, jobs, (uint32_t)a->gpus_per_node))
		goto fail;
	if (state) {
		size_t dropped = 0;
		if (orrery_cluster_load(c, state, &dropped, &err)) {
			qerr("%s", err.message);
			goto fail;
		}
		if (dropped)
			qerr("warning: %zu job%s in %s ran on nodes this topology lacks; "
			     "ignored", dropped, dropped == 1 ? "" : "s", state);
	}
	return c;
fail:
	orrery_topology_free(t);
	orrery_cluster_free(c);
	return NULL;
}
