// Link groups and the choice between rotation, time division and free
// sharing for each (doc/orrery-score.7, TIME DIVISION), and re-alignment
// of a changed group with as few gate changes as it can.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <unordered_map>

#include "affinity/affinity.hpp"
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

size_t uf_find(std::vector<size_t> &p, size_t x)
{
	while (p[x] != x)
		x = p[x] = p[p[x]];
	return x;
}

int64_t mod(int64_t a, int64_t m)
{
	int64_t r = a % m;
	return r < 0 ? r + m : r;
}

// The busiest link's mean demand over its capacity: each member's bits
// per iteration alone over its isolated iteration (iso, per group job),
// summed.
double mean_load(const std::vector<int64_t> &iso, const std::vector<DivLink> &gl)
{
	double worst = 0;
	for (const DivLink &L : gl) {
		const double cap = L.effective_mbps();
		if (cap <= 0)
			continue;
		double load = 0;
		for (size_t m = 0; m < L.jobs.size() && m < L.patterns.size(); m++) {
			const int64_t t = iso.at(L.jobs[m]);
			double bits = 0;
			for (const Phase &ph : L.patterns[m].phases)
				bits += std::min((double)ph.demand_mbps, cap) *
					(double)ph.duration_us;
			if (t > 0)
				load += bits / (double)t;
		}
		worst = std::max(worst, load / cap);
	}
	return worst;
}

double total_slowdown(const std::vector<double> &iter, const std::vector<int64_t> &iso)
{
	double s = 0;
	for (size_t i = 0; i < iter.size(); i++)
		s += iter[i] / (double)std::max<int64_t>(1, iso[i]);
	return s;
}

// Components of the job-link graph: per group, its links and jobs
// (ascending).
void form_groups(size_t n, const std::vector<DivLink> &links, Division &out)
{
	const size_t L = links.size();
	std::vector<size_t> parent(n + L);
	std::iota(parent.begin(), parent.end(), 0);
	for (size_t l = 0; l < L; l++)
		for (size_t j : links[l].jobs) {
			if (j >= n)
				fail(ORRERY_EINTERNAL, "link groups: link names job " +
				     std::to_string(j));
			size_t a = uf_find(parent, n + l), b = uf_find(parent, j);
			if (a != b)
				parent[std::max(a, b)] = std::min(a, b);
		}
	std::unordered_map<size_t, size_t> gi;  // root -> group
	for (size_t l = 0; l < L; l++) {
		size_t r = uf_find(parent, n + l);
		auto it = gi.find(r);
		if (it == gi.end()) {
			it = gi.emplace(r, out.groups.size()).first;
			out.groups.emplace_back();
		}
		out.groups[it->second].links.push_back(l);
	}
	for (size_t j = 0; j < n; j++) {
		auto it = gi.find(uf_find(parent, j));
		if (it == gi.end())
			continue;
		out.groups[it->second].jobs.push_back(j);
		out.jobs[j].group = (long)it->second;
	}
}

// The group's links with job indices made local to the group.
std::vector<DivLink> local_links(const GroupDecision &g, const std::vector<DivLink> &links)
{
	std::unordered_map<size_t, size_t> local;
	for (size_t i = 0; i < g.jobs.size(); i++)
		local[g.jobs[i]] = i;
	std::vector<DivLink> gl;
	for (size_t l : g.links) {
		DivLink x = links[l];
		for (size_t &j : x.jobs)
			j = local.at(j);
		gl.push_back(std::move(x));
	}
	return gl;
}

// Gates of a group's jobs under its mode.
void set_gates(const GroupDecision &g, const std::vector<int64_t> &own_period,
	       Division &d)
{
	for (size_t i = 0; i < g.jobs.size(); i++) {
		JobGate &jg = d.jobs[g.jobs[i]];
		switch (g.mode) {
		case GroupMode::Rotate:
			jg.gated = true;
			jg.period_us = own_period[g.jobs[i]];
			jg.shift_us = g.rotate_shift_us[i];
			break;
		case GroupMode::Divide:
			jg.gated = true;
			jg.period_us = g.divide_period_us[i];
			jg.shift_us = g.divide_shift_us[i];
			break;
		case GroupMode::Share:
			jg.gated = false;
			jg.period_us = jg.shift_us = 0;
			break;
		}
	}
}

}  // namespace

GroupDecision decide_group(const std::vector<Pattern> &pats,
			   const std::vector<int64_t> &gate_period_us,
			   const std::vector<int64_t> &rotate_shift_us,
			   const std::vector<DivLink> &gl,
			   const std::vector<double> &link_score,
			   const CircleOpts &o)
{
	const size_t k = pats.size();
	GroupDecision g;
	g.score = 1.0;
	for (double s : link_score)
		g.score = std::min(g.score, s);
	g.rotate_shift_us = rotate_shift_us;
	g.iter_rotate_us.assign(k, -1);
	g.iter_divide_us.assign(k, -1);
	g.iter_share_us.assign(k, -1);
	g.divide_shift_us.assign(k, 0);
	g.divide_period_us.assign(k, 0);
	g.mode = GroupMode::Rotate;
	if (k > kMaxPredictJobs) {
		g.reason = "group of " + std::to_string(k) + " jobs: more than " +
			   std::to_string(kMaxPredictJobs) +
			   " are not predicted; rotation shifts kept";
		return g;
	}
	std::vector<int64_t> iso;
	for (const Pattern &p : pats)
		iso.push_back(isolated_iteration_us(p));
	std::vector<FluidGate> rot(k), none(k);
	for (size_t i = 0; i < k; i++)
		rot[i] = FluidGate{gate_period_us[i], rotate_shift_us[i]};
	g.iter_rotate_us = predict_iterations(pats, gl, rot);
	g.iter_share_us = predict_iterations(pats, gl, none);
	g.slowdown_rotate = total_slowdown(g.iter_rotate_us, iso);
	g.slowdown_share = total_slowdown(g.iter_share_us, iso);
	bool fits = g.score >= 1.0 - kScoreOne;
	if (!fits && k <= kMaxDivideJobs) {
		// One slot per job in a common period, and (jobs of different
		// periods) several slots for the shorter ones: the one
		// predicted faster.
		for (int pass = 0; pass < 2; pass++) {
			// The several-slot search skips periods that cannot
			// beat the best mode predicted so far.
			double limit = 0;
			for (double sd : {g.slowdown_share, g.slowdown_rotate,
					  g.slowdown_divide})
				if (sd > 0 && (limit == 0 || sd < limit))
					limit = sd;
			const TimeDivision td = pass == 0 ? divide_time(pats, gl, o)
						: divide_time_harmonic(pats, gl, o, limit);
			if (!td.period_us)
				continue;
			std::vector<FluidGate> div(k);
			for (size_t i = 0; i < k; i++)
				div[i] = FluidGate{td.job_period_us[i], td.shift_us[i]};
			std::vector<double> it = predict_iterations(pats, gl, div);
			double sd = total_slowdown(it, iso);
			if (g.slowdown_divide >= 0 && sd >= g.slowdown_divide)
				continue;
			g.period_us = td.period_us;
			g.divide_shift_us = td.shift_us;
			g.divide_period_us = td.job_period_us;
			g.iter_divide_us = std::move(it);
			g.slowdown_divide = sd;
		}
	}
	// Preference on a near tie: share (no gate), rotate, divide.  A
	// group over capacity on average cannot keep its jobs' own periods:
	// gated there, each job is late for its slots by construction and
	// waits out whole periods the prediction's few iterations do not
	// show (netbed scenario h, doc/netbed-report.md): no rotation.
	g.load = mean_load(iso, gl);
	const bool over = g.load > 1.0 + kScoreOne;
	double best = g.slowdown_share;
	g.mode = GroupMode::Share;
	if (!over && g.slowdown_rotate < best * (1 - kChoiceMargin)) {
		best = g.slowdown_rotate;
		g.mode = GroupMode::Rotate;
	}
	if (g.slowdown_divide >= 0 && g.slowdown_divide < best * (1 - kChoiceMargin)) {
		best = g.slowdown_divide;
		g.mode = GroupMode::Divide;
	}
	bool harmonic = false;  // some job has several slots per period
	for (int64_t jp : g.divide_period_us)
		harmonic = harmonic || (jp && jp != g.period_us);
	char buf[240];
	const double kd = (double)k;
	if (fits)
		snprintf(buf, sizeof buf,
			 "rotation fits (score %.3f); predicted slowdown rotate %.3f, share %.3f",
			 g.score, g.slowdown_rotate / kd, g.slowdown_share / kd);
	else if (g.slowdown_divide < 0)
		snprintf(buf, sizeof buf,
			 "score %.3f; %zu jobs: more than %zu are not time-divided; "
			 "predicted slowdown rotate %.3f, share %.3f",
			 g.score, k, kMaxDivideJobs, g.slowdown_rotate / kd,
			 g.slowdown_share / kd);
	else
		snprintf(buf, sizeof buf,
			 "score %.3f; predicted slowdown rotate %.3f, divide %.3f%s, share %.3f",
			 g.score, g.slowdown_rotate / kd, g.slowdown_divide / kd,
			 harmonic ? " (several slots per period)" : "",
			 g.slowdown_share / kd);
	if (over) {
		size_t len = strlen(buf);
		snprintf(buf + len, sizeof buf - len,
			 "; load %.2f of the busiest link: no rotation", g.load);
	}
	g.reason = buf;
	return g;
}

Division divide_link(const std::vector<Pattern> &pats, uint64_t capacity_mbps,
		     const CircleOpts &o)
{
	const size_t n = pats.size();
	Division out;
	out.jobs.resize(n);
	for (size_t j = 0; j < n; j++) {
		out.jobs[j].isolated_us = isolated_iteration_us(pats[j]);
		out.job_ids.push_back((uint32_t)j);
	}
	if (n < 2)
		return out;
	std::vector<LinkJob> lj;
	DivLink link;
	link.id = 0;
	link.capacity_mbps = capacity_mbps;
	for (size_t j = 0; j < n; j++) {
		lj.push_back(LinkJob{pats[j], std::nullopt});
		link.jobs.push_back(j);
		link.patterns.push_back(pats[j]);
	}
	LinkScore s = best_rotations(lj, capacity_mbps, o);
	out.link_ids.push_back(0);
	GroupDecision g = decide_group(pats, s.circle.gate_period_us, s.shift_us,
				       {link}, {s.score}, o);
	g.links = {0};
	for (size_t j = 0; j < n; j++) {
		g.jobs.push_back(j);
		out.jobs[j].group = 0;
	}
	out.groups.push_back(std::move(g));
	set_gates(out.groups[0], s.circle.gate_period_us, out);
	return out;
}

Division divide_cluster(const Cluster &c, const Division *prev)
{
	Division out;
	std::vector<Pattern> pats;
	std::vector<int64_t> own;
	for (const auto &kv : c.jobs()) {
		out.job_ids.push_back(kv.first);
		out.job_revs.push_back(kv.second.revision);
		pats.push_back(kv.second.pattern);
		own.push_back(kv.second.gate_period_us);
	}
	const size_t n = pats.size();
	out.jobs.resize(n);
	for (size_t j = 0; j < n; j++)
		out.jobs[j].isolated_us = isolated_iteration_us(pats[j]);

	// Shared constrained links (those solve_shifts takes).
	std::vector<DivLink> links = shared_links(c);
	for (const DivLink &l : links)
		out.link_ids.push_back(l.id);
	form_groups(n, links, out);

	// prev's groups by (job ids and revisions, link ids), and its gates by
	// job id.  A job retimed since (retime_job) makes its group new.
	std::map<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>, size_t> prev_groups;
	std::unordered_map<uint32_t, const JobGate *> prev_gate;
	if (prev) {
		for (size_t gi = 0; gi < prev->groups.size(); gi++) {
			const GroupDecision &g = prev->groups[gi];
			std::vector<uint32_t> jid, lid;
			for (size_t j : g.jobs) {
				jid.push_back(prev->job_ids[j]);
				jid.push_back(j < prev->job_revs.size() ? prev->job_revs[j] : 0);
			}
			for (size_t l : g.links)
				lid.push_back(prev->link_ids[l]);
			prev_groups[{jid, lid}] = gi;
		}
		for (size_t j = 0; j < prev->jobs.size(); j++)
			prev_gate[prev->job_ids[j]] = &prev->jobs[j];
	}

	for (GroupDecision &g : out.groups) {
		std::vector<uint32_t> jid, lid;
		for (size_t j : g.jobs) {
			jid.push_back(out.job_ids[j]);
			jid.push_back(out.job_revs[j]);
		}
		for (size_t l : g.links)
			lid.push_back(out.link_ids[l]);
		auto pg = prev_groups.find({jid, lid});
		if (pg != prev_groups.end()) {
			// Same jobs on the same links: the same decision.
			GroupDecision keep = prev->groups[pg->second];
			keep.jobs = g.jobs;
			keep.links = g.links;
			keep.reused = true;
			g = std::move(keep);
			for (size_t j : g.jobs) {
				auto it = prev_gate.find(out.job_ids[j]);
				out.jobs[j].gated = it->second->gated;
				out.jobs[j].period_us = it->second->period_us;
				out.jobs[j].shift_us = it->second->shift_us;
			}
			continue;
		}
		// Re-solve: rotation on the group's links, then the decision.
		std::vector<DivLink> gl = local_links(g, links);
		std::vector<Pattern> gp;
		std::vector<int64_t> gper;
		for (size_t j : g.jobs) {
			gp.push_back(pats[j]);
			gper.push_back(own[j]);
		}
		AffinityResult ar = solve_affinity(gper, gl, c.circle());
		std::vector<double> score;
		for (const auto &l : ar.links)
			score.push_back(l.score_achieved);
		GroupDecision d = decide_group(gp, gper, ar.shift_us, gl, score, c.circle());
		d.jobs = g.jobs;
		d.links = g.links;
		g = std::move(d);
		set_gates(g, own, out);
		if (g.mode == GroupMode::Share || prev_gate.empty())
			continue;
		// Move every shift of the group by the one amount that leaves
		// the most running jobs' gates as they were (a common move keeps
		// every overlap: the whole arrangement turns together).
		std::vector<int64_t> cand{0};
		for (size_t j : g.jobs) {
			auto it = prev_gate.find(out.job_ids[j]);
			if (it != prev_gate.end() && it->second->gated &&
			    it->second->period_us == out.jobs[j].period_us)
				cand.push_back(it->second->shift_us - out.jobs[j].shift_us);
		}
		int64_t best_d = 0;
		size_t best_keep = 0;
		for (int64_t dlt : cand) {
			size_t keep = 0;
			for (size_t j : g.jobs) {
				auto it = prev_gate.find(out.job_ids[j]);
				const JobGate &ng = out.jobs[j];
				if (it != prev_gate.end() && it->second->gated &&
				    it->second->period_us == ng.period_us &&
				    mod(ng.shift_us + dlt, ng.period_us) == it->second->shift_us)
					keep++;
			}
			if (keep > best_keep) {
				best_keep = keep;
				best_d = dlt;
			}
		}
		for (size_t i = 0; i < g.jobs.size(); i++) {
			JobGate &ng = out.jobs[g.jobs[i]];
			ng.shift_us = mod(ng.shift_us + best_d, ng.period_us);
			if (g.mode == GroupMode::Rotate)
				g.rotate_shift_us[i] = ng.shift_us;
			else
				g.divide_shift_us[i] = ng.shift_us;
		}
	}
	for (size_t j = 0; j < n; j++) {
		JobGate &ng = out.jobs[j];
		auto it = prev_gate.find(out.job_ids[j]);
		if (!prev || it == prev_gate.end()) {
			ng.changed = true;
			continue;
		}
		const JobGate &og = *it->second;
		ng.changed = og.gated != ng.gated ||
			     (ng.gated && (og.period_us != ng.period_us ||
					   og.shift_us != ng.shift_us));
	}
	return out;
}

}  // namespace orrery
