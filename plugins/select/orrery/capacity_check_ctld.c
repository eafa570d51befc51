/*
 * capacity_check_ctld.c - run the capacity check on slurmctld's
 * topology/tree switch table (called where the plugin builds its topology:
 * at start and after each reconfigure).  Logging only; never fails.
 */
#include "src/common/slurm_topology.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "capacity_check.h"

static void log_line(void *ctx, const char *line)
{
	info("select/orrery: capacity: %s", line);
}

void orrery_capacity_check_ctld(const orrery_conf_t *c)
{
	orrery_cap_switch_t *sw;
	int *parent;
	size_t n;

	if (switch_record_cnt <= 0 || !switch_record_table)
		return;
	n = (size_t) switch_record_cnt;
	sw = xcalloc(n, sizeof(*sw));
	parent = xcalloc(n, sizeof(int));
	for (size_t i = 0; i < n; i++)
		parent[i] = -1;
	for (size_t i = 0; i < n; i++) {
		switch_record_t *s = &switch_record_table[i];

		for (int k = 0; k < s->num_switches && s->switch_index; k++) {
			int ci = s->switch_index[k];

			if (ci < (int) n)
				parent[ci] = (int) i;
		}
	}
	for (size_t i = 0; i < n; i++) {
		switch_record_t *s = &switch_record_table[i];

		sw[i].name = s->name;
		sw[i].level = s->level;
		sw[i].has_parent = parent[i] >= 0;
		/* Slurm's LinkSpeed default is 1: "not given". */
		sw[i].linkspeed_mbps = s->link_speed > 1 ?
			(uint64_t) s->link_speed * c->linkspeed_unit_mbps : 0;
	}
	if (orrery_capacity_check(c, sw, n, log_line, NULL) == 0)
		info("select/orrery: capacity: orrery.conf and topology.conf LinkSpeed agree on %zu switches",
		     n);
	xfree(parent);
	xfree(sw);
}
