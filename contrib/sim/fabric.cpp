#include "fabric.hpp"

namespace sim {

std::vector<std::vector<uint32_t>> Fabric::nodes_below() const
{
	std::vector<std::vector<uint32_t>> out(switches());
	for (uint32_t n = 0; n < nodes(); n++)
		for (long s = node_leaf[n]; s >= 0; s = parent[s])
			out[s].push_back(n);
	return out;
}

std::vector<Crossing> crossings(const Fabric &f,
				const std::vector<uint32_t> &nodes, Coll c)
{
	std::vector<uint32_t> below(f.switches(), 0);
	std::vector<uint32_t> touched;
	for (uint32_t n : nodes)
		for (long s = f.node_leaf[n]; s >= 0; s = f.parent[s]) {
			if (below[s]++ == 0)
				touched.push_back((uint32_t)s);
		}
	std::vector<Crossing> out;
	const uint32_t total = (uint32_t)nodes.size();
	for (uint32_t s : touched) {
		uint32_t m = below[s];
		if (m == 0 || m >= total || f.parent[s] < 0 || f.cap_mbps[s] <= 0)
			continue;
		double w = 1.0;
		if (c == Coll::AllToAll && total > 1)
			w = (double)m * (double)(total - m) / (double)(total - 1);
		out.push_back(Crossing{s, w});
	}
	return out;
}

}  // namespace sim
