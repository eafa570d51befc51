/*
 * topo_load.c - the topology options shared by the topology, place and
 * solve commands: --topology FILE or --generate SPEC, --linkspeed-unit,
 * --node-link, --uplink LEVEL=[Kx]CAP / SWITCH=[Kx]CAP and --flows.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist_slurm.h"
#include "query.h"

void topo_opts_init(struct topo_opts *o)
{
	memset(o, 0, sizeof *o);
	o->linkspeed_unit = 1000;  /* LinkSpeed in Gb/s, as our writer emits */
}

/* "[Kx]CAP": K parallel links of CAP (ECMP), the aggregate in *cap. */
static int parse_uplink_cap(const char *s, uint64_t *cap, uint64_t *links)
{
	const char *x = strpbrk(s, "xX");
	char k[16];

	*links = 1;
	if (!x || !isdigit((unsigned char)*s))
		return parse_bandwidth(s, cap);
	if ((size_t)(x - s) >= sizeof k)
		return -1;
	memcpy(k, s, (size_t)(x - s));
	k[x - s] = '\0';
	if (parse_uint(k, 1024, links) || *links < 1 || parse_bandwidth(x + 1, cap))
		return -1;
	if (*cap > UINT64_MAX / *links)
		return -1;
	*cap *= *links;
	return 0;
}

#define UPLINK_USAGE "expected LEVEL=CAP or SWITCH=CAP, or KxCAP for K " \
	"parallel links (ECMP), e.g. 0=400Gbps, leaf01=200Gbps or 0=8x400Gbps"

int topo_opt(struct topo_opts *o, const char *name, const char *arg)
{
	if (!strcmp(name, "topology")) {
		o->path = arg;
	} else if (!strcmp(name, "generate")) {
		o->generate = arg;
	} else if (!strcmp(name, "linkspeed-unit")) {
		if (!strcmp(arg, "0") || !strcasecmp(arg, "ignore")) {
			o->linkspeed_unit = 0;
		} else if (parse_bandwidth(arg, &o->linkspeed_unit)) {
			qerr("--linkspeed-unit '%s': expected a bandwidth such as "
			     "1Gbps or 100Mbps, or 0 to ignore LinkSpeed", arg);
			return -1;
		}
	} else if (!strcmp(name, "node-link")) {
		if (parse_bandwidth(arg, &o->node_link)) {
			qerr("--node-link '%s': expected a bandwidth such as 100Gbps", arg);
			return -1;
		}
	} else if (!strcmp(name, "uplink")) {
		if (o->n_uplinks >= (int)(sizeof o->uplinks / sizeof o->uplinks[0])) {
			qerr("--uplink given more than %zu times",
			     sizeof o->uplinks / sizeof o->uplinks[0]);
			return -1;
		}
		const char *eq = strchr(arg, '=');
		uint64_t cap, links;
		if (!eq || eq == arg || parse_uplink_cap(eq + 1, &cap, &links)) {
			qerr("--uplink '%s': " UPLINK_USAGE, arg);
			return -1;
		}
		o->uplinks[o->n_uplinks++] = arg;
	} else if (!strcmp(name, "flows")) {
		if (parse_uint(arg, 4096, &o->flows) || o->flows < 1) {
			qerr("--flows '%s': expected flows per job per uplink, 1 to 4096", arg);
			return -1;
		}
	} else {
		return 0;
	}
	return 1;
}

int parse_fabric(const char *spec, orrery_fabric_t *f, char *prefix_buf,
		 size_t prefix_n)
{
	char *copy = strdup(spec), *tok, *save = NULL;
	int rc = -1;

	memset(f, 0, sizeof *f);
	f->tiers = 2;
	f->oversub_leaf = f->oversub_pod = 1.0;
	f->node_link_mbps = 100000;
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		const char *v;
		uint64_t u;
		char *end;

		if (!eq) {
			qerr("--generate: '%s' is not KEY=VALUE", tok);
			goto out;
		}
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(tok, "tiers") || !strcmp(tok, "leaves") ||
		    !strcmp(tok, "nodes-per-leaf") || !strcmp(tok, "leaves-per-pod")) {
			if (parse_uint(v, 1000000, &u)) {
				qerr("--generate: %s=%s: expected a whole number", tok, v);
				goto out;
			}
			if (!strcmp(tok, "tiers"))
				f->tiers = (int)u;
			else if (!strcmp(tok, "leaves"))
				f->leaves = (uint32_t)u;
			else if (!strcmp(tok, "nodes-per-leaf"))
				f->nodes_per_leaf = (uint32_t)u;
			else
				f->leaves_per_pod = (uint32_t)u;
		} else if (!strcmp(tok, "link")) {
			if (parse_bandwidth(v, &f->node_link_mbps)) {
				qerr("--generate: link=%s: expected a bandwidth such as 100Gbps", v);
				goto out;
			}
		} else if (!strcmp(tok, "oversub") || !strcmp(tok, "pod-oversub")) {
			double x = strtod(v, &end);
			if (end == v || *end) {
				qerr("--generate: %s=%s: expected a ratio such as 2 or 1.5", tok, v);
				goto out;
			}
			if (!strcmp(tok, "oversub"))
				f->oversub_leaf = x;
			else
				f->oversub_pod = x;
		} else if (!strcmp(tok, "prefix")) {
			snprintf(prefix_buf, prefix_n, "%s", v);
			f->node_prefix = prefix_buf;
		} else {
			qerr("--generate: unknown key '%s' (accepted: tiers, leaves, "
			     "nodes-per-leaf, leaves-per-pod, link, oversub, "
			     "pod-oversub, prefix)", tok);
			goto out;
		}
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

static int apply_uplink(orrery_topology_t *t, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char what[256];
	uint64_t cap, level, links;
	orrery_error_t err;
	int rc;

	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof what ||
	    parse_uplink_cap(eq + 1, &cap, &links)) {
		qerr("--uplink '%s': " UPLINK_USAGE, spec);
		return -1;
	}
	memcpy(what, spec, (size_t)(eq - spec));
	what[eq - spec] = '\0';
	if (!parse_uint(what, 64, &level)) {
		rc = orrery_topology_set_level_uplink(t, (int)level, cap, cap, &err);
		if (!rc)
			rc = orrery_topology_set_level_uplink_links(t, (int)level,
					(uint32_t)links, &err);
	} else {
		rc = orrery_topology_set_uplink(t, what, cap, cap, &err);
		if (!rc)
			rc = orrery_topology_set_uplink_links(t, what,
					(uint32_t)links, &err);
	}
	if (rc) {
		qerr("--uplink %s: %s", spec, err.message);
		return -1;
	}
	return 0;
}

orrery_topology_t *topo_load(const struct topo_opts *o)
{
	orrery_topology_t *t = NULL;
	orrery_error_t err;

	if (!!o->path == !!o->generate) {
		qerr("give one of --topology FILE or --generate SPEC");
		return NULL;
	}
	if (o->path) {
		if (orrery_topology_read_slurm(o->path, hostlist_slurm_expand, NULL,
					       o->linkspeed_unit, &t, &err)) {
			qerr("%s", err.message);
			return NULL;
		}
	} else {
		orrery_fabric_t f;
		char prefix[128];
		if (parse_fabric(o->generate, &f, prefix, sizeof prefix))
			return NULL;
		if (orrery_topology_generate(&f, &t, &err)) {
			qerr("--generate: %s", err.message);
			return NULL;
		}
	}
	if (o->node_link)
		orrery_topology_set_node_link(t, o->node_link);
	if (o->flows && orrery_topology_set_flows(t, (uint32_t)o->flows, &err)) {
		qerr("--flows: %s", err.message);
		orrery_topology_free(t);
		return NULL;
	}
	for (int i = 0; i < o->n_uplinks; i++) {
		if (apply_uplink(t, o->uplinks[i])) {
			orrery_topology_free(t);
			return NULL;
		}
	}
	return t;
}
