// Link groups and the choice between rotation, time division and free
// sharing for each (doc/orrery-score.7, TIME DIVISION).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "cluster/cluster.hpp"
#include "core/error.hpp"
#include "placement/placement.hpp"
#include "tdiv/tdiv.hpp"

namespace orrery {

const char *group_mode_name(GroupMode m)
{
	switch (m) {
	case GroupMode::Rotate: return "rotate";
	case GroupMode::Divide: return "divide";
	case GroupMode::Share: return "share";
	}
	return "?";
}

namespace {

// A mode must beat the one preferred before it by this fraction of the
// total slowdown to be chosen (the model is not exact; the simpler
// arrangement wins a near tie).
constexpr double kChoiceMargin = 0.005;
// A rotation score this close to 1 counts as 1.
constexpr double kScoreOne = 1e-9;

size_t find(std::vector<size_t> &p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

double total_slowdown(const std::vector<double> &iter, const std::vector<int64_t> &iso)
{
	double s = 0;
	for (size_t i = 0; i < iter.size(); i++)
		s += iter[i] / (double)std::max<int64_t>(1, iso[i]);
	return s;
}

}  // namespace

Division divide_groups(const std::vector<Pattern> &patterns,
		       const std::vector<int64_t> &gate_period_us,
		       const std::vector<int64_t> &rotate_shift_us,
		       const std::vector<DivLink> &links,
		       const std::vector<double> &link_score,
		       const CircleOpts &o)
{
	const size_t n = patterns.size(), L = links.size();
	if (gate_period_us.size() != n || rotate_shift_us.size() != n ||
	    link_score.size() != L)
		fail(ORRERY_EINTERNAL, "divide_groups: inputs of different lengths");
	Division out;
	out.jobs.resize(n);
	for (const DivLink &l : links)
		out.link_ids.push_back(l.id);
	for (size_t j = 0; j < n; j++)
		out.jobs[j].isolated_us = isolated_iteration_us(patterns[j]);

	// Components of the job-link graph (jobs 0..n-1, links n..n+L-1).
	std::vector<size_t> parent(n + L);
	std::iota(parent.begin(), parent.end(), 0);
	for (size_t l = 0; l < L; l++)
		for (size_t j : links[l].jobs) {
			if (j >= n)
				fail(ORRERY_EINTERNAL, "divide_groups: link names job " +
				     std::to_string(j));
			size_t a = find(parent, n + l), b = find(parent, j);
			if (a != b)
				parent[std::max(a, b)] = std::min(a, b);
		}
	std::unordered_map<size_t, size_t> gi;  // root -> group
	for (size_t l = 0; l < L; l++) {
		size_t r = find(parent, n + l);
		auto it = gi.find(r);
		if (it == gi.end()) {
			it = gi.emplace(r, out.groups.size()).first;
			out.groups.emplace_back();
		}
		out.groups[it->second].links.push_back(l);
	}
	for (size_t j = 0; j < n; j++) {
		auto it = gi.find(find(parent, j));
		if (it == gi.end())
			continue;
		out.groups[it->second].jobs.push_back(j);
		out.jobs[j].group = (long)it->second;
	}

	for (GroupDecision &g : out.groups) {
		const size_t k = g.jobs.size();
		g.score = 1.0;
		for (size_t l : g.links)
			g.score = std::min(g.score, link_score[l]);
		g.iter_rotate_us.assign(k, -1);
		g.iter_divide_us.assign(k, -1);
		g.iter_share_us.assign(k, -1);
		g.divide_shift_us.assign(k, 0);
		g.mode = GroupMode::Rotate;
		if (k > kMaxPredictJobs) {
			g.reason = "group of " + std::to_string(k) + " jobs: more than " +
				   std::to_string(kMaxPredictJobs) +
				   " are not predicted; rotation shifts kept";
		} else {
			// The group's problem in local indices.
			std::unordered_map<size_t, size_t> local;
			std::vector<Pattern> pats;
			std::vector<int64_t> iso;
			for (size_t i = 0; i < k; i++) {
				local[g.jobs[i]] = i;
				pats.push_back(patterns[g.jobs[i]]);
				iso.push_back(out.jobs[g.jobs[i]].isolated_us);
			}
			std::vector<DivLink> gl;
			for (size_t l : g.links) {
				DivLink x = links[l];
				for (size_t &j : x.jobs)
					j = local.at(j);
				gl.push_back(std::move(x));
			}
			std::vector<FluidGate> rot(k), none(k);
			for (size_t i = 0; i < k; i++)
				rot[i] = FluidGate{gate_period_us[g.jobs[i]],
						   rotate_shift_us[g.jobs[i]]};
			g.iter_rotate_us = predict_iterations(pats, gl, rot);
			g.iter_share_us = predict_iterations(pats, gl, none);
			g.slowdown_rotate = total_slowdown(g.iter_rotate_us, iso);
			g.slowdown_share = total_slowdown(g.iter_share_us, iso);
			bool fits = g.score >= 1.0 - kScoreOne;
			if (!fits && k <= kMaxDivideJobs) {
				TimeDivision td = divide_time(pats, gl, o);
				g.period_us = td.period_us;
				g.divide_shift_us = td.shift_us;
				std::vector<FluidGate> div(k);
				for (size_t i = 0; i < k; i++)
					div[i] = FluidGate{td.period_us, td.shift_us[i]};
				g.iter_divide_us = predict_iterations(pats, gl, div);
				g.slowdown_divide = total_slowdown(g.iter_divide_us, iso);
			}
			// Preference on a near tie: share (no gate), rotate,
			// divide.
			double best = g.slowdown_share;
			g.mode = GroupMode::Share;
			if (g.slowdown_rotate < best * (1 - kChoiceMargin)) {
				best = g.slowdown_rotate;
				g.mode = GroupMode::Rotate;
			}
			if (g.slowdown_divide >= 0 &&
			    g.slowdown_divide < best * (1 - kChoiceMargin)) {
				best = g.slowdown_divide;
				g.mode = GroupMode::Divide;
			}
			char buf[200];
			if (fits)
				snprintf(buf, sizeof buf,
					 "rotation fits (score %.3f); predicted slowdown "
					 "rotate %.3f, share %.3f", g.score,
					 g.slowdown_rotate / (double)k,
					 g.slowdown_share / (double)k);
			else if (g.slowdown_divide < 0)
				snprintf(buf, sizeof buf,
					 "score %.3f; %zu jobs: more than %zu are not "
					 "time-divided; predicted slowdown rotate %.3f, "
					 "share %.3f", g.score, k, kMaxDivideJobs,
					 g.slowdown_rotate / (double)k,
					 g.slowdown_share / (double)k);
			else
				snprintf(buf, sizeof buf,
					 "score %.3f; predicted slowdown rotate %.3f, "
					 "divide %.3f, share %.3f", g.score,
					 g.slowdown_rotate / (double)k,
					 g.slowdown_divide / (double)k,
					 g.slowdown_share / (double)k);
			g.reason = buf;
		}
		for (size_t i = 0; i < k; i++) {
			JobGate &jg = out.jobs[g.jobs[i]];
			switch (g.mode) {
			case GroupMode::Rotate:
				jg.gated = true;
				jg.period_us = gate_period_us[g.jobs[i]];
				jg.shift_us = rotate_shift_us[g.jobs[i]];
				break;
			case GroupMode::Divide:
				jg.gated = true;
				jg.period_us = g.period_us;
				jg.shift_us = g.divide_shift_us[i];
				break;
			case GroupMode::Share:
				jg.gated = false;
				break;
			}
		}
	}
	return out;
}

Division divide_cluster(const Cluster &c, std::vector<uint32_t> &job_ids)
{
	ShiftSolution sol = solve_shifts(c);
	const Topology &t = c.topology();
	job_ids = sol.job_ids;
	std::unordered_map<uint32_t, size_t> index;
	std::vector<Pattern> pats;
	std::vector<int64_t> periods;
	for (size_t i = 0; i < job_ids.size(); i++) {
		index[job_ids[i]] = i;
		const RunningJob *j = c.job(job_ids[i]);
		pats.push_back(j->pattern);
		periods.push_back(j->gate_period_us);
	}
	std::vector<DivLink> links;
	std::vector<double> score;
	for (const auto &l : sol.result.links) {
		DivLink x;
		x.id = l.id;
		x.capacity_mbps = t.capacity(l.id);
		for (uint32_t id : c.jobs_on_link(l.id)) {
			const RunningJob *j = c.job(id);
			const Crossing *cr = j->crossing(l.id);
			if (!cr)
				fail(ORRERY_EINTERNAL, "link index out of step with job " +
				     std::to_string(id));
			x.jobs.push_back(index.at(id));
			x.patterns.push_back(pattern_on_link(j->pattern, *cr));
		}
		links.push_back(std::move(x));
		score.push_back(l.score_achieved);
	}
	return divide_groups(pats, periods, sol.result.shift_us, links, score,
			     c.circle());
}

}  // namespace orrery
