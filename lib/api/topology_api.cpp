// C API of the topology module (orrery.h, "Topology").
#include <algorithm>
#include <cstring>

#include "api/guard.hpp"
#include "api/handles.hpp"
#include "topology/slurm_conf.hpp"

using orrery::fail;
using orrery::guard;

namespace {

void need(const void *p, const char *what)
{
	if (!p)
		fail(ORRERY_EINVAL, std::string(what) + " is NULL");
}

std::string str(const char *s, const char *what)
{
	need(s, what);
	return s;
}

void check_uplink(uint64_t up, uint64_t down)
{
	if (up > orrery::kMaxLinkMbps || down > orrery::kMaxLinkMbps)
		fail(ORRERY_ERANGE, "uplink capacity above 1 Pb/s (" +
		     std::to_string(std::max(up, down)) + " Mb/s)");
}

}  // namespace

extern "C" {

orrery_topology_t *orrery_topology_new(void)
{
	try {
		return new orrery_topology();
	} catch (...) {
		return nullptr;
	}
}

void orrery_topology_free(orrery_topology_t *t) { delete t; }

int orrery_topology_add_switch(orrery_topology_t *t, const char *name,
			       const char *parent, orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		std::string n = str(name, "switch name");
		if (!orrery::valid_name(n))
			fail(ORRERY_EINVAL, "invalid switch name '" + n +
			     "' (accepted: letters, digits, '.', '_', '-')");
		if (t->t.switches.size() >= orrery::kTopologyMaxSwitches)
			fail(ORRERY_ELIMIT, "more than " +
			     std::to_string(orrery::kTopologyMaxSwitches) + " switches");
		t->t.add_switch(n, parent ? parent : "");
	});
}

int orrery_topology_add_node(orrery_topology_t *t, const char *node,
			     const char *leaf_switch, orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		std::string n = str(node, "node name");
		if (!orrery::valid_name(n))
			fail(ORRERY_EINVAL, "invalid node name '" + n +
			     "' (accepted: letters, digits, '.', '_', '-')");
		if (t->t.nodes.size() >= orrery::kTopologyMaxNodes)
			fail(ORRERY_ELIMIT, "more than " +
			     std::to_string(orrery::kTopologyMaxNodes) + " nodes");
		t->t.add_node(n, str(leaf_switch, "leaf switch"));
	});
}

int orrery_topology_finalize(orrery_topology_t *t, orrery_error_t *err)
{
	return guard(err, [&] {
		orrery::fault_point("topology");
		need(t, "topology");
		t->t.finalize();
	});
}

// The switch named sw, which must have an uplink (not the root).
static orrery::Switch &uplink_switch(orrery_topology_t *t, const char *sw)
{
	need(t, "topology");
	std::string name = str(sw, "switch name");
	long i = t->t.switch_index(name);
	if (i < 0)
		fail(ORRERY_ENOENT, "unknown switch '" + name + "'");
	orrery::Switch &s = t->t.switches[(size_t)i];
	if (t->t.finalized() ? s.parent < 0 : s.parent_name.empty())
		fail(ORRERY_EINVAL, "switch '" + name +
		     "' is the root: it has no uplink");
	return s;
}

int orrery_topology_set_uplink(orrery_topology_t *t, const char *sw,
			       uint64_t up_mbps, uint64_t down_mbps,
			       orrery_error_t *err)
{
	return guard(err, [&] {
		orrery::Switch &s = uplink_switch(t, sw);
		check_uplink(up_mbps, down_mbps);
		s.up_mbps = up_mbps;
		s.down_mbps = down_mbps;
	});
}

int orrery_topology_set_level_uplink(orrery_topology_t *t, int level,
				     uint64_t up_mbps, uint64_t down_mbps,
				     orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		if (!t->t.finalized())
			fail(ORRERY_ESTATE, "levels are known only after finalize");
		check_uplink(up_mbps, down_mbps);
		int top = 0;
		for (const orrery::Switch &s : t->t.switches)
			top = std::max(top, s.level);
		size_t hit = 0;
		for (orrery::Switch &s : t->t.switches) {
			if (s.level != level || s.parent < 0)
				continue;
			s.up_mbps = up_mbps;
			s.down_mbps = down_mbps;
			hit++;
		}
		if (!hit)
			fail(ORRERY_ERANGE, "no uplinks at level " + std::to_string(level) +
			     " (levels with uplinks: 0 to " +
			     std::to_string(std::max(0, top - 1)) + ")");
	});
}

static void check_links(uint32_t links)
{
	if (links < 1 || links > orrery::kMaxLinks)
		orrery::fail(ORRERY_ERANGE, "parallel links " + std::to_string(links) +
			     ": expected 1 to " + std::to_string(orrery::kMaxLinks));
}

int orrery_topology_set_uplink_links(orrery_topology_t *t, const char *sw,
				     uint32_t links, orrery_error_t *err)
{
	return guard(err, [&] {
		orrery::Switch &s = uplink_switch(t, sw);
		check_links(links);
		s.up_links = links;
	});
}

int orrery_topology_set_level_uplink_links(orrery_topology_t *t, int level,
					   uint32_t links, orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		if (!t->t.finalized())
			fail(ORRERY_ESTATE, "levels are known only after finalize");
		check_links(links);
		size_t hit = 0;
		for (orrery::Switch &s : t->t.switches) {
			if (s.level != level || s.parent < 0)
				continue;
			s.up_links = links;
			hit++;
		}
		if (!hit)
			fail(ORRERY_ERANGE, "no uplinks at level " + std::to_string(level));
	});
}

uint32_t orrery_topology_uplink_links(const orrery_topology_t *t, size_t i)
{
	if (!t || i >= t->t.switches.size())
		return 0;
	return t->t.switches[i].up_links;
}

int orrery_topology_set_flows(orrery_topology_t *t, uint32_t flows,
			      orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		if (flows < 1 || flows > orrery::kMaxFlows)
			fail(ORRERY_ERANGE, "flows " + std::to_string(flows) +
			     ": expected 1 to " + std::to_string(orrery::kMaxFlows));
		t->t.flows_per_job = flows;
	});
}

uint32_t orrery_topology_flows(const orrery_topology_t *t)
{
	return t ? t->t.flows_per_job : 0;
}

void orrery_topology_set_node_link(orrery_topology_t *t, uint64_t mbps)
{
	if (t)
		t->t.node_link_mbps = mbps;
}

uint64_t orrery_topology_node_link(const orrery_topology_t *t)
{
	return t ? t->t.node_link_mbps : 0;
}

int orrery_topology_read_slurm(const char *path, orrery_hostlist_fn expand,
			       void *expand_ctx, uint64_t linkspeed_unit_mbps,
			       orrery_topology_t **out, orrery_error_t *err)
{
	if (out)
		*out = nullptr;
	return guard(err, [&] {
		need(out, "out");
		std::string p = str(path, "path");
		auto h = std::make_unique<orrery_topology>();
		h->t = orrery::read_slurm_topology(p, expand, expand_ctx,
						   linkspeed_unit_mbps);
		*out = h.release();
	});
}

int orrery_topology_parse_slurm(const char *text, size_t len, const char *name,
				orrery_hostlist_fn expand, void *expand_ctx,
				uint64_t linkspeed_unit_mbps,
				orrery_topology_t **out, orrery_error_t *err)
{
	if (out)
		*out = nullptr;
	return guard(err, [&] {
		need(out, "out");
		if (!text && len)
			fail(ORRERY_EINVAL, "text is NULL");
		auto h = std::make_unique<orrery_topology>();
		h->t = orrery::parse_slurm_topology(
			std::string(text ? text : "", len),
			name && *name ? name : "topology.conf", expand, expand_ctx,
			linkspeed_unit_mbps);
		*out = h.release();
	});
}

int orrery_topology_generate(const orrery_fabric_t *f, orrery_topology_t **out,
			     orrery_error_t *err)
{
	if (out)
		*out = nullptr;
	return guard(err, [&] {
		need(f, "fabric");
		need(out, "out");
		auto h = std::make_unique<orrery_topology>();
		h->t = orrery::generate_fabric(*f);
		*out = h.release();
	});
}

int orrery_topology_write_slurm(const orrery_topology_t *t, FILE *out,
				orrery_error_t *err)
{
	return guard(err, [&] {
		need(t, "topology");
		need(out, "out");
		orrery::write_slurm_topology(t->t, out);
	});
}

size_t orrery_topology_node_count(const orrery_topology_t *t)
{
	return t ? t->t.nodes.size() : 0;
}

const char *orrery_topology_node_name(const orrery_topology_t *t, size_t i)
{
	return t && i < t->t.nodes.size() ? t->t.nodes[i].c_str() : nullptr;
}

long orrery_topology_node_index(const orrery_topology_t *t, const char *name)
{
	try {
		return t && name ? t->t.node_index(name) : -1;
	} catch (...) {
		return -1;
	}
}

size_t orrery_topology_switch_count(const orrery_topology_t *t)
{
	return t ? t->t.switches.size() : 0;
}

const char *orrery_topology_switch_name(const orrery_topology_t *t, size_t i)
{
	return t && i < t->t.switches.size() ? t->t.switches[i].name.c_str()
					     : nullptr;
}

long orrery_topology_switch_index(const orrery_topology_t *t, const char *name)
{
	try {
		return t && name ? t->t.switch_index(name) : -1;
	} catch (...) {
		return -1;
	}
}

int orrery_topology_switch_level(const orrery_topology_t *t, size_t i)
{
	if (!t || i >= t->t.switches.size() || !t->t.finalized())
		return -1;
	return t->t.switches[i].level;
}

long orrery_topology_switch_parent(const orrery_topology_t *t, size_t i)
{
	if (!t || i >= t->t.switches.size() || !t->t.finalized())
		return -1;
	return t->t.switches[i].parent;
}

uint64_t orrery_topology_uplink_mbps(const orrery_topology_t *t, size_t i)
{
	if (!t || i >= t->t.switches.size())
		return 0;
	return t->t.capacity(i);
}

long orrery_topology_node_leaf(const orrery_topology_t *t, size_t i)
{
	if (!t || !t->t.finalized() || i >= t->t.node_leaf.size())
		return -1;
	return (long)t->t.node_leaf[i];
}

int orrery_profile_on_link(const orrery_profile_t *p, uint32_t m, uint32_t n,
			   orrery_profile_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!p || !out)
			orrery::fail(ORRERY_EINVAL, "NULL argument");
		if (p->p.is_model())
			orrery::fail(ORRERY_ESTATE,
				     "profile '" + p->p.model->name +
				     "' is a model: resolve it for the job's shape first");
		if (n < 2 || m == 0 || m >= n)
			orrery::fail(ORRERY_ERANGE,
				     "an uplink is crossed only with 0 < m < n job nodes below it");
		orrery::Crossing c{0, m, n, {}};
		for (uint32_t i = 0; i < m; i++)
			c.pos.push_back(i);
		auto *h = new orrery_profile;
		h->p.pattern = orrery::pattern_on_link(p->p.pattern, c);
		*out = h;
	});
}

// The most job nodes the public crossing calls take (a mask of n bytes).
static const uint32_t kMaxMaskNodes = 1000000;

int orrery_profile_on_uplink(const orrery_profile_t *p, const uint8_t *below,
			     uint32_t n, orrery_profile_t **out,
			     orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!p || !out || (n && !below))
			orrery::fail(ORRERY_EINVAL, "NULL argument");
		*out = nullptr;
		if (p->p.is_model())
			orrery::fail(ORRERY_ESTATE,
				     "profile '" + p->p.model->name +
				     "' is a model: resolve it for the job's shape first");
		if (n > kMaxMaskNodes)
			orrery::fail(ORRERY_ELIMIT, std::to_string(n) +
				     " job nodes, more than the limit of " +
				     std::to_string(kMaxMaskNodes));
		orrery::Crossing c{0, 0, n, {}};
		for (uint32_t i = 0; i < n; i++)
			if (below[i])
				c.pos.push_back(i);
		c.m = (uint32_t)c.pos.size();
		if (n < 2 || c.m == 0 || c.m >= n)
			orrery::fail(ORRERY_ERANGE,
				     "an uplink is crossed only with 0 < m < n job nodes below it");
		auto *h = new orrery_profile;
		h->p.pattern = orrery::pattern_on_link(p->p.pattern, c);
		*out = h;
	});
}

double orrery_phase_crossing(const orrery_phase_t *ph, const uint8_t *below,
			     uint32_t n, uint32_t *connections)
{
	if (connections)
		*connections = 0;
	if (!ph || (n && !below) || n > kMaxMaskNodes ||
	    ph->collective < ORRERY_COLL_RING || ph->collective > ORRERY_COLL_RAIL)
		return -1.0;
	orrery::Carry k = orrery::phase_crossing((orrery::Collective)ph->collective,
						 ph->groups, below, n);
	if (connections)
		*connections = (uint32_t)std::min<uint64_t>(k.connections, UINT32_MAX);
	return k.factor;
}

uint32_t orrery_rail_link(uint32_t rail, uint32_t links)
{
	return links ? rail % links : 0;
}

}  // extern "C"
