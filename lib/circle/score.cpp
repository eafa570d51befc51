// The compatibility score and the search for the best rotations.
//
// The search works on whole-bin rotations of each job's demand vector,
// in fixed point, so that adding and removing a job is exact and ties
// are decided the same way on every machine.  The reported score is then
// recomputed in floating point from the shifts actually returned.
#include "circle/score.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

#include "circle/pinned_load.hpp"
#include "core/error.hpp"

namespace orrery {

double score_of_total(const std::vector<double> &total,
		      uint64_t capacity_mbps, double *over_fraction)
{
	if (over_fraction)
		*over_fraction = 0.0;
	if (capacity_mbps == 0 || total.empty())
		return 1.0;
	const double C = (double)capacity_mbps;
	const double over_at = C * (1.0 + kOverEpsilon);
	double excess = 0.0;
	size_t over = 0;
	for (double t : total) {
		if (t > C)
			excess += (t - C) / C;
		if (t > over_at)
			over++;
	}
	if (over_fraction)
		*over_fraction = (double)over / (double)total.size();
	return 1.0 - excess / (double)total.size();
}

double score_of_bins(const std::vector<double> &total,
		     const std::vector<uint32_t> &flows, const LinkCap &cap,
		     double *over_fraction)
{
	if (!cap.ecmp())
		return score_of_total(total, cap.mbps, over_fraction);
	if (over_fraction)
		*over_fraction = 0.0;
	if (cap.mbps == 0 || total.empty())
		return 1.0;
	if (flows.size() != total.size())
		fail(ORRERY_EINTERNAL, "score_of_bins: flows and demand differ in length");
	const double C = (double)cap.mbps;
	EcmpExcess model(cap);
	double excess = 0.0;
	size_t over = 0;
	for (size_t b = 0; b < total.size(); b++) {
		double e = model(total[b], flows[b]);
		excess += e / C;
		if (e > C * kOverEpsilon)
			over++;
	}
	if (over_fraction)
		*over_fraction = (double)over / (double)total.size();
	return 1.0 - excess / (double)total.size();
}

double score_of(const std::vector<std::vector<double>> &demand,
		uint64_t capacity_mbps, double *over_fraction)
{
	if (demand.empty())
		return score_of_total({}, capacity_mbps, over_fraction);
	std::vector<double> total(demand[0].size(), 0.0);
	for (const auto &d : demand) {
		if (d.size() != total.size())
			fail(ORRERY_EINTERNAL, "score_of: demand vectors differ in length");
		for (size_t b = 0; b < d.size(); b++)
			total[b] += d[b];
	}
	return score_of_total(total, capacity_mbps, over_fraction);
}

Circle circle_of(const std::vector<LinkJob> &jobs, const CircleOpts &o)
{
	std::vector<int64_t> periods;
	periods.reserve(jobs.size());
	for (const LinkJob &j : jobs)
		periods.push_back(j.pattern.period_us);
	return unify(periods, o);
}

double score_shifts(const std::vector<LinkJob> &jobs, const Circle &c,
		    const std::vector<int64_t> &shift_us,
		    const LinkCap &cap, double *over_fraction)
{
	std::vector<double> total(c.bins, 0.0);
	std::vector<uint32_t> flows(cap.ecmp() ? c.bins : 0, 0);
	std::vector<uint32_t> mark(flows.size(), UINT32_MAX);
	std::vector<std::pair<uint32_t, double>> sp;
	for (size_t j = 0; j < jobs.size(); j++) {
		discretise_sparse(jobs[j].pattern, 1.0, c, j,
				  (double)shift_us[j], sp);
		const uint32_t f = cap.ecmp() ? job_flows(jobs[j].pattern.flows,
					jobs[j].pattern.flow_mult, cap) : 0;
		for (const auto &[b, v] : sp) {
			total[b] += v;
			if (f && v > 0 && mark[b] != (uint32_t)j) {
				mark[b] = (uint32_t)j;
				flows[b] += f;
			}
		}
	}
	return score_of_bins(total, flows, cap, over_fraction);
}

namespace {

// Whole-bin rotations of sparse fixed-point demand vectors on a total.
class Rotator {
public:
	Rotator(uint32_t bins, const LinkCap &capacity, double max_total)
		: A_(bins), tot_(bins, 0), model_(capacity)
	{
		// Fixed-point unit: 1/1024 Mbit/s, coarser if needed so that
		// the excess summed over all bins stays inside int64.
		double f = 1024.0;
		double lim = std::ldexp(1.0, 61) / ((double)bins + 1.0);
		if ((max_total + (double)capacity.mbps) * f > lim)
			f = lim / (max_total + (double)capacity.mbps);
		f_ = f;
		cap_ = (int64_t)std::llround((double)capacity.mbps * f);
		if (capacity.ecmp())
			fl_.assign(bins, 0);
	}

	// Register a job's demand at rotation 0 and its flows (ECMP);
	// returns its index.
	size_t add_job(const std::vector<double> &d, uint32_t flows = 0)
	{
		job_fl_.push_back(flows);
		std::vector<std::pair<uint32_t, int64_t>> nz;
		for (uint32_t b = 0; b < A_; b++) {
			int64_t v = (int64_t)std::llround(d[b] * f_);
			if (v != 0)
				nz.emplace_back(b, v);
		}
		nz_.push_back(std::move(nz));
		return nz_.size() - 1;
	}
	size_t nnz(size_t j) const { return nz_[j].size(); }

	void place(size_t j, uint32_t k, int sign)
	{
		if (!fl_.empty()) {
			const uint32_t f = job_fl_[j];
			for (const auto &[b, v] : nz_[j]) {
				uint32_t bb = b + k >= A_ ? b + k - A_ : b + k;
				excess_ -= exc(tot_[bb], fl_[bb]);
				tot_[bb] += sign * v;
				fl_[bb] = sign > 0 ? fl_[bb] + f : fl_[bb] - f;
				excess_ += exc(tot_[bb], fl_[bb]);
			}
			return;
		}
		for (const auto &[b, v] : nz_[j]) {
			uint32_t bb = b + k >= A_ ? b + k - A_ : b + k;
			excess_ -= exc(tot_[bb]);
			tot_[bb] += sign * v;
			excess_ += exc(tot_[bb]);
		}
	}
	// Excess the job would add at rotation k, without placing it.
	int64_t cost(size_t j, uint32_t k) const
	{
		int64_t d = 0;
		if (!fl_.empty()) {
			const uint32_t f = job_fl_[j];
			for (const auto &[b, v] : nz_[j]) {
				uint32_t bb = b + k >= A_ ? b + k - A_ : b + k;
				d += exc(tot_[bb] + v, fl_[bb] + f) -
				     exc(tot_[bb], fl_[bb]);
			}
			return d;
		}
		for (const auto &[b, v] : nz_[j]) {
			uint32_t bb = b + k >= A_ ? b + k - A_ : b + k;
			d += exc(tot_[bb] + v) - exc(tot_[bb]);
		}
		return d;
	}
	int64_t excess() const { return excess_; }

private:
	int64_t exc(int64_t x) const { return x > cap_ ? x - cap_ : 0; }
	// ECMP: the expected excess, in the same fixed point (a function of
	// (x, flows) only, so placing and removing a job stays exact).
	int64_t exc(int64_t x, uint32_t flows) const
	{
		if (x <= 0 || flows == 0)
			return 0;
		return (int64_t)std::llround(model_((double)x / f_, flows) * f_);
	}

	uint32_t A_;
	double f_ = 1.0;
	int64_t cap_ = 0;
	std::vector<int64_t> tot_;
	int64_t excess_ = 0;
	std::vector<std::vector<std::pair<uint32_t, int64_t>>> nz_;
	EcmpExcess model_;
	std::vector<uint32_t> fl_;      // ECMP: flows per bin
	std::vector<uint32_t> job_fl_;  // ECMP: flows per job
};

struct Search {
	Rotator &rot;
	const std::vector<size_t> &free;      // rotator indices, search order
	const std::vector<uint32_t> &rotations;
	std::vector<uint32_t> cur, best;
	int64_t best_excess = INT64_MAX;
	uint64_t evaluations = 0;
	uint32_t stride = 1;  // heuristic: try every stride-th rotation

	// Exhaustive, in lexicographic order of the shifts, so the first
	// configuration reaching the best excess is the one with the
	// smallest shifts.  Adding a job never lowers the excess, so a
	// partial configuration already at the best cannot beat it.
	void exhaustive(size_t level)
	{
		if (level == free.size())
			evaluations++;
		if (rot.excess() >= best_excess)
			return;
		if (level == free.size()) {
			best_excess = rot.excess();
			best = cur;
			return;
		}
		size_t j = free[level];
		for (uint32_t k = 0; k < rotations[level]; k++) {
			if (best_excess == 0)
				return;
			rot.place(j, k, +1);
			cur[level] = k;
			exhaustive(level + 1);
			rot.place(j, k, -1);
		}
	}

	// Best rotation of job at `level` given what is placed (ties: the
	// smallest rotation).
	uint32_t best_rotation(size_t level)
	{
		size_t j = free[level];
		uint32_t bk = 0;
		int64_t bc = INT64_MAX;
		for (uint32_t k = 0; k < rotations[level]; k += stride) {
			int64_t c = rot.cost(j, k);
			evaluations++;
			if (c < bc) {
				bc = c;
				bk = k;
			}
		}
		return bk;
	}

	// Greedy in the order `seq` (levels), then coordinate descent.
	// Leaves the jobs placed; returns the excess reached.
	int64_t descend(const std::vector<size_t> &seq)
	{
		for (size_t level : seq) {
			cur[level] = best_rotation(level);
			rot.place(free[level], cur[level], +1);
		}
		for (int pass = 0; pass < 8; pass++) {
			bool improved = false;
			for (size_t level : seq) {
				size_t j = free[level];
				int64_t before = rot.excess();
				rot.place(j, cur[level], -1);
				uint32_t k = best_rotation(level);
				rot.place(j, k, +1);
				if (rot.excess() < before) {
					cur[level] = k;
					improved = true;
				} else {
					// Keep the old rotation on a tie.
					rot.place(j, k, -1);
					rot.place(j, cur[level], +1);
				}
			}
			if (!improved)
				break;
		}
		return rot.excess();
	}

	// Two starts: the given order (heaviest first) and its reverse;
	// the better one wins, the first on a tie.  Twice the cost of one
	// descent, and it escapes some of the local optima one start hits.
	void heuristic()
	{
		std::vector<size_t> seq(free.size());
		for (size_t i = 0; i < seq.size(); i++)
			seq[i] = i;
		for (int start = 0; start < 2; start++) {
			int64_t e = descend(seq);
			if (e < best_excess) {
				best_excess = e;
				best = cur;
			}
			for (size_t level = 0; level < free.size(); level++)
				rot.place(free[level], cur[level], -1);
			if (free.size() < 2)
				break;
			std::reverse(seq.begin(), seq.end());
		}
	}
};

int64_t mod_gate(int64_t s, int64_t g)
{
	int64_t r = s % g;
	return r < 0 ? r + g : r;
}

}  // namespace

LinkScore best_rotations(const std::vector<LinkJob> &jobs,
			 const LinkCap &cap, const CircleOpts &o)
{
	const uint64_t capacity_mbps = cap.mbps;
	LinkScore r;
	if (jobs.empty())
		fail(ORRERY_EINVAL, "best_rotations: no jobs on the link");
	r.circle = circle_of(jobs, o);
	const Circle &c = r.circle;
	const size_t n = jobs.size();
	const double w = c.bin_width_us();

	// Unshifted: free jobs at 0, fixed jobs where they are pinned.
	std::vector<int64_t> base(n, 0);
	bool any_fixed = false;
	for (size_t j = 0; j < n; j++) {
		if (jobs[j].fixed_shift_us) {
			if (*jobs[j].fixed_shift_us < 0)
				fail(ORRERY_ERANGE, "fixed shift " +
					std::to_string(*jobs[j].fixed_shift_us) +
					" us of job " + std::to_string(j) +
					" is negative");
			base[j] = mod_gate(*jobs[j].fixed_shift_us,
					   c.gate_period_us[j]);
			any_fixed = true;
		}
	}
	r.score_unshifted = score_shifts(jobs, c, base, cap,
					 &r.over_fraction_unshifted);
	r.shift_us = base;
	r.score = r.score_unshifted;
	r.over_fraction = r.over_fraction_unshifted;
	if (capacity_mbps == 0)
		return r;  // unconstrained: nothing to improve

	// Free jobs that rotation can move (a spread job looks the same at
	// every shift).  With nothing fixed, the score does not change when
	// every job rotates together, so the first free job stays at 0.
	std::vector<size_t> movable;
	for (size_t j = 0; j < n; j++)
		if (!jobs[j].fixed_shift_us && !c.spread[j])
			movable.push_back(j);
	if (!any_fixed && !movable.empty())
		movable.erase(movable.begin());
	if (movable.empty())
		return r;

	// Demand at rotation 0 for movable jobs; pinned and spread jobs go
	// on the total once.
	std::vector<std::vector<double>> dem(n);
	double max_total = 0.0;
	std::vector<std::pair<uint32_t, double>> sp;
	for (size_t j = 0; j < n; j++) {
		dem[j].assign(c.bins, 0.0);
		discretise_sparse(jobs[j].pattern, 1.0, c, j, (double)base[j], sp);
		for (const auto &[b, v] : sp)
			dem[j][b] += v;
		max_total += *std::max_element(dem[j].begin(), dem[j].end());
	}
	Rotator rot(c.bins, cap, max_total);
	std::vector<size_t> idx(n);
	for (size_t j = 0; j < n; j++)
		idx[j] = rot.add_job(dem[j], cap.ecmp() ? job_flows(
			jobs[j].pattern.flows, jobs[j].pattern.flow_mult, cap) : 0);
	for (size_t j = 0; j < n; j++)
		if (std::find(movable.begin(), movable.end(), j) == movable.end())
			rot.place(idx[j], 0, +1);

	// Search space: whole-bin rotations within each gate period.
	double space = 1.0;
	for (size_t j : movable)
		space *= (double)c.rotations(j);
	r.exact = space * (double)c.bins <= (double)o.exact_budget;

	// The heuristic places heavy jobs first (they constrain the most);
	// the exact search keeps job order for the tie rule.
	std::vector<size_t> order = movable;
	if (!r.exact)
		std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
			return jobs[a].pattern.mean_demand_mbps() >
			       jobs[b].pattern.mean_demand_mbps();
		});
	std::vector<size_t> ridx;
	std::vector<uint32_t> rots;
	for (size_t j : order) {
		ridx.push_back(idx[j]);
		rots.push_back(c.rotations(j));
	}
	Search s{rot, ridx, rots, std::vector<uint32_t>(order.size(), 0), {},
		 INT64_MAX, 0};
	if (r.exact) {
		s.exhaustive(0);
	} else {
		// Bound the heuristic's work (2 starts x up to 9 sweeps x k
		// jobs x R rotations x A bins): past kHeuristicMaxOps, only
		// every stride-th rotation is tried.  Reached only with many
		// bins and many jobs (64 jobs on 360 bins stay far below).
		double ops = 18.0 * (double)order.size() * (double)c.bins;
		uint32_t maxr = *std::max_element(rots.begin(), rots.end());
		ops *= (double)maxr;
		if (ops > kHeuristicMaxOps)
			s.stride = (uint32_t)std::ceil(ops / kHeuristicMaxOps);
		s.heuristic();
	}
	r.evaluations = s.evaluations;

	std::vector<int64_t> shifts = base;
	for (size_t l = 0; l < order.size(); l++) {
		size_t j = order[l];
		int64_t us = (int64_t)std::llround((double)s.best[l] * w);
		shifts[j] = mod_gate(us, c.gate_period_us[j]);
	}
	double over = 0.0;
	double sc = score_shifts(jobs, c, shifts, cap, &over);
	// Never worse than leaving the jobs alone; on a tie the smaller
	// shifts (all zero) win.
	if (sc > r.score_unshifted + 1e-12) {
		r.score = sc;
		r.over_fraction = over;
		r.shift_us = shifts;
	}
	return r;
}

namespace {

// One link of the newcomer's search: the pinned jobs' load (the caller's,
// or built here) and the newcomer's own demand at shift 0.
struct NewcomerLink {
	const PinnedLoad *p = nullptr;
	PinnedLoad own;              // when the caller gave none
	// Newcomer at shift 0, one entry per touched bin: candidates that
	// are whole bins on this circle rotate it instead of discretising.
	std::vector<std::pair<uint32_t, double>> nc0;
	uint32_t nc_flows = 0;       // ECMP: the newcomer's flows
	// The same bins as runs of equal demand (prefix_runs), when that
	// is cheaper: a run of a value with a prefix sum (pre >= 0) rotated
	// by k changes the excess by dexc[pre][b1 + k] - dexc[pre][b0 + k],
	// and the bins over likewise; the other runs are walked bin by bin.
	// Empty: nc0 is walked bin by bin.
	struct Run {
		uint32_t b0, b1;
		double v;
		int32_t pre;
	};
	std::vector<Run> runs;
	std::vector<std::vector<double>> dexc;
	std::vector<std::vector<int32_t>> dover;
};

// Why: a newcomer's demand is mostly long runs of equal value (a phase
// covers whole bins at its rate), and the search scores every rotation of
// it; walking its bins made each link cost rotations x touched bins (an
// 80 %-duty job on 360 bins: 100,000 terms a link, most of an 8-node
// placement across leaves).  What adding demand v to bin b changes (in
// excess and in bins over) depends only on b and v, so for a value that
// covers many bins a prefix sum over the bins its runs can reach under
// the R rotations gives any run's change by two lookups.  A value gets one
// where that costs less than walking its bins (one-bin runs at a phase's
// edges do not); none at all when nothing is saved.  The sums are the
// same terms as the walk's, added in another order: the scores agree to
// rounding (tests/unit/test_newcomer_search.cpp).
void prefix_runs(NewcomerLink &x, const PinnedLoad &pl, uint32_t R)
{
	constexpr size_t kMaxValues = 16;
	const uint32_t A = pl.circle.bins;
	struct Value {
		double v;
		size_t bins = 0, runs = 0;
	};
	std::vector<Value> vals;
	std::vector<NewcomerLink::Run> runs;
	for (const auto &[b, v] : x.nc0) {
		if (!runs.empty() && runs.back().b1 == b && runs.back().v == v) {
			runs.back().b1++;
			vals[(size_t)runs.back().pre].bins++;
			continue;
		}
		size_t k = 0;
		while (k < vals.size() && vals[k].v != v)
			k++;
		if (k == vals.size()) {
			if (vals.size() == kMaxValues)
				return;
			vals.push_back(Value{v});
		}
		vals[k].bins++;
		vals[k].runs++;
		runs.push_back({b, b + 1, v, (int32_t)k});	/* value index for now */
	}
	// Rotations reach bins [0, A + K): b1 <= A and k < K, the whole
	// bins of the newcomer's gate period on this circle (R, the count of
	// rotations tried, is the fewest over the links).
	const uint32_t span = std::min(2 * A, A + pl.circle.rotations(pl.nc));
	std::vector<int32_t> pre(vals.size(), -1);
	double walk = 0.0, by_runs = 0.0;
	size_t n_pre = 0;
	for (size_t k = 0; k < vals.size(); k++) {
		double w = (double)vals[k].bins * R;
		double p = (double)vals[k].runs * R + (double)span;
		walk += w;
		if (p < w) {
			pre[k] = (int32_t)n_pre++;
			by_runs += p;
		} else {
			by_runs += w;
		}
	}
	if (!n_pre || by_runs >= walk)
		return;
	x.dexc.assign(n_pre, std::vector<double>((size_t)span + 1, 0.0));
	x.dover.assign(n_pre, std::vector<int32_t>((size_t)span + 1, 0));
	for (size_t k = 0; k < vals.size(); k++) {
		if (pre[k] < 0)
			continue;
		const double v = vals[k].v;
		double *e = x.dexc[(size_t)pre[k]].data();
		int32_t *o = x.dover[(size_t)pre[k]].data();
		for (uint32_t j = 0; j < span; j++) {
			long over = 0;
			e[j + 1] = e[j] + pl.add_to_bin(j < A ? j : j - A, v,
							x.nc_flows, &over);
			o[j + 1] = o[j] + (int32_t)over;
		}
	}
	for (NewcomerLink::Run &run : runs)
		run.pre = pre[(size_t)run.pre];
	x.runs = std::move(runs);
}

}  // namespace

NewcomerShift best_newcomer_shift(const std::vector<LinkProblem> &links,
				  int64_t newcomer_period_us,
				  const CircleOpts &o, bool stop_at_perfect,
				  bool by_runs)
{
	NewcomerShift r;
	if (newcomer_period_us <= 0)
		fail(ORRERY_EINVAL, "newcomer period " +
			std::to_string(newcomer_period_us) + " us is not positive");
	{
		__int128 q = o.quantum_us;
		r.gate_period_us = (int64_t)(((__int128)newcomer_period_us + q - 1) / q * q);
	}
	r.links.resize(links.size());
	if (links.empty())
		return r;

	// Everything that does not depend on the newcomer's shift, once.
	std::vector<NewcomerLink> nl(links.size());
	int64_t gate = 0;
	uint32_t R = o.bins;
	bool constrained = false;
	bool single_pipe = true;
	for (size_t l = 0; l < links.size(); l++) {
		const LinkProblem &lp = links[l];
		NewcomerLink &x = nl[l];
		const LinkCap cap(lp.capacity_mbps, lp.links, lp.flows);
		if (lp.pinned) {
			if (lp.pinned->newcomer_period_us != newcomer_period_us ||
			    lp.pinned->cap.mbps != cap.mbps ||
			    lp.pinned->cap.links != cap.links ||
			    lp.pinned->cap.flows != cap.flows ||
			    lp.pinned->circle.bins != o.bins)
				fail(ORRERY_EINTERNAL, "best_newcomer_shift: pinned load "
				     "built for another link or newcomer");
			x.p = lp.pinned;
		} else {
			x.own = pinned_load(lp.others, cap, newcomer_period_us, o);
			x.p = &x.own;
		}
		const PinnedLoad &pl = *x.p;
		gate = std::max(gate, pl.circle.gate_period_us[pl.nc]);
		if (lp.capacity_mbps == 0)
			continue;
		constrained = true;
		if (pl.model) {
			single_pipe = false;
			x.nc_flows = job_flows(lp.newcomer.flows,
					       lp.newcomer.flow_mult, cap);
		}
		std::vector<std::pair<uint32_t, double>> sp;
		discretise_sparse(lp.newcomer, 1.0, pl.circle, pl.nc, 0.0, sp);
		std::vector<double> d(pl.circle.bins, 0.0);
		for (const auto &[b, v] : sp)
			d[b] += v;
		for (uint32_t b = 0; b < pl.circle.bins; b++)
			if (d[b] != 0.0)
				x.nc0.emplace_back(b, d[b]);
		R = std::min(R, pl.circle.rotations(pl.nc));
	}
	if (by_runs)
		for (size_t l = 0; l < links.size(); l++)
			if (links[l].capacity_mbps != 0)
				prefix_runs(nl[l], *nl[l].p, R);
	r.gate_period_us = gate;
	if (!constrained)
		R = 1;

	std::vector<std::pair<uint32_t, double>> sparse;
	std::vector<double> add(o.bins, 0.0);
	std::vector<uint32_t> touched;
	std::vector<LinkOutcome> cand(links.size());
	double step = (double)gate / (double)R;
	bool have_best = false;
	for (uint32_t m = 0; m < R; m++) {
		// Scores are those of the exact multiple of the step; the
		// shift reported is that rounded to whole microseconds.
		const double se = (double)m * step;
		int64_t s = (int64_t)std::llround(se);
		if (s >= gate)
			break;
		double smin = 1.0, ssum = 0.0;
		for (size_t l = 0; l < links.size(); l++) {
			const NewcomerLink &n = nl[l];
			const PinnedLoad &x = *n.p;
			LinkOutcome &out = cand[l];
			if (links[l].capacity_mbps == 0) {
				out = LinkOutcome{};
				ssum += 1.0;
				continue;
			}
			const uint32_t A = x.circle.bins;
			const double C = x.C;
			double sl = std::fmod(se, (double)x.circle.gate_period_us[x.nc]);
			double q_real = sl * (double)A / (double)x.circle.perimeter_us;
			double q = std::nearbyint(q_real);
			const bool whole_bins = std::fabs(q_real - q) < 1e-6;
			double excess = x.excess;
			long over = (long)x.over;
			// Only the bins the newcomer touches change the excess.
			if (whole_bins && !n.runs.empty()) {
				uint32_t k = (uint32_t)q % A;
				double d = 0.0;
				for (const auto &run : n.runs) {
					if (run.pre >= 0) {
						const double *e = n.dexc[(size_t)run.pre].data();
						const int32_t *ov = n.dover[(size_t)run.pre].data();
						d += e[run.b1 + k] - e[run.b0 + k];
						over += ov[run.b1 + k] - ov[run.b0 + k];
						continue;
					}
					for (uint32_t b = run.b0; b < run.b1; b++)
						d += x.add_to_bin(b + k >= A ? b + k - A : b + k,
								  run.v, n.nc_flows, &over);
				}
				excess += d;
				r.run_evaluations++;
			} else if (whole_bins) {
				uint32_t k = (uint32_t)q % A;
				for (const auto &[b, v] : n.nc0)
					excess += x.add_to_bin(b + k >= A ? b + k - A : b + k,
							       v, n.nc_flows, &over);
			} else {
				discretise_sparse(links[l].newcomer, 1.0, x.circle,
						  x.nc, sl, sparse);
				touched.clear();
				for (const auto &[b, v] : sparse) {
					if (add[b] == 0.0)
						touched.push_back(b);
					add[b] += v;
				}
				for (uint32_t b : touched) {
					excess += x.add_to_bin(b, add[b], n.nc_flows, &over);
					add[b] = 0.0;
				}
			}
			r.evaluations++;
			out.score = 1.0 - excess / C / (double)A;
			out.over_fraction = (double)over / (double)A;
			smin = std::min(smin, out.score);
			ssum += out.score;
		}
		double smean = ssum / (double)links.size();
		if (m == 0)
			for (size_t l = 0; l < links.size(); l++)
				r.links[l].score_unshifted = cand[l].score;
		// Strictly better only: ties keep the smaller shift.
		const double eps = 1e-12;
		if (!have_best || smin > r.score_min + eps ||
		    (smin > r.score_min - eps && smean > r.score_mean + eps)) {
			have_best = true;
			r.shift_us = s;
			r.score_min = smin;
			r.score_mean = smean;
			for (size_t l = 0; l < links.size(); l++) {
				r.links[l].score = cand[l].score;
				r.links[l].over_fraction = cand[l].over_fraction;
			}
		}
		// On single pipes a score never exceeds 1: the newcomer's
		// demand is never negative, so each bin's excess can only
		// grow (rounding is monotone too).  Once the best is within
		// eps of 1 on both keys no later shift passes the test above,
		// and the rest of the search cannot change the answer.  (The
		// ECMP model is not monotone in flows: searched to the end.)
		if (stop_at_perfect && single_pipe && r.score_min + eps >= 1.0 &&
		    r.score_mean + eps >= 1.0)
			break;
	}
	return r;
}

}  // namespace orrery
