// The switch tree: construction, validation and lookups.
#include "topology/topology.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace orrery {

void Topology::add_switch(const std::string &name, const std::string &parent)
{
	if (finalized_)
		fail(ORRERY_ESTATE, "topology is finalized; cannot add switch '" + name + "'");
	if (name.empty())
		fail(ORRERY_EINVAL, "empty switch name");
	if (switch_idx_.count(name))
		fail(ORRERY_EINVAL, "duplicate switch '" + name + "'");
	if (parent == name)
		fail(ORRERY_EINVAL, "switch '" + name + "' is its own parent");
	Switch s;
	s.name = name;
	s.parent_name = parent;
	switch_idx_[name] = switches.size();
	switches.push_back(std::move(s));
}

void Topology::add_node(const std::string &node, const std::string &leaf)
{
	if (finalized_)
		fail(ORRERY_ESTATE, "topology is finalized; cannot add node '" + node + "'");
	if (node.empty())
		fail(ORRERY_EINVAL, "empty node name");
	if (node_idx_.count(node))
		fail(ORRERY_EINVAL, "node '" + node + "' is attached to more than one switch");
	node_idx_[node] = nodes.size();
	nodes.push_back(node);
	pending_leaf_.push_back(leaf);
}

void walk_parents(const std::vector<long> &parent, std::vector<long> &depth,
		  std::vector<char> &on_cycle)
{
	size_t n = parent.size();
	enum : char { kNew, kOnPath, kDone };
	std::vector<char> state(n, kNew);
	std::vector<size_t> path;
	depth.assign(n, -1);
	on_cycle.assign(n, 0);
	for (size_t i = 0; i < n; i++) {
		if (state[i] == kDone)
			continue;
		path.clear();
		long v = (long)i;
		while (v >= 0 && state[v] == kNew) {
			state[v] = kOnPath;
			path.push_back((size_t)v);
			v = parent[v];
		}
		// v: -1 (above a root), a switch walked before, or a switch
		// on this path (a cycle through v).
		bool cyc = v >= 0 && (state[v] == kOnPath || depth[v] < 0);
		if (v >= 0 && state[v] == kOnPath) {
			long u = v;
			do {
				on_cycle[u] = 1;
				u = parent[u];
			} while (u != v);
		}
		long base = v >= 0 && !cyc ? depth[v] : -1;
		for (size_t k = path.size(); k-- > 0;) {
			size_t u = path[k];
			state[u] = kDone;
			depth[u] = cyc ? -1 : ++base;
		}
	}
}

void Topology::finalize()
{
	if (finalized_)
		return;
	if (switches.empty())
		fail(ORRERY_EINVAL, "topology has no switches");
	long root = -1;
	for (size_t i = 0; i < switches.size(); i++) {
		Switch &s = switches[i];
		if (s.parent_name.empty()) {
			if (root >= 0)
				fail(ORRERY_EINVAL, "topology has more than one root switch ('" +
				     switches[root].name + "' and '" + s.name + "')");
			root = (long)i;
			continue;
		}
		auto it = switch_idx_.find(s.parent_name);
		if (it == switch_idx_.end())
			fail(ORRERY_EINVAL, "switch '" + s.name + "' names unknown parent '" +
			     s.parent_name + "'");
		s.parent = (long)it->second;
		switches[it->second].children.push_back(i);
	}
	if (root < 0)
		fail(ORRERY_EINVAL, "topology has no root switch (a cycle of parents)");
	node_leaf.assign(nodes.size(), 0);
	for (size_t n = 0; n < nodes.size(); n++) {
		auto it = switch_idx_.find(pending_leaf_[n]);
		if (it == switch_idx_.end())
			fail(ORRERY_EINVAL, "node '" + nodes[n] + "' names unknown switch '" +
			     pending_leaf_[n] + "'");
		Switch &s = switches[it->second];
		s.nodes.push_back(n);
		node_leaf[n] = it->second;
	}
	// Every switch must reach the root (no cycles); levels are the height
	// above the leaves: leaf = 0, parent = 1 + max(child levels).
	std::vector<long> parent(switches.size()), depth;
	std::vector<char> on_cycle;
	for (size_t i = 0; i < switches.size(); i++)
		parent[i] = switches[i].parent;
	walk_parents(parent, depth, on_cycle);
	for (size_t i = 0; i < switches.size(); i++) {
		if (depth[i] < 0)
			fail(ORRERY_EINVAL, "switch '" + switches[i].name +
			     "' is on a cycle of parents");
		if (!switches[i].nodes.empty() && !switches[i].children.empty())
			fail(ORRERY_EINVAL, "switch '" + switches[i].name +
			     "' has both nodes and child switches; nodes must hang from leaf switches");
	}
	// bottom-up by depth
	std::vector<size_t> idx(switches.size());
	for (size_t i = 0; i < idx.size(); i++)
		idx[i] = i;
	std::sort(idx.begin(), idx.end(),
		  [&](size_t a, size_t b) { return depth[a] > depth[b]; });
	for (size_t i : idx) {
		Switch &s = switches[i];
		s.level = 0;
		for (size_t c : s.children)
			s.level = std::max(s.level, switches[c].level + 1);
	}
	pending_leaf_.clear();
	finalized_ = true;
}

long Topology::node_index(const std::string &name) const
{
	auto it = node_idx_.find(name);
	return it == node_idx_.end() ? -1 : (long)it->second;
}

long Topology::switch_index(const std::string &name) const
{
	auto it = switch_idx_.find(name);
	return it == switch_idx_.end() ? -1 : (long)it->second;
}

uint64_t Topology::capacity(size_t sw) const
{
	const Switch &s = switches.at(sw);
	if (!s.up_mbps || !s.down_mbps)
		return s.up_mbps ? s.up_mbps : s.down_mbps;
	return std::min(s.up_mbps, s.down_mbps);
}

}  // namespace orrery

namespace orrery {

LinkCap Topology::link_cap(size_t sw) const
{
	return LinkCap(capacity(sw), switches.at(sw).up_links, flows_per_job);
}

}  // namespace orrery
