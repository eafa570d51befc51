// Which uplinks a job's traffic crosses, and with what demand: the
// crossing rules of orrery.h's orrery_collective, in one place (the
// scorer, the query tool and orrery-sim all use these).
//
// A collective among the job's n nodes crosses the uplink of switch s
// only when s has some, but not all, of the job's nodes below it
// (0 < m < n).  Ring collectives are ordered by switch (NCCL and MPI rings
// follow rank order, which Slurm assigns in node order), so such an uplink
// is crossed once in each direction and carries the phase demand.  An
// all-to-all sends demand/(n-1) from every node to every other node, so
// the m nodes below s send m*(n-m)*demand/(n-1) across its uplink.  A
// pipeline's stage boundaries pair node j of one stage with node j of the
// next; the uplink carries the demand of each pair it separates.  A rail
// collective's R rings cross where a ring does, demand/R each.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "topology/topology.hpp"

namespace orrery {

bool needs_positions(const Pattern &p)
{
	return std::any_of(p.phases.begin(), p.phases.end(), [](const Phase &ph) {
		return ph.coll == Collective::Pipeline;
	});
}

std::vector<Crossing> crossings(const Topology &t,
				const std::vector<uint32_t> &nodes,
				bool positions)
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
	std::vector<long> slot(t.switches.size(), -1);
	uint32_t total = (uint32_t)nodes.size();
	for (size_t s = 0; s < below.size(); s++)
		if (below[s] > 0 && below[s] < total && t.switches[s].parent >= 0) {
			slot[s] = (long)out.size();
			out.push_back(Crossing{s, below[s], total, {}});
			if (positions)
				out.back().pos.reserve(below[s]);
		}
	if (out.empty() || !positions)
		return out;
	// Positions in node order: the rank of each node in ascending index.
	std::vector<uint32_t> order(nodes);
	std::sort(order.begin(), order.end());
	for (uint32_t i = 0; i < total; i++)
		for (long s = (long)t.node_leaf[order[i]]; s >= 0;
		     s = t.switches[s].parent)
			if (slot[s] >= 0)
				out[slot[s]].pos.push_back(i);
	return out;
}

namespace {

// Pairs (node j of stage b, node j of stage b+1) with exactly one node
// below the uplink.
uint64_t pipeline_pairs(const uint8_t *below, uint32_t n, uint32_t stages)
{
	const uint64_t s = std::min(stages, n);
	uint64_t pairs = 0;
	for (uint64_t b = 0; b + 1 < s; b++) {
		const uint64_t lo = b * n / s, mid = (b + 1) * n / s,
			       hi = (b + 2) * n / s;
		const uint64_t k = std::min(mid - lo, hi - mid);
		for (uint64_t j = 0; j < k; j++)
			pairs += (below[lo + j] != 0) != (below[mid + j] != 0);
	}
	return pairs;
}

// The rule given m; below (n entries) is read for a pipeline only.
Carry phase_carry(Collective c, uint32_t groups, uint64_t m, uint32_t n,
		  const uint8_t *below)
{
	Carry out;
	if (m == 0 || m >= n || (c == Collective::Pipeline && !below))
		return out;
	switch (c) {
	case Collective::AllToAll:
		out.connections = m * (n - m);
		out.factor = (double)m * (double)(n - m) / (double)(n - 1);
		break;
	case Collective::Pipeline:
		out.connections = pipeline_pairs(below, n, groups);
		out.factor = (double)out.connections;
		break;
	case Collective::Rail:
		out.connections = groups ? groups : 1;
		out.factor = 1.0;
		break;
	default:
		out.connections = 1;
		out.factor = 1.0;
	}
	return out;
}

}  // namespace

Carry phase_crossing(Collective c, uint32_t groups, const uint8_t *below,
		     uint32_t n)
{
	uint64_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		m += below[i] != 0;
	return phase_carry(c, groups, m, n, below);
}

Pattern pattern_on_link(const Pattern &p, const Crossing &c)
{
	Pattern out = p;
	out.phases.clear();
	// Only a pipeline needs to know which nodes are below; the others
	// need m alone.
	std::vector<uint8_t> below;
	if (needs_positions(p)) {
		if (c.pos.size() != c.m)
			fail(ORRERY_EINTERNAL, "pattern_on_link: a pipeline phase "
			     "on a crossing without node positions");
		below.assign(c.n, 0);
		for (uint32_t i : c.pos)
			if (i < c.n)
				below[i] = 1;
	}
	uint64_t conns = 1;
	for (const Phase &ph : p.phases) {
		Carry k = phase_carry(ph.coll, ph.groups, c.m, c.n,
				      below.empty() ? nullptr : below.data());
		Phase q = ph;
		// A phase with nothing across stays, with demand 0: the link
		// patterns keep their phases in step with the job's (lib/tdiv).
		q.demand_mbps = (uint64_t)std::llround((double)ph.demand_mbps * k.factor);
		// Each connection is its own ECMP flow (lib/circle/ecmp.hpp).
		conns = std::max(conns, k.connections);
		out.phases.push_back(q);
	}
	out.flow_mult = (uint32_t)std::min<uint64_t>(conns, kMaxFlows);
	return out;
}

}  // namespace orrery
