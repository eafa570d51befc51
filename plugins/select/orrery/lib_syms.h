/*
 * lib_syms.h - the liborrery entry points select/orrery_cons_tres calls,
 * as weak references (every file of the plugin that calls one includes
 * this), and lib_missing() to test them before use.
 */
#ifndef ORRERY_LIB_SYMS_H
#define ORRERY_LIB_SYMS_H

#include <glib.h>

#include "orrery.h"

/*
 * Every liborrery entry point used here is a weak reference: a liborrery
 * built without its placement parts (or an older one) then loads, and the
 * plugin says once that it runs as plain cons_tres, instead of slurmctld
 * dying on an unresolved symbol in the middle of scheduling.
 */
#define ORR_LIB_SYMS(X) \
	X(orrery_cluster_add_job) \
	X(orrery_cluster_epoch_us) \
	X(orrery_cluster_evaluate) \
	X(orrery_cluster_free) \
	X(orrery_cluster_job_count) \
	X(orrery_cluster_job_id) \
	X(orrery_cluster_job_shift_us) \
	X(orrery_cluster_load) \
	X(orrery_cluster_new) \
	X(orrery_cluster_opts_default) \
	X(orrery_cluster_place) \
	X(orrery_cluster_remove_job) \
	X(orrery_cluster_serialise) \
	X(orrery_cluster_set_epoch_us) \
	X(orrery_cluster_topology) \
	X(orrery_eval_free) \
	X(orrery_eval_link_count) \
	X(orrery_eval_period_us) \
	X(orrery_eval_score_mean) \
	X(orrery_eval_score_min) \
	X(orrery_eval_shift_us) \
	X(orrery_free) \
	X(orrery_placement_count) \
	X(orrery_placement_eval) \
	X(orrery_placement_free) \
	X(orrery_placement_nodes) \
	X(orrery_profile_canonical) \
	X(orrery_profile_free) \
	X(orrery_profile_parse) \
	X(orrery_profile_resolve) \
	X(orrery_state_write) \
	X(orrery_topology_add_node) \
	X(orrery_topology_add_switch) \
	X(orrery_topology_finalize) \
	X(orrery_topology_free) \
	X(orrery_topology_new) \
	X(orrery_topology_node_count) \
	X(orrery_topology_node_index) \
	X(orrery_topology_node_link) \
	X(orrery_topology_set_flows) \
	X(orrery_topology_set_level_uplink) \
	X(orrery_topology_set_level_uplink_links) \
	X(orrery_topology_set_node_link) \
	X(orrery_topology_set_uplink) \
	X(orrery_topology_set_uplink_links)

#define ORR_WEAK(f) _Pragma(G_STRINGIFY(weak f))
ORR_LIB_SYMS(ORR_WEAK)

/* Name of the first missing liborrery function, or NULL. */
static inline const char *lib_missing(void)
{
#define ORR_CHECK(f) if (!(f)) return #f;
	ORR_LIB_SYMS(ORR_CHECK)
#undef ORR_CHECK
	return NULL;
}

#endif
