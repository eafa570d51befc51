/*
 * capacity_check.h - compare orrery.conf's link capacities with
 * topology.conf's LinkSpeed, once per (re)configuration, and name every
 * switch whose configured capacity disagrees or that has none.
 * Slurm-free (unit-tested); capacity_check_ctld.c feeds it slurmctld's
 * switch table.
 */
#ifndef ORRERY_CAPACITY_CHECK_H
#define ORRERY_CAPACITY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "orrery_conf.h"

#define ORRERY_CAP_LINES_MAX 16	/* lines logged; then one summary line */

typedef struct orrery_cap_switch {
	const char *name;
	int level;			/* 0 = leaf                              */
	int has_parent;			/* 0: the root has no uplink to check    */
	uint64_t linkspeed_mbps;	/* LinkSpeed x linkspeed_unit; 0: none   */
} orrery_cap_switch_t;

typedef void (*orrery_cap_log_fn)(void *ctx, const char *line);

/*
 * One line through log() per finding, at most ORRERY_CAP_LINES_MAX and a
 * summary line after them:
 *  - a switch whose [switch.NAME] or [uplinks] levelN capacity differs
 *    from its LinkSpeed,
 *  - a switch with an uplink and no capacity from either source,
 *  - a [switch.NAME] group naming no switch of topology.conf,
 *  - no node_link in orrery.conf.
 * Returns the number of findings (0: capacities agree).
 */
size_t orrery_capacity_check(const orrery_conf_t *c,
			     const orrery_cap_switch_t *sw, size_t n,
			     orrery_cap_log_fn log, void *ctx);

/* capacity_check_ctld.c: run it on the switch tree the model is built
 * from (compat.h), logging through Slurm's info()/error().  Never fails. */
struct orr_switches;
void orrery_capacity_check_ctld(const orrery_conf_t *c,
				const struct orr_switches *tree);

#endif /* ORRERY_CAPACITY_CHECK_H */
