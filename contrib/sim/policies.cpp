#include "policies.hpp"

#include <algorithm>

namespace sim {

bool tree_best_fit(const Fabric &f,
		   const std::vector<std::vector<uint32_t>> &below,
		   const std::vector<uint8_t> &free, uint32_t n,
		   std::vector<uint32_t> &out)
{
	const size_t ns = f.switches();
	std::vector<uint32_t> nfree(ns, 0);
	for (size_t s = 0; s < ns; s++)
		for (uint32_t v : below[s])
			nfree[s] += free[v];
	long best = -1;
	for (size_t s = 0; s < ns; s++) {
		if (nfree[s] < n)
			continue;
		if (best < 0 || f.level[s] < f.level[best] ||
		    (f.level[s] == f.level[best] && nfree[s] < nfree[best]))
			best = (long)s;
	}
	if (best < 0)
		return false;
	// Leaves under best.
	std::vector<size_t> leaves;
	for (size_t s = 0; s < ns; s++) {
		if (f.level[s] != 0 || nfree[s] == 0)
			continue;
		for (long a = (long)s; a >= 0; a = f.parent[a])
			if (a == best) {
				leaves.push_back(s);
				break;
			}
	}
	// Leaf by leaf, as cons_tres does (job_test.c, _eval_nodes_topo via
	// _topo_choose_best_switch): given the nodes still wanted, a leaf that
	// holds them all beats one that does not; of two that do, the one
	// with fewer free nodes; of two that do not, the one with more; then
	// the first scanned.
	out.clear();
	std::vector<uint8_t> used(leaves.size(), 0);
	while (out.size() < n) {
		const uint32_t want = n - (uint32_t)out.size();
		long pick = -1;
		for (size_t i = 0; i < leaves.size(); i++) {
			if (used[i])
				continue;
			if (pick < 0) {
				pick = (long)i;
				continue;
			}
			const uint32_t a = nfree[leaves[i]], b = nfree[leaves[pick]];
			const bool af = a >= want, bf = b >= want;
			if ((af && !bf) || (af && bf && a < b) || (!af && !bf && a > b))
				pick = (long)i;
		}
		if (pick < 0)
			break;
		used[pick] = 1;
		for (uint32_t v : below[leaves[pick]]) {
			if (out.size() == n)
				break;
			if (free[v])
				out.push_back(v);
		}
	}
	std::sort(out.begin(), out.end());
	return out.size() == n;
}

namespace {

class DefaultPolicy : public Policy {
public:
	enum Kind { Default, Ideal, Mltcp, Bound, Alone };
	DefaultPolicy(const Fabric &f, Kind k)
		: f_(f), below_(f.nodes_below()), kind_(k)
	{
	}
	const char *name() const override
	{
		switch (kind_) {
		case Ideal: return "ideal";
		case Mltcp: return "mltcp";
		case Bound: return "default-bound";
		case Alone: return "default-alone";
		default: return "default";
		}
	}
	bool ideal() const override { return kind_ == Ideal; }
	bool mltcp() const override { return kind_ == Mltcp; }
	bool smooth() const override { return kind_ == Bound; }
	bool alone() const override { return kind_ == Alone; }
	bool place(const std::vector<uint8_t> &free, const JobSpec &job, double,
		   Placement &out) override
	{
		return tree_best_fit(f_, below_, free, job.nodes, out.nodes);
	}

private:
	const Fabric &f_;
	std::vector<std::vector<uint32_t>> below_;
	Kind kind_;
};

class RandomPolicy : public Policy {
public:
	RandomPolicy(uint64_t seed) : rng_(seed) {}
	const char *name() const override { return "random"; }
	bool place(const std::vector<uint8_t> &free, const JobSpec &job, double,
		   Placement &out) override
	{
		std::vector<uint32_t> cand;
		for (uint32_t v = 0; v < free.size(); v++)
			if (free[v])
				cand.push_back(v);
		if (cand.size() < job.nodes)
			return false;
		// Partial Fisher-Yates.
		for (uint32_t i = 0; i < job.nodes; i++) {
			size_t k = i + rng_.below(cand.size() - i);
			std::swap(cand[i], cand[k]);
		}
		out.nodes.assign(cand.begin(), cand.begin() + job.nodes);
		std::sort(out.nodes.begin(), out.nodes.end());
		return true;
	}

private:
	Rng rng_;
};

}  // namespace

std::unique_ptr<Policy> make_default_policy(const Fabric &f)
{
	return std::make_unique<DefaultPolicy>(f, DefaultPolicy::Default);
}
std::unique_ptr<Policy> make_mltcp_policy(const Fabric &f)
{
	return std::make_unique<DefaultPolicy>(f, DefaultPolicy::Mltcp);
}
std::unique_ptr<Policy> make_random_policy(const Fabric &, uint64_t seed)
{
	return std::make_unique<RandomPolicy>(seed);
}
std::unique_ptr<Policy> make_ideal_policy(const Fabric &f)
{
	return std::make_unique<DefaultPolicy>(f, DefaultPolicy::Ideal);
}
std::unique_ptr<Policy> make_default_bound_policy(const Fabric &f)
{
	return std::make_unique<DefaultPolicy>(f, DefaultPolicy::Bound);
}
std::unique_ptr<Policy> make_default_alone_policy(const Fabric &f)
{
	return std::make_unique<DefaultPolicy>(f, DefaultPolicy::Alone);
}

}  // namespace sim
