#include "fabric.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <orrery.h>

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
				const std::vector<uint32_t> &nodes, Coll c,
				uint32_t groups)
{
	// The job's node order: ascending index (liborrery's, Slurm's).
	std::vector<uint32_t> order(nodes);
	std::sort(order.begin(), order.end());
	// Per touched switch, the positions (in that order) below it.
	std::vector<long> slot(f.switches(), -1);
	std::vector<uint32_t> touched;
	std::vector<std::vector<uint32_t>> pos;
	for (uint32_t i = 0; i < (uint32_t)order.size(); i++)
		for (long s = f.node_leaf[order[i]]; s >= 0; s = f.parent[s]) {
			if (slot[s] < 0) {
				slot[s] = (long)pos.size();
				pos.emplace_back();
				touched.push_back((uint32_t)s);
			}
			pos[slot[s]].push_back(i);
		}
	std::vector<Crossing> out;
	const uint32_t total = (uint32_t)order.size();
	orrery_phase_t ph{};
	ph.collective = (int)c;
	ph.groups = groups;
	std::vector<uint8_t> mask(total, 0);
	for (uint32_t s : touched) {
		const std::vector<uint32_t> &p = pos[slot[s]];
		const uint32_t m = (uint32_t)p.size();
		if (m == 0 || m >= total || f.parent[s] < 0 || f.cap_mbps[s] <= 0)
			continue;
		std::fill(mask.begin(), mask.end(), 0);
		for (uint32_t i : p)
			mask[i] = 1;
		uint32_t conns = 0;
		double w = orrery_phase_crossing(&ph, mask.data(), total, &conns);
		if (w < 0)
			throw std::runtime_error("crossing rule: unknown collective " +
						 std::to_string((int)c));
		if (w > 0)
			out.push_back(Crossing{s, w, std::max(1u, conns)});
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
				 Coll c, uint32_t groups, uint32_t flows,
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
		if (c == Coll::Rail) {
			// Rail r's ring is pinned to its rail's link.
			const uint32_t R = std::max(1u, groups);
			std::map<uint32_t, uint32_t> on;
			for (uint32_t r = 0; r < R; r++)
				on[orrery_rail_link(r, k)]++;
			for (const auto &[link, n] : on)
				out.push_back(Crossing{f.sub_link(cr.link, link),
						       cr.weight * (double)n / (double)R, n});
			continue;
		}
		uint64_t F = (uint64_t)(flows ? flows : 1) * std::max(1u, cr.conns);
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
