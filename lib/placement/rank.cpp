// Ranking candidates and the place() driver.
//
// Order: locality first, exactly as topology/tree would choose (lowest
// common switch level, then fewest leaf switches), then the worst link
// score, the mean link score, then the mean score the links would have
// with no shift at all, and finally Slurm's node order (the node lists
// compared lexicographically), so the result is a total order and
// deterministic.  The unshifted score breaks ties between candidates that
// are equally good with their shifts in favour of the one that depends
// least on them: a gate that drifts or disables itself (orrery-runtime(7))
// then costs nothing there.
#include <algorithm>

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
		return a.nodes < b.nodes;
	});
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
	return out;
}

}  // namespace orrery
