/*
 * capacity_check_ctld.c - run the capacity check on the switch tree
 * (compat.h) (called where the plugin builds its topology:
 * at start and after each reconfigure).  Logging only; never fails.
 */
#include "src/common/xmalloc.h"

#include "compat.h"

#include "capacity_check.h"

static void log_line(void *ctx, const char *line)
{
	info("select/orrery: capacity: %s", line);
}

void orrery_capacity_check_ctld(const orrery_conf_t *c,
				const orr_switches_t *tree)
{
	orrery_cap_switch_t *sw;
	size_t n;

	if (!tree || tree->count <= 0)
		return;
	n = (size_t) tree->count;
	sw = xcalloc(n, sizeof(*sw));
	for (size_t i = 0; i < n; i++) {
		const orr_switch_t *s = &tree->sw[i];

		sw[i].name = s->name;
		sw[i].level = s->level;
		sw[i].has_parent = s->parent >= 0;
		/* Slurm's LinkSpeed default is 1: "not given". */
		sw[i].linkspeed_mbps = s->link_speed > 1 ?
			(uint64_t) s->link_speed * c->linkspeed_unit_mbps : 0;
	}
	if (orrery_capacity_check(c, sw, n, log_line, NULL) == 0)
		info("select/orrery: capacity: orrery.conf and topology.conf LinkSpeed agree on %zu switches",
		     n);
	xfree(sw);
}
