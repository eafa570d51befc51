/*
 * capacity_check.c - orrery.conf capacities against topology.conf
 * LinkSpeed.  See capacity_check.h and orrery.conf(5), "Capacities from
 * inventory".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "capacity_check.h"

static void rate(uint64_t mbps, char *out, size_t len)
{
	if (mbps % 1000 == 0)
		snprintf(out, len, "%" PRIu64 "Gbps", mbps / 1000);
	else
		snprintf(out, len, "%" PRIu64 "Mbps", mbps);
}

struct emit {
	orrery_cap_log_fn log;
	void *ctx;
	size_t n;
};

static void emit(struct emit *e, const char *line)
{
	if (e->n < ORRERY_CAP_LINES_MAX)
		e->log(e->ctx, line);
	e->n++;
}

size_t orrery_capacity_check(const orrery_conf_t *c,
			     const orrery_cap_switch_t *sw, size_t n,
			     orrery_cap_log_fn log, void *ctx)
{
	struct emit e = { log, ctx, 0 };
	char line[512], a[32], b[32];

	for (size_t i = 0; i < n; i++) {
		uint64_t conf = 0;
		const char *src = NULL;
		char lvl[32];

		if (!sw[i].has_parent)
			continue;
		for (size_t k = 0; k < c->n_switches; k++)
			if (strcmp(c->switches[k].name, sw[i].name) == 0) {
				conf = c->switches[k].uplink_mbps;
				src = "[switch.NAME] uplink";
			}
		if (!conf && sw[i].level >= 0 && sw[i].level < ORRERY_CONF_MAX_LEVELS &&
		    c->level_uplink_mbps[sw[i].level]) {
			conf = c->level_uplink_mbps[sw[i].level];
			snprintf(lvl, sizeof(lvl), "[uplinks] level%d", sw[i].level);
			src = lvl;
		}
		if (conf && sw[i].linkspeed_mbps && conf != sw[i].linkspeed_mbps) {
			rate(conf, a, sizeof(a));
			rate(sw[i].linkspeed_mbps, b, sizeof(b));
			snprintf(line, sizeof(line),
				 "switch %s: orrery.conf %s=%s disagrees with topology.conf LinkSpeed (%s at linkspeed_unit); using %s",
				 sw[i].name, src, a, b, a);
			emit(&e, line);
		} else if (!conf && !sw[i].linkspeed_mbps) {
			snprintf(line, sizeof(line),
				 "switch %s: no uplink capacity (no LinkSpeed in topology.conf, none in orrery.conf); treated as unconstrained",
				 sw[i].name);
			emit(&e, line);
		}
	}
	for (size_t k = 0; k < c->n_switches; k++) {
		size_t i;

		for (i = 0; i < n && strcmp(sw[i].name, c->switches[k].name); i++)
			;
		if (i == n) {
			snprintf(line, sizeof(line),
				 "orrery.conf [switch.%s]: no such switch in topology.conf; ignored",
				 c->switches[k].name);
			emit(&e, line);
		}
	}
	if (!c->node_link_mbps)
		emit(&e, "orrery.conf has no node_link: node rates are liborrery's default (orrery-inventory --format=orrery-conf derives it)");
	if (e.n > ORRERY_CAP_LINES_MAX) {
		snprintf(line, sizeof(line), "... and %zu more capacity findings",
			 e.n - ORRERY_CAP_LINES_MAX);
		log(ctx, line);
	}
	return e.n;
}
