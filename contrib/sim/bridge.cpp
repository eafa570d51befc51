#include "bridge.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim {

void check(int rc, const orrery_error_t &err, const std::string &what)
{
	if (rc != ORRERY_OK)
		throw std::runtime_error(what + ": " +
					 (err.message[0] ? err.message
							 : orrery_strerror(rc)));
}

TopologyPtr generate_topology(const orrery_fabric_t &f)
{
	orrery_topology_t *t = nullptr;
	orrery_error_t err{};
	check(orrery_topology_generate(&f, &t, &err), err, "fabric");
	return TopologyPtr(t);
}

Fabric fabric_from_topology(const orrery_topology_t *t)
{
	Fabric f;
	const size_t ns = orrery_topology_switch_count(t);
	for (size_t s = 0; s < ns; s++) {
		f.parent.push_back(orrery_topology_switch_parent(t, s));
		f.level.push_back(orrery_topology_switch_level(t, s));
		f.cap_mbps.push_back((double)orrery_topology_uplink_mbps(t, s));
		f.name.push_back(orrery_topology_switch_name(t, s));
	}
	const size_t nn = orrery_topology_node_count(t);
	for (size_t n = 0; n < nn; n++)
		f.node_leaf.push_back((uint32_t)orrery_topology_node_leaf(t, n));
	f.node_link_mbps = (double)orrery_topology_node_link(t);
	std::vector<uint32_t> k(ns, 1);
	bool ecmp = false;
	for (size_t s = 0; s < ns; s++) {
		k[s] = std::max(1u, orrery_topology_uplink_links(t, s));
		ecmp |= k[s] > 1;
	}
	if (ecmp)
		f.set_links(std::move(k));
	f.flows = orrery_topology_flows(t);
	return f;
}

Pattern pattern_from_profile(const orrery_profile_t *p)
{
	Pattern pat;
	pat.period = (double)orrery_profile_period_us(p) / 1e6;
	const size_t n = orrery_profile_phase_count(p);
	for (size_t i = 0; i < n; i++) {
		orrery_phase_t ph;
		if (orrery_profile_phase(p, i, &ph) != ORRERY_OK)
			throw std::runtime_error("profile phase unreadable");
		pat.phases.push_back(Phase{(double)ph.offset_us / 1e6,
					   (double)ph.duration_us / 1e6,
					   (double)ph.demand_mbps,
					   (Coll)ph.collective, ph.groups});
	}
	std::stable_sort(pat.phases.begin(), pat.phases.end(),
			 [](const Phase &a, const Phase &b) {
				 return a.offset < b.offset;
			 });
	return pat;
}

ProfileTable::~ProfileTable()
{
	for (orrery_profile_t *p : resolved_)
		orrery_profile_free(p);
}

uint32_t ProfileTable::resolve(const std::string &spec, uint32_t nodes)
{
	auto key = std::make_pair(spec, nodes);
	auto it = index_.find(key);
	if (it != index_.end())
		return it->second;
	orrery_error_t err{};
	orrery_profile_t *p = nullptr, *r = nullptr;
	check(orrery_profile_parse(spec.c_str(), &p, &err), err,
	      "profile '" + spec + "'");
	orrery_shape_t shape{nodes, gpn_, link_};
	int rc = orrery_profile_resolve(p, &shape, &r, &err);
	orrery_profile_free(p);
	check(rc, err, "profile '" + spec + "' for " + std::to_string(nodes) +
			       " nodes");
	uint32_t i = (uint32_t)resolved_.size();
	resolved_.push_back(r);
	patterns_.push_back(pattern_from_profile(r));
	index_.emplace(key, i);
	return i;
}

}  // namespace sim
