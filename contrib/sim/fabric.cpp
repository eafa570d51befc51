#include "fabric.hpp"

#include <cmath>
#include <map>

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

void Fabric::set_links(std::vector<uint32_t> k)
{
	links = std::move(k);
	links.resize(switches(), 1);
	extra.assign(switches(), 0);
	uint32_t next = (uint32_t)switches();
	for (size_t s = 0; s < switches(); s++) {
		if (links[s] < 1)
			links[s] = 1;
		extra[s] = next;
		next += links[s] - 1;
	}
}

std::vector<double> Fabric::network_caps() const
{
	std::vector<double> caps = cap_mbps;
	if (links.empty())
		return caps;
	for (size_t s = 0; s < switches(); s++) {
		double c = cap_mbps[s] / links[s];
		caps[s] = c;
		for (uint32_t i = 1; i < links[s]; i++)
			caps.push_back(c);
	}
	return caps;
}

uint32_t Fabric::switch_of(uint32_t link) const
{
	if (link < switches())
		return link;
	for (size_t s = 0; s < switches(); s++)
		if (links[s] > 1 && link >= extra[s] && link < extra[s] + links[s] - 1)
			return (uint32_t)s;
	return link;
}

namespace {

// splitmix64: a fixed, portable hash (the same run gives the same
// collisions on every machine).
uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

}  // namespace

std::vector<Crossing> hash_flows(const Fabric &f, std::vector<Crossing> x,
				 uint32_t nodes, Coll c, uint32_t flows,
				 uint64_t seed, uint32_t job_id)
{
	if (f.links.empty())
		return x;
	std::vector<Crossing> out;
	for (const Crossing &cr : x) {
		const uint32_t k = f.links_of(cr.link);
		if (k <= 1) {
			out.push_back(cr);
			continue;
		}
		uint64_t F = flows ? flows : 1;
		if (c == Coll::AllToAll && nodes > 1)
			F *= (uint64_t)std::llround(cr.weight * (double)(nodes - 1));
		F = std::max<uint64_t>(1, std::min<uint64_t>(F, 4096));
		std::map<uint32_t, uint32_t> on;
		for (uint64_t i = 0; i < F; i++) {
			uint64_t h = mix(mix(mix(seed) ^ job_id) ^ ((uint64_t)cr.link << 20 | i));
			on[(uint32_t)(h % k)]++;
		}
		for (const auto &[link, n] : on)
			out.push_back(Crossing{f.sub_link(cr.link, link),
					       cr.weight * (double)n / (double)F});
	}
	return out;
}

}  // namespace sim
