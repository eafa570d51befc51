// What a node set would do to the uplinks it crosses: the running jobs on
// each crossed uplink stay pinned at their shifts, the newcomer gets the one
// shift that maximises its worst link score, then the mean.
#include <algorithm>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

LinkDemandCache::LinkDemandCache(const Cluster &c)
	: c_(c), built_(c.topology().switches.size(), 0),
	  pinned_(c.topology().switches.size())
{
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
		out.push_back(std::move(lj));
	}
	built_[sw] = 1;
	return out;
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
	if (p.period_us <= 0 || p.phases.empty())
		fail(ORRERY_EINVAL, "newcomer profile has no explicit pattern");
	check_nodes(t, nodes);
	LinkDemandCache local(c);
	if (!cache)
		cache = &local;

	Evaluation e;
	std::vector<Crossing> xs = crossings(t, nodes);
	if (xs.empty()) {
		e.gate_period_us = gate_period(p, c.circle());
		return e;
	}
	std::vector<LinkProblem> probs;
	probs.reserve(xs.size());
	for (const Crossing &x : xs) {
		LinkProblem lp;
		lp.capacity_mbps = t.capacity(x.sw);
		// Unknown capacity is unconstrained: the other jobs cannot
		// change the score, so do not pay for their demand.
		if (lp.capacity_mbps)
			lp.others = cache->pinned(x.sw);
		lp.newcomer = pattern_on_link(p, x);
		probs.push_back(std::move(lp));
	}
	NewcomerShift ns = best_newcomer_shift(probs, p.period_us, c.circle());
	if (ns.links.size() != xs.size())
		fail(ORRERY_EINTERNAL, "best_newcomer_shift returned " +
		     std::to_string(ns.links.size()) + " link outcomes for " +
		     std::to_string(xs.size()) + " links");
	e.shift_us = ns.shift_us;
	e.gate_period_us = ns.gate_period_us;
	e.score_min = ns.score_min;
	e.score_mean = ns.score_mean;
	e.links.reserve(xs.size());
	for (size_t i = 0; i < xs.size(); i++) {
		LinkEval le;
		le.sw = xs[i].sw;
		le.capacity_mbps = probs[i].capacity_mbps;
		le.other_jobs = (uint32_t)c.jobs_on_link(xs[i].sw).size();
		le.outcome = ns.links[i];
		e.links.push_back(le);
	}
	return e;
}

}  // namespace orrery
