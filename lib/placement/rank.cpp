// Ranking candidates and the place() driver.
//
// Order: locality first, exactly as topology/tree would choose (lowest
// common switch level, then fewest leaf switches), then the worst link
// score, the mean link score, and finally Slurm's node order (the node
// lists compared lexicographically), so the result is a total order and
// deterministic.
#include <algorithm>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

void rank_candidates(std::vector<Candidate> &cands)
{
	std::sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) {
		if (a.lca_level != b.lca_level)
			return a.lca_level < b.lca_level;
		if (a.leaves != b.leaves)
			return a.leaves < b.leaves;
		if (a.eval.score_min != b.eval.score_min)
			return a.eval.score_min > b.eval.score_min;
		if (a.eval.score_mean != b.eval.score_mean)
			return a.eval.score_mean > b.eval.score_mean;
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
