// The predicted slowdown a placement causes, for the contention-aware
// ranking (placement/rank.cpp).  No model of its own: the candidate's
// contended links and the jobs on them form one link group, and the
// group is predicted by the time-division code (lib/tdiv: decide_group,
// the fluid model run under rotation, time division and free sharing,
// the choice the re-alignment would make).  The same jobs on the same
// links without the newcomer give the baseline, so candidates that touch
// different jobs compare by what the newcomer adds, not by collisions
// that are there anyway.
//
// The newcomer's own share (alone on those links) is predicted beside it
// for admission, which holds a job only for what its neighbours cause.
//
// Limits (doc/orrery-score.7, CONTENTION-AWARE RANKING): the group is
// predicted alone (the running jobs' other links are not in it); the
// baseline is rotation or free sharing (a group that is time-divided now
// is predicted without its division), so a candidate is blamed slightly
// more than it should be where a division already holds.
#include <algorithm>
#include <unordered_map>

#include "placement/placement.hpp"
#include "tdiv/tdiv.hpp"

namespace orrery {

namespace {

double chosen_slowdown(const GroupDecision &g)
{
	switch (g.mode) {
	case GroupMode::Rotate: return g.slowdown_rotate;
	case GroupMode::Divide: return g.slowdown_divide;
	case GroupMode::Share: return g.slowdown_share;
	}
	return g.slowdown_share;
}

}  // namespace

double placement_cost(const Cluster &c, const Candidate &cand, const Pattern &p,
		      LinkDemandCache &cache, double *self_cost)
{
	if (self_cost)
		*self_cost = 0.0;
	const Topology &t = c.topology();
	std::vector<size_t> hot;  // indices into cand.eval.links
	for (size_t i = 0; i < cand.eval.links.size(); i++)
		if (cand.eval.links[i].contended)
			hot.push_back(i);
	if (hot.empty())
		return 0.0;

	// Local job 0 is the newcomer; the running jobs follow in order of
	// first appearance (links ascending, jobs ascending on each).
	std::vector<Pattern> pats{p};
	std::vector<int64_t> period{cand.eval.gate_period_us};
	std::vector<int64_t> shift{cand.eval.shift_us};
	std::unordered_map<uint32_t, size_t> local;
	for (size_t i : hot)
		for (uint32_t id : c.jobs_on_link(cand.eval.links[i].sw)) {
			if (local.count(id))
				continue;
			const RunningJob *j = c.job(id);
			local.emplace(id, pats.size());
			pats.push_back(j->pattern);
			period.push_back(j->gate_period_us);
			shift.push_back(j->shift_us);
			if (pats.size() > kMaxCostJobs)
				return -1.0;
		}

	std::vector<Crossing> xs = crossings(t, cand.nodes, needs_positions(p));
	std::unordered_map<size_t, const Crossing *> mine;
	for (const Crossing &x : xs)
		mine.emplace(x.sw, &x);
	std::vector<DivLink> with, without;
	std::vector<double> score;
	for (size_t i : hot) {
		const LinkEval &le = cand.eval.links[i];
		const LinkCap lc = t.link_cap(le.sw);
		DivLink l;
		l.id = (uint32_t)le.sw;
		l.capacity_mbps = lc.mbps;
		l.links = lc.links;
		l.flows = lc.flows;
		const std::vector<uint32_t> &ids = c.jobs_on_link(le.sw);
		const std::vector<LinkJob> &pinned = cache.pinned(le.sw);
		for (size_t k = 0; k < ids.size(); k++) {
			l.jobs.push_back(local.at(ids[k]));
			l.patterns.push_back(pinned[k].pattern);
		}
		if (!l.jobs.empty())
			without.push_back(l);
		l.jobs.push_back(0);
		l.patterns.push_back(pattern_on_link(p, *mine.at(le.sw)));
		with.push_back(std::move(l));
		score.push_back(le.outcome.score);
	}

	GroupDecision after = decide_group(pats, period, shift, with, score, c.circle());
	if (self_cost) {
		// The newcomer alone on the same links, as the group predicts
		// it: what it pays there whoever else runs.
		std::vector<DivLink> solo;
		for (const DivLink &l : with) {
			DivLink s = l;
			s.jobs = {0};
			s.patterns = {l.patterns.back()};
			solo.push_back(std::move(s));
		}
		GroupDecision a = decide_group({p}, {period[0]}, {shift[0]}, solo,
					       std::vector<double>(solo.size(), 1.0),
					       c.circle());
		*self_cost = std::max(0.0, chosen_slowdown(a) - 1.0);
	}
	double before = 0.0;
	if (pats.size() > 1) {
		// The running jobs without the newcomer: local indices 1.. become
		// 0..; scores of 1 (no time division is tried for the baseline).
		for (DivLink &l : without)
			for (size_t &j : l.jobs)
				j--;
		std::vector<Pattern> rp(pats.begin() + 1, pats.end());
		std::vector<int64_t> rper(period.begin() + 1, period.end());
		std::vector<int64_t> rsh(shift.begin() + 1, shift.end());
		GroupDecision b = decide_group(rp, rper, rsh, without,
					       std::vector<double>(without.size(), 1.0),
					       c.circle());
		before = chosen_slowdown(b);
	}
	// Placing a job cannot make the others faster: what the model gives
	// below the baseline is its own noise.
	return std::max(0.0, chosen_slowdown(after) - before - 1.0);
}

}  // namespace orrery
