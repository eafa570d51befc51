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

// orrery.h's orrery_collective (same values).
enum class Coll { Ring = 0, AllToAll = 1, Pipeline = 2, Rail = 3 };

struct Fabric {
	std::vector<long> parent;        // per switch, -1 for the root
	std::vector<int> level;          // per switch, leaf = 0
	std::vector<double> cap_mbps;    // uplink capacity, 0 = unconstrained
	std::vector<std::string> name;   // per switch
	std::vector<uint32_t> node_leaf; // per node
	double node_link_mbps = 0;
	// Parallel uplinks (ECMP): links[s] links of cap_mbps[s] / links[s]
	// each.  Network link s is link 0 of switch s; its others are
	// network links extra[s] .. extra[s] + links[s] - 2 (after the
	// switches).  Empty links = one pipe per switch.
	std::vector<uint32_t> links;
	std::vector<uint32_t> extra;
	uint32_t flows = 2;              // flows per job per uplink (default)

	// Set links per switch (fills extra).
	void set_links(std::vector<uint32_t> k);
	uint32_t links_of(size_t s) const { return links.empty() ? 1 : links[s]; }
	uint32_t sub_link(size_t s, uint32_t i) const
	{
		return i == 0 ? (uint32_t)s : extra[s] + i - 1;
	}
	// Capacity of every network link (switches, then the extra links).
	std::vector<double> network_caps() const;
	// The switch a network link belongs to.
	uint32_t switch_of(uint32_t link) const;

	size_t nodes() const { return node_leaf.size(); }
	size_t switches() const { return parent.size(); }
	// Switches below s (s included), computed on demand.
	std::vector<std::vector<uint32_t>> nodes_below() const;
};

// One uplink crossed by a job: traffic on it = weight * per-node rate, in
// conns connections (each `flows` ECMP flows).
struct Crossing {
	uint32_t link;
	double weight;
	uint32_t conns = 1;
};

// Uplinks crossed by a node set for a collective (groups: pipeline stages
// or rails): those whose switch has some but not all of the nodes below
// it, weighted by liborrery's crossing rule (orrery_phase_crossing; the
// job's nodes in ascending index order).  Ring and rail: weight 1;
// all-to-all: m(n-m)/(n-1); pipeline: the stage pairs it separates.
// Unconstrained links (capacity 0) and links nothing crosses are left out.
std::vector<Crossing> crossings(const Fabric &f,
				const std::vector<uint32_t> &nodes, Coll c,
				uint32_t groups = 0);

// ECMP: each crossing of a switch with parallel links is split into the
// job's flows, each hashed (deterministically from seed, job id, switch
// and flow index) onto one of the links; the job's weight on a link is
// its share of the flows there.  flows x conns flows (one connection per
// node pair for all-to-all and pipeline), at most 4096.  A rail
// collective (groups rails) is not hashed: rail r's ring is on link
// orrery_rail_link(r, k) with weight/groups.  Crossings of one-pipe
// switches are kept as they are.
std::vector<Crossing> hash_flows(const Fabric &f, std::vector<Crossing> x,
				 Coll c, uint32_t groups, uint32_t flows,
				 uint64_t seed, uint32_t job_id);

}  // namespace sim
