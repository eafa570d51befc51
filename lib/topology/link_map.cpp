// Which uplinks a job's traffic crosses, and with what demand.
//
// A collective among the job's n nodes crosses the uplink of switch s
// exactly when s has some, but not all, of the job's nodes below it
// (0 < m < n).  Ring collectives are ordered by switch (NCCL and MPI rings
// follow rank order, which Slurm assigns in node order), so such an uplink
// is crossed once in each direction and carries the phase demand.  An
// all-to-all sends demand/(n-1) from every node to every other node, so
// the m nodes below s send m*(n-m)*demand/(n-1) across its uplink.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "topology/topology.hpp"

namespace orrery {

std::vector<Crossing> crossings(const Topology &t,
				const std::vector<uint32_t> &nodes)
{
	if (!t.finalized())
		fail(ORRERY_ESTATE, "topology is not finalized");
	std::vector<uint32_t> below(t.switches.size(), 0);
	for (uint32_t n : nodes) {
		if (n >= t.nodes.size())
			fail(ORRERY_EINVAL, "node index " + std::to_string(n) +
			     " out of range");
		for (long s = (long)t.node_leaf[n]; s >= 0; s = t.switches[s].parent)
			below[s]++;
	}
	std::vector<Crossing> out;
	uint32_t total = (uint32_t)nodes.size();
	for (size_t s = 0; s < below.size(); s++)
		if (below[s] > 0 && below[s] < total && t.switches[s].parent >= 0)
			out.push_back(Crossing{s, below[s], total});
	return out;
}

Pattern pattern_on_link(const Pattern &p, const Crossing &c)
{
	Pattern out = p;
	for (Phase &ph : out.phases) {
		if (ph.coll == Collective::AllToAll && c.n > 1) {
			// m(n-m) node pairs talk across the uplink, each over
			// its own connection (ECMP flows, lib/circle/ecmp.hpp).
			uint64_t pairs = (uint64_t)c.m * (uint64_t)(c.n - c.m);
			out.flow_mult = (uint32_t)std::min<uint64_t>(pairs, kMaxFlows);
			double f = (double)c.m * (double)(c.n - c.m) / (double)(c.n - 1);
			ph.demand_mbps = (uint64_t)std::llround((double)ph.demand_mbps * f);
		}
	}
	return out;
}

}  // namespace orrery
