// A tree of switches with nodes on leaves.  A "link" in orrery is a
// switch's uplink to its parent, identified by the switch index.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "circle/ecmp.hpp"
#include "core/types.hpp"

namespace orrery {

struct Switch {
	std::string name;
	std::string parent_name;
	long parent = -1;               // index, -1 for the root
	int level = 0;                  // leaf = 0
	uint64_t up_mbps = 0;           // uplink, 0 = unknown
	uint64_t down_mbps = 0;
	uint32_t up_links = 1;          // parallel links sharing up_mbps (ECMP)
	std::vector<size_t> children;   // switch indices
	std::vector<size_t> nodes;      // node indices (leaves only)
};

class Topology {
public:
	void add_switch(const std::string &name, const std::string &parent);
	void add_node(const std::string &node, const std::string &leaf);
	void finalize();  // throws Error on an invalid tree
	bool finalized() const { return finalized_; }

	std::vector<Switch> switches;
	std::vector<std::string> nodes;
	std::vector<size_t> node_leaf;  // node index -> leaf switch index
	uint64_t node_link_mbps = 100000;
	// Flows a job sends across an uplink when its profile says none
	// (lib/circle/ecmp.hpp; orrery.conf flows=).
	uint32_t flows_per_job = kDefaultFlows;
	// How the tree was made ("generated: tiers=2 ..."), for the header
	// comment topology.conf writers put on top; may be empty.
	std::string origin;

	long node_index(const std::string &name) const;
	long switch_index(const std::string &name) const;
	// Capacity used for scoring: min of both directions, 0 = unknown.
	uint64_t capacity(size_t sw) const;
	// The same with its parallel links and the default flows: what the
	// score models (lib/circle/ecmp.hpp).
	LinkCap link_cap(size_t sw) const;

private:
	std::unordered_map<std::string, size_t> node_idx_, switch_idx_;
	std::vector<std::string> pending_leaf_;
	bool finalized_ = false;
};

// One uplink a job's traffic crosses: m of the job's n nodes are below it,
// at positions pos (ascending) of the job's node order.
struct Crossing {
	size_t sw;
	uint32_t m;
	uint32_t n;
	std::vector<uint32_t> pos;
};
// Uplinks crossed by a node set (nodes below sw and nodes outside).  The
// job's node order is ascending node index (Slurm's order).  Crossing::pos
// is filled only with positions (what a pipeline phase needs: pass
// needs_positions(pattern); pattern_on_link refuses a pipeline without).
std::vector<Crossing> crossings(const Topology &t,
				const std::vector<uint32_t> &nodes,
				bool positions = true);
bool needs_positions(const Pattern &p);
// The crossing rule of one phase (orrery.h, orrery_collective): load as a
// multiple of the phase demand and the connections it travels in.
// below[i] != 0 when the job's i-th node is below the uplink, i < n.
struct Carry {
	double factor = 0;
	uint64_t connections = 0;
};
Carry phase_crossing(Collective c, uint32_t groups, const uint8_t *below,
		     uint32_t n);
// The job's pattern as seen on one uplink: each phase's demand times its
// factor (0 when nothing crosses: phases stay in step); flow_mult the most
// connections of a phase.
Pattern pattern_on_link(const Pattern &p, const Crossing &c);

// Walk a forest given by parent indices (-1 = a root) once, in linear
// time: depth[i] = hops from i up to its root, or -1 when the walk up from
// i runs into a cycle; on_cycle[i] when i lies on one.  (A walk per switch
// was quadratic: a 10,000-switch chain in topology.conf took 2.6 s.)
void walk_parents(const std::vector<long> &parent, std::vector<long> &depth,
		  std::vector<char> &on_cycle);

}  // namespace orrery
