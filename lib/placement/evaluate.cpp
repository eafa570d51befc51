// What a node set would do to the uplinks it crosses: the running jobs on
// each crossed uplink stay pinned at their shifts, the newcomer gets the one
// shift that maximises its worst link score, then the mean.
//
// Only links where the shift matters go to the shift search: a link whose
// summed peak demands fit its capacity (or of unknown capacity) scores 1 at
// every shift, and a link the newcomer crosses alone scores the same at
// every shift (a lone job's rotation changes nothing).  Leaving out the
// first kind changes neither key of the search.  Leaving out the second
// can only refine the tie-break: when such a link is the worst at every
// shift, the shift is chosen for the shared links' worst score and then
// their mean, instead of the mean alone.  The result still maximises the
// minimum over all links.  This keeps a decision inside slurmctld cheap:
// the search costs rotations x bins per contended link (rotations x runs
// of equal demand where that is cheaper: circle/score.cpp, prefix_runs).
#include <algorithm>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

LinkDemandCache::LinkDemandCache(const Cluster &c)
	: c_(c), built_(c.topology().switches.size(), 0),
	  pinned_(c.topology().switches.size()), peak_(c.topology().switches.size(), 0.0),
	  load_(c.topology().switches.size())
{
}

double peak_demand(const Pattern &p)
{
	// Phases never wrap (offset + duration <= period): sweep the starts
	// and ends; ends sort before starts at the same instant.
	std::vector<std::pair<int64_t, double>> ev;
	ev.reserve(p.phases.size() * 2);
	for (const Phase &ph : p.phases) {
		ev.emplace_back(ph.offset_us, (double)ph.demand_mbps);
		ev.emplace_back(ph.offset_us + ph.duration_us, -(double)ph.demand_mbps);
	}
	std::sort(ev.begin(), ev.end());
	double cur = 0.0, peak = 0.0;
	for (const auto &e : ev) {
		cur += e.second;
		peak = std::max(peak, cur);
	}
	return peak;
}

double LinkDemandCache::pinned_peak(size_t sw)
{
	pinned(sw);
	return peak_[sw];
}

const std::vector<LinkJob> &LinkDemandCache::pinned(size_t sw)
{
	if (built_[sw])
		return pinned_[sw];
	std::vector<LinkJob> &out = pinned_[sw];
	const std::vector<uint32_t> &ids = c_.jobs_on_link(sw);
	out.reserve(ids.size());
	for (uint32_t id : ids) {
		const RunningJob *j = c_.job(id);
		const Crossing *x = j ? j->crossing(sw) : nullptr;
		if (!x)
			fail(ORRERY_EINTERNAL, "link index lists job " + std::to_string(id) +
			     " on switch " + std::to_string(sw) + " but the job does not cross it");
		LinkJob lj;
		lj.pattern = pattern_on_link(j->pattern, *x);
		lj.fixed_shift_us = j->shift_us;
		peak_[sw] += peak_demand(lj.pattern);
		out.push_back(std::move(lj));
	}
	built_[sw] = 1;
	return out;
}

const PinnedLoad &LinkDemandCache::pinned_load(size_t sw, int64_t newcomer_period_us)
{
	std::unique_ptr<PinnedLoad> &l = load_[sw];
	if (!l || l->newcomer_period_us != newcomer_period_us) {
		const LinkCap cap = c_.topology().link_cap(sw);
		l.reset(new PinnedLoad(orrery::pinned_load(pinned(sw), cap,
					newcomer_period_us, c_.circle())));
	}
	return *l;
}

// Score of a pattern alone on a link, on its own circle.
static LinkOutcome lone_link_score(const Pattern &p, const LinkCap &cap, const CircleOpts &o)
{
	Circle circ = unify({p.period_us}, o);
	LinkOutcome out;
	out.score = score_shifts({LinkJob{p, std::nullopt}}, circ, {0}, cap,
				 &out.over_fraction);
	out.score_unshifted = out.score;
	return out;
}

// score_min and score_mean over every crossed link.
static void summarise(Evaluation &e)
{
	double sum = 0.0;
	e.score_min = 1.0;
	for (const LinkEval &le : e.links) {
		sum += le.outcome.score;
		e.score_min = std::min(e.score_min, le.outcome.score);
	}
	e.score_mean = e.links.empty() ? 1.0 : sum / (double)e.links.size();
}

static void check_nodes(const Topology &t, const std::vector<uint32_t> &nodes)
{
	if (nodes.empty())
		fail(ORRERY_EINVAL, "empty node set");
	std::vector<uint32_t> s(nodes);
	std::sort(s.begin(), s.end());
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] >= t.nodes.size())
			fail(ORRERY_ERANGE, "node index " + std::to_string(s[i]) +
			     " out of range (topology has " + std::to_string(t.nodes.size()) +
			     " nodes)");
		if (i && s[i] == s[i - 1])
			fail(ORRERY_EINVAL, "node '" + t.nodes[s[i]] + "' listed twice");
	}
}

Evaluation evaluate(const Cluster &c, const std::vector<uint32_t> &nodes,
		    const Pattern &p, LinkDemandCache *cache)
{
	const Topology &t = c.topology();
	// A pattern without Up phases (a one-node job) is valid: it loads no
	// uplink, so every candidate scores 1 and locality alone decides.
	if (p.period_us <= 0)
		fail(ORRERY_EINVAL, "newcomer profile has no explicit pattern");
	check_nodes(t, nodes);
	LinkDemandCache local(c);
	if (!cache)
		cache = &local;

	Evaluation e;
	std::vector<Crossing> xs = crossings(t, nodes, needs_positions(p));
	if (xs.empty()) {
		e.gate_period_us = gate_period(p, c.circle());
		return e;
	}
	// A link whose summed peaks fit its capacity (or whose capacity is
	// unknown) scores 1 at every shift: it cannot change which shift
	// maximises the worst score, nor the order of the means, so only the
	// contended links go to the shift search.  With none, shift 0.
	std::vector<LinkProblem> probs;
	std::vector<size_t> contended;  // index into xs of each problem
	std::vector<size_t> lone;       // index into xs: newcomer alone, over
	std::vector<LinkOutcome> lone_score;
	probs.reserve(xs.size());
	for (size_t i = 0; i < xs.size(); i++) {
		const Crossing &x = xs[i];
		const LinkCap lc = t.link_cap(x.sw);
		const uint64_t cap = lc.mbps;
		if (!cap)
			continue;
		Pattern mine = pattern_on_link(p, x);
		// On parallel links (ECMP) demand past one link's capacity can
		// already collide (lib/circle/ecmp.hpp).
		const double fits = lc.ecmp() ? lc.per_link() : (double)cap;
		if (cache->pinned_peak(x.sw) + peak_demand(mine) <= fits)
			continue;
		if (cache->pinned(x.sw).empty()) {
			// The newcomer alone over capacity (an all-to-all
			// phase scaled up on this link): rotating a lone job
			// changes nothing, so score it once, unshifted.
			lone.push_back(i);
			lone_score.push_back(lone_link_score(mine, lc, c.circle()));
			continue;
		}
		LinkProblem lp;
		lp.capacity_mbps = cap;
		lp.links = lc.links;
		lp.flows = lc.flows;
		// Candidates share uplinks: the pinned jobs' load is built
		// once per link for the whole placement, not copied here.
		lp.pinned = &cache->pinned_load(x.sw, p.period_us);
		lp.newcomer = std::move(mine);
		probs.push_back(std::move(lp));
		contended.push_back(i);
	}
	e.links.resize(xs.size());
	for (size_t i = 0; i < xs.size(); i++) {
		LinkEval &le = e.links[i];
		le.sw = xs[i].sw;
		le.capacity_mbps = t.capacity(xs[i].sw);
		le.other_jobs = (uint32_t)c.jobs_on_link(xs[i].sw).size();
		le.outcome = LinkOutcome{};  // score 1, never over
	}
	for (size_t k = 0; k < lone.size(); k++) {
		e.links[lone[k]].outcome = lone_score[k];
		e.links[lone[k]].contended = true;
	}
	for (size_t k : contended)
		e.links[k].contended = true;
	if (probs.empty()) {
		e.gate_period_us = gate_period(p, c.circle());
		summarise(e);
		return e;
	}
	NewcomerShift ns = best_newcomer_shift(probs, p.period_us, c.circle());
	if (ns.links.size() != probs.size())
		fail(ORRERY_EINTERNAL, "best_newcomer_shift returned " +
		     std::to_string(ns.links.size()) + " link outcomes for " +
		     std::to_string(probs.size()) + " links");
	e.shift_us = ns.shift_us;
	e.gate_period_us = ns.gate_period_us;
	for (size_t k = 0; k < probs.size(); k++)
		e.links[contended[k]].outcome = ns.links[k];
	summarise(e);
	return e;
}

}  // namespace orrery
