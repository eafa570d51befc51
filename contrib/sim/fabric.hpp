// The simulator's view of the network: a tree of switches with nodes on
// leaves.  A link is a switch's uplink to its parent (one direction is
// modelled: ring all-reduce traffic is symmetric, so the up and down
// directions carry the same load); its index is the switch index.  Each
// node's NIC is a per-flow rate cap: nodes are allocated whole, so a NIC
// only ever carries one job's traffic.
//
// The fabric is filled from an orrery_topology_t (fabric_from_topology in
// orrery_bridge.cpp) so the simulator and liborrery agree on node indices,
// link capacities and the crossing rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sim {

enum class Coll { Ring = 0, AllToAll = 1 };

struct Fabric {
	std::vector<long> parent;        // per switch, -1 for the root
	std::vector<int> level;          // per switch, leaf = 0
	std::vector<double> cap_mbps;    // uplink capacity, 0 = unconstrained
	std::vector<std::string> name;   // per switch
	std::vector<uint32_t> node_leaf; // per node
	double node_link_mbps = 0;

	size_t nodes() const { return node_leaf.size(); }
	size_t switches() const { return parent.size(); }
	// Switches below s (s included), computed on demand.
	std::vector<std::vector<uint32_t>> nodes_below() const;
};

// One uplink crossed by a job: traffic on it = weight * per-node rate.
struct Crossing {
	uint32_t link;
	double weight;
};

// Uplinks crossed by a node set for a collective: those whose switch has
// some but not all of the nodes below it (lib/topology/link_map.cpp's rule).
// Ring: weight 1.  All-to-all: m(n-m)/(n-1).  Unconstrained links
// (capacity 0) are left out.
std::vector<Crossing> crossings(const Fabric &f,
				const std::vector<uint32_t> &nodes, Coll c);

}  // namespace sim
