// Candidate node sets, the way Slurm's topology/tree best fit picks them.
//
// 1. Count free nodes under every switch.  The LCA level is the lowest
//    level with a switch whose subtree has >= n free nodes; only switches of
//    that level are used (locality first: a job never spreads wider than
//    topology/tree would spread it).  They are visited best fit first
//    (fewest free nodes, then index).
// 2. Level 0 (one leaf fits): every leaf that fits is a candidate, the
//    first n free nodes in index order.
// 3. Otherwise, under each LCA switch: its leaves with free nodes, sorted
//    by free count descending then index.  k_min = the fewest leaves whose
//    free counts reach n (the top k_min of that order).  Every combination
//    of k_min leaves that reaches n is a candidate, enumerated depth-first
//    in that order; a branch is cut as soon as even the largest remaining
//    leaves cannot reach n.  Within a combination, leaves are filled most
//    free first, and the last one is the leaf with the fewest free nodes
//    that still completes the job (best fit); nodes within a leaf are taken
//    in index order.
//
// 4. Every candidate carries its best-fit key (Candidate::fit), the
//    ranking's tie-break among candidates of equal locality and score:
//    its LCA switch (fewest free nodes, then index), then its leaves in
//    fill order, each compared the way Slurm 22.05's cons_tres compares
//    leaf switches under one parent (job_test.c, _topo_compare_switches
//    via _topo_choose_best_switch in _eval_nodes_topo): given the nodes
//    still wanted, a leaf that holds them all beats one that does not;
//    of two that do, the one with fewer free nodes; of two that do not,
//    the one with more; then the lower index (the first one scanned).
//    So the lowest key is cons_tres's own choice: the fullest leaf that
//    holds the job, or else the largest leaves of the fullest LCA switch
//    that holds it and last the fullest leaf that completes it.  Not
//    modelled: cons_tres's top switch is the highest one, so in a later
//    step it may take a leaf of another LCA switch that fits the
//    remainder more tightly (orrery never leaves the LCA switch, that is
//    its locality), and its scan keeps the first of two equally full
//    switches in index order even when that makes its choice depend on
//    the scan (the comparison is not transitive across parents).
//
// Cost: O(N + S*D) to count (N nodes, S switches, D tree depth), plus per
// LCA switch O(L log L) to sort its L leaves, plus O(k) per combination
// counted (the cut means every visited branch either yields a combination
// or is the single failing sibling that stops its loop).  Counting stops at
// count_limit combinations; node sets (O(n) each) are built only for the
// first max_out.  Deterministic: no hashing, no randomness.
#include <algorithm>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

namespace {

struct LeafFree {
	size_t sw;
	uint32_t free;
};

// One element of Candidate::fit: a switch with `free` free nodes, which
// holds (fits) or does not hold the nodes still wanted.  Fitting first,
// fewest free first; not fitting, most free first; then the index.
// Bit 63: does not fit; bits 32-62: free (or its complement); bits 0-31:
// switch index.
uint64_t fit_key(bool fits, uint32_t free, size_t sw)
{
	if (sw > UINT32_MAX || free > (UINT32_MAX >> 1))
		fail(ORRERY_EINTERNAL, "topology too large for the best-fit key");
	const uint64_t f = fits ? free : (UINT32_MAX >> 1) - free;
	return (fits ? 0 : 1ull << 63) | f << 32 | (uint64_t)sw;
}

struct Enumerator {
	const Topology &t;
	const std::vector<uint8_t> &free_nodes;
	uint32_t n;
	size_t max_out, count_limit;
	std::vector<Candidate> *out;
	size_t count = 0;

	Enumerator(const Topology &t_, const std::vector<uint8_t> &f, uint32_t n_,
		   size_t mo, size_t cl, std::vector<Candidate> *o)
		: t(t_), free_nodes(f), n(n_), max_out(mo), count_limit(cl), out(o) {}

	// Per LCA switch
	int level = 0;
	size_t lca_sw = 0;
	uint32_t lca_free = 0;
	std::vector<LeafFree> leaves;
	std::vector<uint64_t> prefix;  // prefix[i] = sum of leaves[0..i)
	size_t k = 0;
	std::vector<size_t> pick;      // indices into leaves
	// Spread candidates: only combinations that need every leaf (the
	// smallest picked leaf cannot be left out), so the fill uses all k.
	bool minimal = false;

	bool full() const { return count >= count_limit; }

	void take_from_leaf(size_t sw, uint32_t want, std::vector<uint32_t> &nodes)
	{
		for (size_t node : t.switches[sw].nodes) {
			if (!want)
				break;
			if (free_nodes[node]) {
				nodes.push_back((uint32_t)node);
				want--;
			}
		}
	}

	void emit()
	{
		count++;
		if (out->size() >= max_out)
			return;
		Candidate c;
		c.lca_level = level;
		c.leaves = (uint32_t)pick.size();
		c.nodes.reserve(n);
		c.fit.reserve(pick.size() + 1);
		c.fit.push_back(fit_key(true, lca_free, lca_sw));
		// pick is in leaves order: free descending.  Fill the largest
		// first; once some remaining leaf can complete the job, the
		// last leaf is the smallest such one (cons_tres's order, so
		// the fill order is the order of the key's steps).
		std::vector<uint8_t> used(pick.size(), 0);
		uint32_t need = n;
		for (size_t step = 0; step < pick.size() && need; step++) {
			size_t best = SIZE_MAX;
			for (size_t i = 0; i < pick.size(); i++)
				if (!used[i] && leaves[pick[i]].free >= need &&
				    (best == SIZE_MAX ||
				     leaves[pick[i]].free < leaves[pick[best]].free))
					best = i;  // fewest free; ties: lower index
			if (best != SIZE_MAX) {
				const LeafFree &l = leaves[pick[best]];
				c.fit.push_back(fit_key(true, l.free, l.sw));
				take_from_leaf(l.sw, need, c.nodes);
				need = 0;
				break;
			}
			for (size_t i = 0; i < pick.size(); i++)
				if (!used[i]) {
					used[i] = 1;
					const LeafFree &l = leaves[pick[i]];
					c.fit.push_back(fit_key(false, l.free, l.sw));
					take_from_leaf(l.sw, l.free, c.nodes);
					need -= l.free;
					break;
				}
		}
		if (need)
			fail(ORRERY_EINTERNAL, "candidate enumeration picked leaves that cannot hold the job");
		std::sort(c.nodes.begin(), c.nodes.end());
		out->push_back(std::move(c));
	}

	// Choose the remaining k - depth leaves from leaves[from..].
	void dfs(size_t from, size_t depth, uint64_t sum)
	{
		if (depth == k) {
			if (sum >= n && (!minimal || sum - leaves[pick.back()].free < n))
				emit();
			return;
		}
		size_t rest = k - depth;
		for (size_t i = from; i + rest <= leaves.size() && !full(); i++) {
			// The largest sum still reachable takes the next rest
			// leaves from i (sorted descending); later i only do worse.
			if (sum + prefix[i + rest] - prefix[i] < n)
				break;
			pick.push_back(i);
			dfs(i + 1, depth + 1, sum + leaves[i].free);
			pick.pop_back();
		}
	}
};

void collect_leaves(const Topology &t, size_t sw, const std::vector<uint32_t> &leaf_free,
		    std::vector<LeafFree> &out)
{
	const Switch &s = t.switches[sw];
	if (s.children.empty()) {
		if (leaf_free[sw])
			out.push_back(LeafFree{sw, leaf_free[sw]});
		return;
	}
	for (size_t c : s.children)
		collect_leaves(t, c, leaf_free, out);
}

void count_free(const Topology &t, const std::vector<uint8_t> &free_nodes,
		std::vector<uint32_t> &leaf_free, std::vector<uint32_t> &sub_free)
{
	size_t S = t.switches.size();
	leaf_free.assign(S, 0);
	sub_free.assign(S, 0);
	for (size_t i = 0; i < free_nodes.size(); i++)
		if (free_nodes[i])
			leaf_free[t.node_leaf[i]]++;
	for (size_t s = 0; s < S; s++)
		if (leaf_free[s])
			for (long p = (long)s; p >= 0; p = t.switches[p].parent)
				sub_free[p] += leaf_free[s];
}

// Switches of `level` whose subtrees hold n free nodes, best fit first
// (fewest free, then index).
std::vector<size_t> lca_switches(const Topology &t, const std::vector<uint32_t> &sub_free,
				 int level, uint32_t n)
{
	std::vector<size_t> lca;
	for (size_t s = 0; s < t.switches.size(); s++)
		if (t.switches[s].level == level && sub_free[s] >= n)
			lca.push_back(s);
	std::sort(lca.begin(), lca.end(), [&](size_t a, size_t b) {
		return sub_free[a] != sub_free[b] ? sub_free[a] < sub_free[b] : a < b;
	});
	return lca;
}

// The leaves with free nodes under sw, most free first (then index), and
// their prefix sums.
void sorted_leaves(const Topology &t, size_t sw, const std::vector<uint32_t> &leaf_free,
		   Enumerator &en)
{
	en.leaves.clear();
	collect_leaves(t, sw, leaf_free, en.leaves);
	std::sort(en.leaves.begin(), en.leaves.end(),
		  [](const LeafFree &a, const LeafFree &b) {
			  return a.free != b.free ? a.free > b.free : a.sw < b.sw;
		  });
	en.prefix.assign(en.leaves.size() + 1, 0);
	for (size_t i = 0; i < en.leaves.size(); i++)
		en.prefix[i + 1] = en.prefix[i] + en.leaves[i].free;
}

}  // namespace

std::vector<Candidate> enumerate_spread_candidates(const Topology &t,
						   const std::vector<uint8_t> &free_nodes,
						   uint32_t n_nodes, int base_level,
						   uint32_t extra, size_t max_out)
{
	std::vector<Candidate> out;
	if (!t.finalized() || free_nodes.size() != t.nodes.size() || !n_nodes ||
	    !extra || !max_out)
		return out;
	std::vector<uint32_t> leaf_free, sub_free;
	count_free(t, free_nodes, leaf_free, sub_free);
	const int level = std::max(base_level, 1);
	Enumerator en(t, free_nodes, n_nodes, max_out, max_out, &out);
	en.level = level;
	en.minimal = true;
	for (size_t s : lca_switches(t, sub_free, level, n_nodes)) {
		en.lca_sw = s;
		en.lca_free = sub_free[s];
		sorted_leaves(t, s, leaf_free, en);
		size_t kmin = 1;
		while (en.prefix[kmin] < n_nodes)
			kmin++;  // terminates: sub_free[s] >= n
		for (uint32_t e = 1; e <= extra && !en.full(); e++) {
			en.k = kmin + e;
			if (en.k > en.leaves.size() || en.k > n_nodes)
				break;
			en.pick.clear();
			en.dfs(0, 0, 0);
		}
		if (en.full())
			break;
	}
	return out;
}

std::vector<Candidate> enumerate_candidates(const Topology &t,
					    const std::vector<uint8_t> &free_nodes,
					    uint32_t n_nodes, size_t max_out,
					    size_t count_limit, size_t *enumerated)
{
	std::vector<Candidate> out;
	*enumerated = 0;
	if (!t.finalized())
		fail(ORRERY_ESTATE, "topology is not finalized");
	if (free_nodes.size() != t.nodes.size())
		fail(ORRERY_EINVAL, "free node map has " + std::to_string(free_nodes.size()) +
		     " entries for " + std::to_string(t.nodes.size()) + " nodes");
	if (n_nodes == 0)
		fail(ORRERY_EINVAL, "a job needs at least one node");
	if (!max_out || !count_limit)
		return out;

	size_t S = t.switches.size();
	std::vector<uint32_t> leaf_free, sub_free;
	count_free(t, free_nodes, leaf_free, sub_free);

	int level = -1;
	for (size_t s = 0; s < S; s++)
		if (sub_free[s] >= n_nodes && (level < 0 || t.switches[s].level < level))
			level = t.switches[s].level;
	if (level < 0)
		return out;  // not enough free nodes anywhere: not an error

	std::vector<size_t> lca = lca_switches(t, sub_free, level, n_nodes);

	Enumerator en(t, free_nodes, n_nodes, max_out, count_limit, &out);
	en.level = level;
	for (size_t s : lca) {
		if (en.full())
			break;
		en.lca_sw = s;
		en.lca_free = sub_free[s];
		en.leaves.clear();
		collect_leaves(t, s, leaf_free, en.leaves);
		if (level == 0 || en.leaves.size() == 1) {
			// One leaf holds the whole job.
			en.leaves.assign(1, LeafFree{en.leaves[0].sw, en.leaves[0].free});
			en.k = 1;
			en.pick.assign(1, 0);
			en.emit();
			en.pick.clear();
			continue;
		}
		sorted_leaves(t, s, leaf_free, en);
		en.k = 1;
		while (en.prefix[en.k] < n_nodes)
			en.k++;  // terminates: sub_free[s] >= n
		en.pick.clear();
		en.dfs(0, 0, 0);
	}
	*enumerated = en.count;
	return out;
}

}  // namespace orrery
