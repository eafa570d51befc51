/*
 * links.c - what a node set means for one uplink, for the tables and the
 * per-link SVGs of "place".  The rule is the one orrery.h documents for
 * orrery_collective: an uplink with m of a job's n nodes below it
 * (0 < m < n) is crossed; ring phases carry their demand, all-to-all
 * phases demand*m*(n-m)/(n-1).
 */
#include <math.h>
#include <stdlib.h>

#include "hostlist_slurm.h"
#include "query.h"

uint32_t nodes_below(const orrery_topology_t *t, size_t sw,
		     const uint32_t *nodes, size_t n)
{
	uint32_t m = 0;

	for (size_t i = 0; i < n; i++)
		for (long s = orrery_topology_node_leaf(t, nodes[i]); s >= 0;
		     s = orrery_topology_switch_parent(t, (size_t)s))
			if ((size_t)s == sw) {
				m++;
				break;
			}
	return m;
}

orrery_profile_t *profile_on_link(const orrery_profile_t *p, uint32_t m,
				  uint32_t n)
{
	size_t k = orrery_profile_phase_count(p);
	orrery_phase_t *ph = calloc(k ? k : 1, sizeof *ph);
	orrery_profile_t *out = NULL;
	orrery_error_t err;

	if (!ph)
		return NULL;
	for (size_t i = 0; i < k; i++) {
		orrery_profile_phase(p, i, &ph[i]);
		if (ph[i].collective == ORRERY_COLL_ALLTOALL && n > 1) {
			double f = (double)m * (double)(n - m) / (double)(n - 1);
			ph[i].demand_mbps = (uint64_t)llround((double)ph[i].demand_mbps * f);
			if (ph[i].demand_mbps < ORRERY_MIN_DEMAND_MBPS)
				ph[i].demand_mbps = ORRERY_MIN_DEMAND_MBPS;
		}
	}
	if (orrery_profile_new(orrery_profile_period_us(p), ph, k, &out, &err))
		qerr("%s", err.message);
	free(ph);
	return out;
}

char *nodes_hostlist(const orrery_topology_t *t, const uint32_t *nodes,
		     size_t n)
{
	const char **names = malloc((n ? n : 1) * sizeof *names);
	char *s;

	if (!names)
		return NULL;
	for (size_t i = 0; i < n; i++)
		names[i] = orrery_topology_node_name(t, nodes[i]);
	s = hostlist_slurm_compress(names, n);
	free(names);
	return s;
}
