/*
 * ctld_profile.c - a job's comm profile (its --comm-profile from the
 * SPANK job environment, or orrery.conf's default_profile), parsed once
 * per job and text into its cache entry (place_cache.h) and resolved
 * for a node count; entries of jobs that are gone are swept.
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

/* The SPANK plugin stores the user's --comm-profile here with
 * spank_job_control_setenv(). */
#define PROFILE_ENV "ORRERY_PROFILE"

/* ------------------------------------------------------------------ */
/* Profiles                                                            */
/* ------------------------------------------------------------------ */

const char *orr_job_profile_spec(job_record_t *job_ptr)
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
	if ((!spec || !*spec) && orr_ocnf.default_profile)
		spec = orr_ocnf.default_profile;
	return (spec && *spec) ? spec : NULL;
}

void orr_free_profile(void *p)
{
	orrery_profile_free(p);
}

/* The job's cache entry for profile text spec, its profile parsed (once
 * per job and text), or NULL (out of memory, or a bad profile reported
 * through orr_fallback() at its first parse). */
orr_entry_t *orr_job_entry_locked(job_record_t *job_ptr, const char *spec)
{
	orrery_error_t err = { 0 };
	orr_entry_t *e;
	bool created;

	if (!orr_g.cache && !(orr_g.cache = orr_cache_new(ORR_CACHE_CAP, orr_free_profile)))
		return NULL;
	if (!(e = orr_cache_get(orr_g.cache, job_ptr->job_id, spec, &created)))
		return NULL;
	if (created) {
		orrery_profile_t *p = NULL;

		orr_stats.parses++;
		if (orrery_profile_parse(spec, &p, &err)) {
			e->parse_failed = true;
			orr_fallback(job_ptr, "bad comm profile: %s", err.message);
		}
		e->parsed = p;
	}
	if (e->parse_failed) {
		if (!created)
			orr_stats.fallbacks++;	/* logged at the parse */
		return NULL;
	}
	return e;
}

/* The profile of entry e resolved for n_nodes (owned by e), or NULL
 * (reported through orr_fallback()). */
orrery_profile_t *orr_entry_profile_locked(job_record_t *job_ptr,
					      orr_entry_t *e, uint32_t n_nodes)
{
	orrery_profile_t *r = NULL;
	orrery_error_t err = { 0 };
	orrery_shape_t shape = {
		.nodes = n_nodes,
		.link_mbps = orrery_topology_node_link(
			orrery_cluster_topology(orr_g.cluster)),
	};

	if (e->resolved && e->resolved_nodes == n_nodes &&
	    e->resolved_version == orr_g.topo_version)
		return e->resolved;
	if (e->resolved)
		orrery_profile_free(e->resolved);
	e->resolved = NULL;
	if (orrery_profile_resolve(e->parsed, &shape, &r, &err)) {
		orr_fallback(job_ptr, "bad comm profile: %s", err.message);
		return NULL;
	}
	e->resolved = r;
	e->resolved_nodes = n_nodes;
	e->resolved_version = orr_g.topo_version;
	return r;
}


/* A job that slurmctld no longer has, or has finished: its cache entry
 * can go.  Only called with the job read/write lock held. */
bool orr_job_gone(uint32_t job_id, void *arg)
{
	job_record_t *j;

	(void) arg;
	if (!find_job_record)
		return false;
	j = find_job_record(job_id);
	return !j || IS_JOB_FINISHED(j) || IS_JOB_COMPLETING(j);
}
