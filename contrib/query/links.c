/*
 * links.c - what a node set means for one uplink, for the tables and the
 * per-link SVGs of "place".  The crossing rule itself is the library's
 * (orrery_profile_on_link; documented with orrery_collective in orrery.h).
 */
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
	orrery_profile_t *out = NULL;
	orrery_error_t err;

	if (orrery_profile_on_link(p, m, n, &out, &err))
		qerr("%s", err.message);
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
