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

// Greedy placement at common period G, job j gated at period P[j] (G
// or a whole fraction of it: G / P[j] slots per common period, its
// intervals repeated at every P[j]); false if some job finds no shift
// that adds no excess.
bool pack(const std::vector<std::vector<JobOnLink>> &jl,
	  const std::vector<DivLink> &links, const std::vector<size_t> &order,
	  int64_t G, const std::vector<int64_t> &P, std::vector<int64_t> &shift)
{
	std::vector<std::vector<Iv>> placed(links.size());
	const size_t kMaxCandidates = 4096;
	for (size_t j : order) {
		const int64_t Pj = P[j];
		const int64_t slots = G / Pj;
		std::vector<int64_t> cand{0};
		for (const JobOnLink &x : jl[j])
			for (const Iv &e : placed[x.link])
				for (const Iv &v : x.base)
					cand.push_back(mod(e.b - v.a, Pj));
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
				for (int64_t r = 0; r < slots; r++)
					for (const Iv &v : x.base)
						put(with, v.a, v.b, s + r * Pj, G, v.d);
				// Tolerance: one microsecond of the link's capacity.
				if (excess(with, C) > before + C * 1.0) {
					ok = false;
					break;
				}
			}
			if (!ok)
				continue;
			for (const JobOnLink &x : jl[j])
				for (int64_t r = 0; r < slots; r++)
					for (const Iv &v : x.base)
						put(placed[x.link], v.a, v.b, s + r * Pj, G, v.d);
			shift[j] = s;
			found = true;
			break;
		}
		if (!found)
			return false;
	}
	return true;
}

// What both searches need: each job's intervals per link, its
// communication time and span, and the bounds on the common period.
struct Prepared {
	std::vector<std::vector<JobOnLink>> jl;
	std::vector<int64_t> comm, span, iso;
	std::vector<size_t> order;        // the most communication first
	int64_t lower = 0, upper = 0;     // rounded to the quantum
	int64_t q = 1;
};

Prepared prepare(const std::vector<Pattern> &jobs, const std::vector<DivLink> &links,
		 const CircleOpts &o)
{
	const size_t n = jobs.size();
	Prepared pr;
	pr.jl.resize(n);
	pr.comm.assign(n, 0);
	pr.span.assign(n, 0);
	int64_t lower = 0;
	for (size_t j = 0; j < n; j++) {
		pr.iso.push_back(isolated_iteration_us(jobs[j]));
		lower = std::max(lower, pr.iso[j]);
		auto iv = run_alone(jobs[j]);
		for (const auto &[a, b] : iv)
			pr.comm[j] += b - a;
		if (!iv.empty())
			pr.span[j] = iv.back().second - iv.front().first;
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
				pr.jl[j].push_back(std::move(x));
		}
		if (L.capacity_mbps)
			lower = std::max(lower, (int64_t)std::ceil(bytes / L.effective_mbps()));
	}
	pr.q = std::max<int64_t>(1, o.quantum_us);
	int64_t upper = std::max(lower, std::accumulate(pr.span.begin(), pr.span.end(),
							(int64_t)0));
	pr.lower = (lower + pr.q - 1) / pr.q * pr.q;
	pr.upper = (std::max(upper, pr.lower) + pr.q - 1) / pr.q * pr.q;
	pr.order.resize(n);
	std::iota(pr.order.begin(), pr.order.end(), 0);
	std::stable_sort(pr.order.begin(), pr.order.end(),
			 [&](size_t a, size_t b) { return pr.comm[a] > pr.comm[b]; });
	return pr;
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
	const Prepared pr = prepare(jobs, links, o);
	const int64_t q = pr.q, lower = pr.lower, upper = pr.upper;
	auto round_up = [&](int64_t v) { return (v + q - 1) / q * q; };

	const int64_t steps = 64;
	int64_t step = round_up(std::max<int64_t>(q, (upper - lower + steps - 1) / steps));
	for (int64_t G = lower;; G = std::min(upper, G + step)) {
		td.periods_tried++;
		std::vector<int64_t> sh(n, 0);
		if (pack(pr.jl, links, pr.order, G, std::vector<int64_t>(n, G), sh)) {
			td.period_us = G;
			td.shift_us = sh;
			td.job_period_us.assign(n, G);
			return td;
		}
		if (G >= upper)
			break;
	}
	// Serialise: each job's span after the previous one's (fits at
	// upper by construction).
	td.period_us = upper;
	td.job_period_us.assign(n, upper);
	int64_t at = 0;
	for (size_t j : pr.order) {
		auto iv = run_alone(jobs[j]);
		if (iv.empty())
			continue;
		td.shift_us[j] = mod(at - iv.front().first, upper);
		at += pr.span[j];
	}
	return td;
}

TimeDivision divide_time_harmonic(const std::vector<Pattern> &jobs,
				  const std::vector<DivLink> &links, const CircleOpts &o,
				  double below_slowdown)
{
	const size_t n = jobs.size();
	TimeDivision td;
	td.shift_us.assign(n, 0);
	if (n < 2)
		return td;
	const Prepared pr = prepare(jobs, links, o);
	const int64_t q = pr.q;
	const int64_t longest = *std::max_element(pr.iso.begin(), pr.iso.end());
	if (longest <= 0)
		return td;
	// Candidate common periods: whole multiples of each job's
	// iteration, rounded up to the quantum.
	std::vector<int64_t> hs;
	for (size_t j = 0; j < n; j++)
		for (int64_t m = 1; m <= (int64_t)kMaxSlots; m++) {
			int64_t H = (m * pr.iso[j] + q - 1) / q * q;
			if (H >= longest && H <= o.cap_us)
				hs.push_back(H);
		}
	std::sort(hs.begin(), hs.end());
	hs.erase(std::unique(hs.begin(), hs.end()), hs.end());

	struct Cand {
		double bound;   // sum over jobs of period / isolated iteration
		int64_t H;
		std::vector<int64_t> P;
	};
	std::vector<Cand> cands;
	for (int64_t H : hs) {
		Cand c{0, H, std::vector<int64_t>(n, H)};
		bool several = false, ok = true;
		for (size_t j = 0; j < n; j++) {
			// The most slots whose period still holds an iteration
			// and divides H exactly (so the grids never drift apart);
			// H >= every iteration, so at least one.
			int64_t m = std::min<int64_t>((int64_t)kMaxSlots,
						      pr.iso[j] > 0 ? H / pr.iso[j] : 1);
			while (m > 1 && H % m)
				m--;
			c.P[j] = H / m;
			several |= m > 1;
			c.bound += (double)c.P[j] / (double)std::max<int64_t>(1, pr.iso[j]);
		}
		if (!several)
			continue;  // all single slots: divide_time's search
		if (below_slowdown > 0 && c.bound >= below_slowdown)
			continue;  // cannot beat what the caller has
		// Every link must have room for its jobs' bytes of H.
		for (size_t l = 0; l < links.size() && ok; l++) {
			if (!links[l].capacity_mbps)
				continue;
			double need = 0;
			for (size_t j = 0; j < n; j++)
				for (const JobOnLink &x : pr.jl[j])
					if (x.link == l)
						for (const Iv &v : x.base)
							need += v.d * (double)(v.b - v.a) *
								(double)(H / c.P[j]);
			ok = need <= links[l].effective_mbps() * (double)H;
		}
		if (ok)
			cands.push_back(std::move(c));
	}
	std::stable_sort(cands.begin(), cands.end(),
			 [](const Cand &a, const Cand &b) { return a.bound < b.bound; });
	for (size_t i = 0; i < cands.size() && i < kMaxHarmonicTries; i++) {
		td.periods_tried++;
		std::vector<int64_t> sh(n, 0);
		if (pack(pr.jl, links, pr.order, cands[i].H, cands[i].P, sh)) {
			td.period_us = cands[i].H;
			td.job_period_us = cands[i].P;
			td.shift_us = sh;
			return td;
		}
	}
	return td;
}

}  // namespace orrery
