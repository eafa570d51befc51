/*
 * links.c - what a node set means for one uplink, for the tables and the
 * per-link SVGs of "place".  The crossing rule itself is the library's
 * (orrery_profile_on_uplink; documented with orrery_collective in orrery.h).
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

static int below_sw(const orrery_topology_t *t, size_t sw, uint32_t node)
{
	for (long s = orrery_topology_node_leaf(t, node); s >= 0;
	     s = orrery_topology_switch_parent(t, (size_t)s))
		if ((size_t)s == sw)
			return 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

orrery_profile_t *profile_on_link(const orrery_topology_t *t, size_t sw,
				  const orrery_profile_t *p,
				  const uint32_t *nodes, size_t n)
{
	orrery_profile_t *out = NULL;
	orrery_error_t err;
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	uint8_t *below = malloc(n ? n : 1);

	if (!order || !below) {
		qerr("out of memory");
		goto done;
	}
	/* Node order: ascending node index (Slurm's order). */
	for (size_t i = 0; i < n; i++)
		order[i] = nodes[i];
	qsort(order, n, sizeof *order, cmp_u32);
	for (size_t i = 0; i < n; i++)
		below[i] = (uint8_t)below_sw(t, sw, order[i]);
	if (orrery_profile_on_uplink(p, below, (uint32_t)n, &out, &err))
		qerr("%s", err.message);
done:
	free(order);
	free(below);
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
