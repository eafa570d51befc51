// Consistent shifts across links: a maximum-weight spanning tree of the
// job-link graph, traversed breadth-first (doc/orrery-score.7).
#include "affinity/affinity.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <string>

#include "core/error.hpp"

namespace orrery {

double AffinityLink::effective_mbps() const
{
	const LinkCap c = cap();
	if (!c.ecmp() || !c.mbps)
		return (double)capacity_mbps;
	uint64_t f = 0;
	for (const Pattern &p : patterns)
		f += job_flows(p.flows, p.flow_mult, c);
	f = std::min<uint64_t>(f, kMaxFlows);
	EcmpExcess model(c);
	const double C = (double)capacity_mbps;
	return std::max(c.per_link(), C - model(C, (uint32_t)f));
}

namespace {

struct UnionFind {
	std::vector<size_t> parent;
	explicit UnionFind(size_t n) : parent(n) {
		std::iota(parent.begin(), parent.end(), 0);
	}
	size_t find(size_t x)
	{
		while (parent[x] != x) {
			parent[x] = parent[parent[x]];
			x = parent[x];
		}
		return x;
	}
	bool unite(size_t a, size_t b)
	{
		a = find(a);
		b = find(b);
		if (a == b)
			return false;
		parent[std::max(a, b)] = std::min(a, b);
		return true;
	}
};

int64_t mod(int64_t a, int64_t m)
{
	int64_t r = a % m;
	return r < 0 ? r + m : r;
}

}  // namespace

AffinityResult solve_affinity(const std::vector<int64_t> &periods_us,
			      const std::vector<AffinityLink> &links,
			      const CircleOpts &o)
{
	const size_t n = periods_us.size();
	const size_t L = links.size();
	AffinityResult res;
	res.shift_us.assign(n, 0);
	res.links.resize(L);

	// Each link optimised alone: t_j^l and the link's gain from rotation.
	std::vector<LinkScore> opt(L);
	std::vector<double> gain(L);
	for (size_t l = 0; l < L; l++) {
		const AffinityLink &al = links[l];
		if (al.jobs.size() != al.patterns.size() || al.jobs.empty())
			fail(ORRERY_EINTERNAL, "solve_affinity: link " +
				std::to_string(al.id) + " has mismatched members");
		std::vector<LinkJob> lj;
		for (size_t m = 0; m < al.jobs.size(); m++) {
			if (al.jobs[m] >= n)
				fail(ORRERY_EINTERNAL, "solve_affinity: link " +
					std::to_string(al.id) + " names job " +
					std::to_string(al.jobs[m]) + " of " +
					std::to_string(n));
			lj.push_back(LinkJob{al.patterns[m], std::nullopt});
		}
		opt[l] = best_rotations(lj, al.cap(), o);
		gain[l] = opt[l].score - opt[l].score_unshifted;
		res.links[l].id = al.id;
		res.links[l].score_optimal = opt[l].score;
		res.links[l].loop_closing = false;
	}

	// Kruskal over the bipartite graph (jobs 0..n-1, links n..n+L-1):
	// links by decreasing gain, ties by id; a member edge that would
	// join two already connected nodes closes a loop and is left out.
	std::vector<size_t> order(L);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		if (gain[a] != gain[b])
			return gain[a] > gain[b];
		return links[a].id < links[b].id;
	});
	UnionFind uf(n + L);
	// tree[l][m]: member m of link l is reached through l in the tree.
	std::vector<std::vector<uint8_t>> tree(L);
	std::vector<std::vector<std::pair<size_t, size_t>>> job_links(n);
	for (size_t l : order) {
		std::vector<size_t> members(links[l].jobs.size());
		std::iota(members.begin(), members.end(), 0);
		std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) {
			return links[l].jobs[a] < links[l].jobs[b];
		});
		tree[l].assign(members.size(), 0);
		for (size_t m : members) {
			size_t j = links[l].jobs[m];
			if (uf.unite(n + l, j)) {
				tree[l][m] = 1;
				job_links[j].emplace_back(l, m);
			} else {
				res.links[l].loop_closing = true;
				res.loops++;
			}
		}
	}

	// Breadth-first from the lowest-index job of each component, t = 0:
	// t_k = (t_j - t_j^l + t_k^l) mod P_k.
	std::vector<uint8_t> seen(n, 0), link_seen(L, 0);
	for (auto &jl : job_links)
		std::sort(jl.begin(), jl.end(), [&](auto a, auto b) {
			return links[a.first].id < links[b.first].id;
		});
	for (size_t root = 0; root < n; root++) {
		if (seen[root])
			continue;
		seen[root] = 1;
		res.shift_us[root] = 0;
		std::queue<size_t> q;
		q.push(root);
		while (!q.empty()) {
			size_t j = q.front();
			q.pop();
			for (auto [l, mj] : job_links[j]) {
				if (link_seen[l])
					continue;
				link_seen[l] = 1;
				const LinkScore &s = opt[l];
				for (size_t mk = 0; mk < links[l].jobs.size(); mk++) {
					size_t k = links[l].jobs[mk];
					if (!tree[l][mk] || seen[k])
						continue;
					int64_t pk = s.circle.gate_period_us[mk];
					res.shift_us[k] = mod(res.shift_us[j] -
						s.shift_us[mj] + s.shift_us[mk], pk);
					seen[k] = 1;
					q.push(k);
				}
			}
		}
	}

	// What each link gets with the shifts actually assigned.
	for (size_t l = 0; l < L; l++) {
		const AffinityLink &al = links[l];
		std::vector<LinkJob> lj;
		std::vector<int64_t> sh;
		for (size_t m = 0; m < al.jobs.size(); m++) {
			lj.push_back(LinkJob{al.patterns[m], std::nullopt});
			sh.push_back(res.shift_us[al.jobs[m]]);
		}
		res.links[l].score_achieved = score_shifts(lj, opt[l].circle, sh,
						al.cap(), nullptr);
	}
	return res;
}

}  // namespace orrery
