// Ranking candidates and the place() driver.
//
// Order: locality first, exactly as topology/tree would choose (lowest
// common switch level, then fewest leaf switches), then the worst link
// score, the mean link score, then the mean score the links would have
// with no shift at all, then topology/tree's best fit (Candidate::fit:
// the fullest LCA switch, the fullest leaf that completes the job; see
// placement/candidates.cpp), and finally Slurm's node order (the node
// lists compared lexicographically), so the result is a total order and
// deterministic.  The unshifted score breaks ties between candidates that
// are equally good with their shifts in favour of the one that depends
// least on them: a gate that drifts or disables itself (orrery-runtime(7))
// then costs nothing there.  Best fit breaks the remaining ties the way
// cons_tres would have placed the job, so where scores cannot tell the
// candidates apart (no uplink crossed, or none contended) orrery takes
// cons_tres's own choice and leaves free nodes as unfragmented as it does.
//
// A profiled job whose first candidate in that order crosses a contended
// link is ranked by predicted cost instead (contention_rank below): the
// first few of today's order within the allowed spread get
// placement_cost() (the total slowdown the placement adds, from the same
// link-group model the re-alignment decides the gates with), and the
// cheapest goes first.  The link score only chooses which candidates are
// predicted: it rates each link's best rotation on its own, and the link
// groups seldom rotate (their jobs' duties rarely let two fit); the cost
// predicts the mode the group will get (rotation, division or sharing)
// and adds up every job's slowdown in it.  With the
// cluster's rank_spread > 0 (orrery.conf rank_spread=) the first few less
// local candidates (up to rank_spread more leaves or switch levels) are
// predicted too, and a candidate spread s steps wider goes first only if
// it saves more than s x kSpreadStepCost of predicted slowdown.  A first
// candidate on no contended link keeps today's order untouched (it cannot
// be beaten: its cost is 0).
//
// The prediction sees the jobs running now, not the ones to come: left to
// it, the ranking takes whichever leaves collide least today and breaks
// up whole leaves that cons_tres's best fit would have kept, and the next
// large job spans one more leaf (one more uplink crossed, on a testbed of
// racks of 4 an 8-node job on 3 racks instead of 2).  So each predicted
// candidate of today's locality also pays kBrokenLeafCost for every leaf
// it leaves partly free beyond what today's first candidate does
// (broken_leaves); a wider one pays the spread step instead, which
// stands for the same.
#include <algorithm>
#include <unordered_map>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

static double unshifted_mean(const Evaluation &e)
{
	if (e.links.empty())
		return 1.0;
	double sum = 0.0;
	for (const LinkEval &l : e.links)
		sum += l.outcome.score_unshifted;
	return sum / (double)e.links.size();
}

void rank_candidates(std::vector<Candidate> &cands)
{
	std::stable_sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) {
		if (a.lca_level != b.lca_level)
			return a.lca_level < b.lca_level;
		if (a.leaves != b.leaves)
			return a.leaves < b.leaves;
		if (a.eval.score_min != b.eval.score_min)
			return a.eval.score_min > b.eval.score_min;
		if (a.eval.score_mean != b.eval.score_mean)
			return a.eval.score_mean > b.eval.score_mean;
		double ua = unshifted_mean(a.eval), ub = unshifted_mean(b.eval);
		if (ua != ub)
			return ua > ub;
		if (a.fit != b.fit)
			return a.fit < b.fit;
		return a.nodes < b.nodes;
	});
}

uint32_t spread_steps(const Candidate &c, const Candidate &base)
{
	long dl = (long)c.leaves - (long)base.leaves;
	long dv = (long)c.lca_level - (long)base.lca_level;
	return (uint32_t)std::max({0L, dl, dv});
}

// Leaves the candidate leaves partly free that were wholly free, less the
// partly free ones it fills: its change to the count of broken-up leaves
// (only the leaves it takes nodes from change).
static int broken_leaves(const Topology &t, const std::vector<uint8_t> &free_nodes,
			 const Candidate &c)
{
	std::unordered_map<size_t, uint32_t> taken;  // leaf -> nodes taken
	for (uint32_t v : c.nodes)
		taken[t.node_leaf[v]]++;
	int d = 0;
	for (const auto &[leaf, k] : taken) {
		const std::vector<size_t> &ln = t.switches[leaf].nodes;
		uint32_t nfree = 0;
		for (size_t v : ln)
			nfree += free_nodes[v] ? 1 : 0;
		const bool before = nfree > 0 && nfree < ln.size();
		const bool after = nfree > k;  // some left free, and k taken
		d += (int)after - (int)before;
	}
	return d;
}

static bool crosses_contended_links(const Candidate &c)
{
	for (const LinkEval &l : c.eval.links)
		if (l.contended)
			return true;
	return false;
}

// Re-rank out.ranked (in today's order, first candidate contended) by
// predicted cost; see the top of this file.
static void contention_rank(const Cluster &c, const std::vector<uint8_t> &free_nodes,
			    uint32_t n_nodes, const Pattern &p, LinkDemandCache &cache,
			    Placement &out)
{
	std::vector<Candidate> &r = out.ranked;
	// Today's first is predicted before anything else is built: too large
	// a group to predict leaves today's order (and costs one group
	// build); a cost of 0 cannot be beaten.
	r[0].cost = placement_cost(c, r[0], p, cache, &r[0].self_cost);
	if (r[0].cost <= 0)
		return;
	const Candidate &base = r[0];
	const uint32_t spread = c.rank_spread();
	std::vector<Candidate> wide;
	if (spread) {
		wide = enumerate_spread_candidates(
			c.topology(), free_nodes, n_nodes, base.lca_level, spread,
			std::min<size_t>(kMaxSpreadCandidates, c.max_candidates()));
		for (Candidate &w : wide)
			w.eval = evaluate(c, w.nodes, p, &cache);
		rank_candidates(wide);
	}

	// Predicted: today's first kPredictLocal within the allowed spread,
	// then the spread ones' first kPredictSpread.  A candidate on no
	// contended link costs 0 with no prediction run, so those are
	// preferred among the spread ones.
	const Candidate b = base;  // r is moved from below
	std::vector<Candidate> pred, rest_local, rest_wide;
	for (Candidate &x : r) {
		if (pred.size() < kPredictLocal && spread_steps(x, b) <= spread)
			pred.push_back(std::move(x));
		else
			rest_local.push_back(std::move(x));
	}
	std::stable_partition(wide.begin(), wide.end(),
			      [](const Candidate &w) { return !crosses_contended_links(w); });
	const size_t n_local = pred.size();
	for (Candidate &w : wide) {
		if (pred.size() < n_local + kPredictSpread && spread_steps(w, b) <= spread)
			pred.push_back(std::move(w));
		else
			rest_wide.push_back(std::move(w));
	}
	for (size_t i = 1; i < pred.size(); i++)
		pred[i].cost = placement_cost(c, pred[i], p, cache, &pred[i].self_cost);
	// Unpredicted candidates (too large a group) go behind the predicted
	// ones.  The spread and the leaves broken up are priced beside the
	// prediction, not in it (Candidate::cost stays the prediction).
	const int broken0 = broken_leaves(c.topology(), free_nodes, b);
	std::vector<double> adj(pred.size());
	for (size_t i = 0; i < pred.size(); i++) {
		const Candidate &x = pred[i];
		const uint32_t steps = spread_steps(x, b);
		// A wider candidate's price for what it does to later jobs is
		// the spread step's; broken leaves are priced between
		// candidates of today's locality.
		adj[i] = x.cost < 0 ? 1e300
			 : steps   ? x.cost + kSpreadStepCost * steps
				   : x.cost + kBrokenLeafCost *
					(broken_leaves(c.topology(), free_nodes, x) - broken0);
	}
	std::vector<size_t> order(pred.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::stable_sort(order.begin(), order.end(),
			 [&](size_t x, size_t y) { return adj[x] < adj[y]; });
	r.clear();
	for (size_t i : order)
		r.push_back(std::move(pred[i]));
	for (auto *v : {&rest_local, &rest_wide})
		for (Candidate &x : *v)
			r.push_back(std::move(x));
}

Placement place(const Cluster &c, const std::vector<uint8_t> &free_nodes,
		uint32_t n_nodes, const Pattern &p)
{
	// A pattern without Up phases (a one-node job) is valid: it loads no
	// uplink, so every candidate scores 1 and locality alone decides.
	if (p.period_us <= 0)
		fail(ORRERY_EINVAL, "newcomer profile has no explicit pattern");
	Placement out;
	out.ranked = enumerate_candidates(c.topology(), free_nodes, n_nodes,
					  c.max_candidates(),
					  std::max<size_t>(kEnumerateCountLimit, c.max_candidates()),
					  &out.enumerated);
	// Candidates under one LCA switch share most of their uplinks: build
	// each link's pinned demand once for the whole call.
	LinkDemandCache cache(c);
	for (Candidate &cand : out.ranked)
		cand.eval = evaluate(c, cand.nodes, p, &cache);
	rank_candidates(out.ranked);
	if (!out.ranked.empty() && !p.phases.empty() && crosses_contended_links(out.ranked[0]))
		contention_rank(c, free_nodes, n_nodes, p, cache, out);
	return out;
}

}  // namespace orrery
