// Time division: one common period G and one slot per job such that no
// link of the group is over capacity.
//
// Each job's Up phases, as they run alone (back to back at their
// offsets), become intervals on a circle of perimeter G, one set per link
// it crosses, with its demand there clamped to the link's capacity (a job
// cannot use more than the link alone).  Jobs are placed one after the
// other, the most communication first; a job goes at the smallest shift
// that adds no excess on any of its links, chosen among 0 and the shifts
// that start one of its phases where a phase already placed ends (a
// packing that is tight on every link has this form).  G is searched on
// a grid from the lower bound max(longest isolated iteration, busiest
// link's bytes / capacity) to the serialisation of the jobs'
// communication spans (which always fits); the first G that fits wins.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "tdiv/tdiv.hpp"

namespace orrery {

namespace {

struct Iv {
	int64_t a, b;  // [a, b) in [0, G)
	double d;
};

// Effective Up intervals of a pattern alone: (start, end) per phase.
std::vector<std::pair<int64_t, int64_t>> run_alone(const Pattern &p)
{
	std::vector<std::pair<int64_t, int64_t>> out;
	int64_t t = 0;
	for (const Phase &ph : p.phases) {
		int64_t s = std::max(t, ph.offset_us);
		t = s + ph.duration_us;
		out.emplace_back(s, t);
	}
	return out;
}

int64_t mod(int64_t a, int64_t m)
{
	int64_t r = a % m;
	return r < 0 ? r + m : r;
}

// Add [a, b) (b - a <= G) shifted by s onto the circle, split at G.
void put(std::vector<Iv> &out, int64_t a, int64_t b, int64_t s, int64_t G, double d)
{
	int64_t x = mod(a + s, G), len = b - a;
	if (len <= 0)
		return;
	if (x + len <= G) {
		out.push_back(Iv{x, x + len, d});
	} else {
		out.push_back(Iv{x, G, d});
		out.push_back(Iv{0, x + len - G, d});
	}
}

// Integral over the circle of max(0, total - C).
double excess(const std::vector<Iv> &ivs, double C)
{
	std::vector<std::pair<int64_t, double>> ev;
	ev.reserve(2 * ivs.size());
	for (const Iv &v : ivs) {
		ev.emplace_back(v.a, v.d);
		ev.emplace_back(v.b, -v.d);
	}
	std::sort(ev.begin(), ev.end());
	double tot = 0, ex = 0;
	for (size_t i = 0; i < ev.size(); i++) {
		tot += ev[i].second;
		if (i + 1 < ev.size() && tot > C)
			ex += (tot - C) * (double)(ev[i + 1].first - ev[i].first);
	}
	return ex;
}

struct JobOnLink {
	size_t link;
	std::vector<Iv> base;  // at shift 0, not yet wrapped: [a, b) with demand
};

// Greedy placement at period G; false if some job finds no shift that
// adds no excess.
bool pack(const std::vector<std::vector<JobOnLink>> &jl,
	  const std::vector<DivLink> &links, const std::vector<size_t> &order,
	  int64_t G, std::vector<int64_t> &shift)
{
	std::vector<std::vector<Iv>> placed(links.size());
	const size_t kMaxCandidates = 4096;
	for (size_t j : order) {
		std::vector<int64_t> cand{0};
		for (const JobOnLink &x : jl[j])
			for (const Iv &e : placed[x.link])
				for (const Iv &v : x.base)
					cand.push_back(mod(e.b - v.a, G));
		std::sort(cand.begin(), cand.end());
		cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
		if (cand.size() > kMaxCandidates) {
			std::vector<int64_t> thin;
			double step = (double)cand.size() / (double)kMaxCandidates;
			for (size_t i = 0; i < kMaxCandidates; i++)
				thin.push_back(cand[(size_t)((double)i * step)]);
			cand.swap(thin);
		}
		bool found = false;
		for (int64_t s : cand) {
			bool ok = true;
			for (const JobOnLink &x : jl[j]) {
				const double C = links[x.link].effective_mbps();
				std::vector<Iv> with = placed[x.link];
				double before = excess(with, C);
				for (const Iv &v : x.base)
					put(with, v.a, v.b, s, G, v.d);
				// Tolerance: one microsecond of the link's capacity.
				if (excess(with, C) > before + C * 1.0) {
					ok = false;
					break;
				}
			}
			if (!ok)
				continue;
			for (const JobOnLink &x : jl[j])
				for (const Iv &v : x.base)
					put(placed[x.link], v.a, v.b, s, G, v.d);
			shift[j] = s;
			found = true;
			break;
		}
		if (!found)
			return false;
	}
	return true;
}

}  // namespace

TimeDivision divide_time(const std::vector<Pattern> &jobs,
			 const std::vector<DivLink> &links, const CircleOpts &o)
{
	const size_t n = jobs.size();
	TimeDivision td;
	td.shift_us.assign(n, 0);
	if (n == 0)
		return td;
	std::vector<std::vector<JobOnLink>> jl(n);
	std::vector<int64_t> comm(n, 0), span(n, 0);
	int64_t lower = 0;
	for (size_t j = 0; j < n; j++) {
		lower = std::max(lower, isolated_iteration_us(jobs[j]));
		auto iv = run_alone(jobs[j]);
		for (const auto &[a, b] : iv)
			comm[j] += b - a;
		if (!iv.empty())
			span[j] = iv.back().second - iv.front().first;
	}
	for (size_t l = 0; l < links.size(); l++) {
		const DivLink &L = links[l];
		double bytes = 0;
		for (size_t m = 0; m < L.jobs.size(); m++) {
			size_t j = L.jobs[m];
			if (j >= n)
				fail(ORRERY_EINTERNAL, "divide_time: link names job " +
				     std::to_string(j));
			auto iv = run_alone(jobs[j]);
			JobOnLink x{l, {}};
			const Pattern &pl = L.patterns[m];
			for (size_t ph = 0; ph < iv.size() && ph < pl.phases.size(); ph++) {
				double d = std::min((double)pl.phases[ph].demand_mbps,
						    (double)L.capacity_mbps);
				if (d <= 0)
					continue;
				x.base.push_back(Iv{iv[ph].first, iv[ph].second, d});
				bytes += d * (double)(iv[ph].second - iv[ph].first);
			}
			if (!x.base.empty())
				jl[j].push_back(std::move(x));
		}
		if (L.capacity_mbps)
			lower = std::max(lower, (int64_t)std::ceil(bytes / L.effective_mbps()));
	}
	const int64_t q = std::max<int64_t>(1, o.quantum_us);
	auto round_up = [&](int64_t v) { return (v + q - 1) / q * q; };
	int64_t upper = std::max(lower, std::accumulate(span.begin(), span.end(), (int64_t)0));
	lower = round_up(lower);
	upper = round_up(std::max(upper, lower));

	std::vector<size_t> order(n);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(),
			 [&](size_t a, size_t b) { return comm[a] > comm[b]; });

	const int64_t steps = 64;
	int64_t step = round_up(std::max<int64_t>(q, (upper - lower + steps - 1) / steps));
	for (int64_t G = lower;; G = std::min(upper, G + step)) {
		td.periods_tried++;
		std::vector<int64_t> sh(n, 0);
		if (pack(jl, links, order, G, sh)) {
			td.period_us = G;
			td.shift_us = sh;
			return td;
		}
		if (G >= upper)
			break;
	}
	// Serialise: each job's span after the previous one's (fits at
	// upper by construction).
	td.period_us = upper;
	int64_t at = 0;
	for (size_t j : order) {
		auto iv = run_alone(jobs[j]);
		if (iv.empty())
			continue;
		td.shift_us[j] = mod(at - iv.front().first, upper);
		at += span[j];
	}
	return td;
}

}  // namespace orrery
