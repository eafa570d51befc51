// bench_newcomer - cost of best_newcomer_shift, the search that runs in
// slurmctld for every placement candidate: one newcomer across 4 links,
// 20 pinned jobs on each.  The C API reaches it only through a cluster,
// so this program calls liborrery's internals.
//
// Baseline, measured in the same run: scoring one of those links from
// scratch with every shift given (discretise 21 jobs, sum, score).  The
// newcomer search evaluates R candidate shifts x 4 links; "naive" is what
// that would cost at one baseline scoring each.  "walk_us" is the same
// search visiting the newcomer's bins one by one (by_runs off), the
// baseline of its runs-and-prefix-sums scoring (circle/score.cpp): the
// last two cases give the newcomer one phase of 50 % and 80 % duty, the
// shape that scoring is for.
//
// Usage: bench_newcomer [seconds-per-figure]   (default 0.5)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "circle/score.hpp"

using namespace orrery;

namespace {

double now()
{
	return std::chrono::duration<double>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

// duty_pct 0: 20-40 % of the period, at a random offset.
Pattern job(std::mt19937_64 &rng, int64_t period_ms, int duty_pct = 0)
{
	Pattern p;
	p.period_us = period_ms * 1000;
	int64_t len = duty_pct ? p.period_us * duty_pct / 100
			       : p.period_us / 5 + (int64_t)(rng() % (uint64_t)(p.period_us / 5));
	if (len >= p.period_us)
		len = p.period_us - 1;
	int64_t off = (int64_t)(rng() % (uint64_t)(p.period_us - len));
	p.phases.push_back(Phase{off, len, 5000 + rng() % 10000, Collective::Ring});
	return p;
}

}  // namespace

int main(int argc, char **argv)
{
	double budget = argc > 1 ? std::atof(argv[1]) : 0.5;
	if (budget <= 0)
		budget = 0.5;
	std::mt19937_64 rng(42);
	CircleOpts o;
	const uint64_t cap = 50000;

	std::printf("# best_newcomer_shift: 4 links x 20 pinned jobs, default "
		    "options, capacity %llu Mb/s\n", (unsigned long long)cap);
	std::printf("# baseline: one link scored from scratch (21 jobs, shifts given)\n");
	std::printf("%-26s %10s %8s %10s %12s %12s %9s %10s %8s\n", "periods", "perimeter",
		    "evals", "base_us", "newcomer_us", "evals/s", "vs_naive",
		    "walk_us", "vs_walk");

	struct Case {
		const char *name;
		std::vector<int64_t> periods_ms;
		int newcomer_duty_pct;
	} cases[] = {
		{"all 100 ms", {100}, 0},
		{"100/200 ms", {100, 200}, 0},
		{"100/120/150/200 ms", {100, 120, 150, 200}, 0},
		{"100/200 ms, newcomer 50%", {100, 200}, 50},
		{"100/200 ms, newcomer 80%", {100, 200}, 80},
	};
	for (const Case &cs : cases) {
		std::vector<LinkProblem> links(4);
		for (auto &l : links) {
			l.capacity_mbps = cap;
			for (int j = 0; j < 20; j++) {
				Pattern p = job(rng, cs.periods_ms[j % cs.periods_ms.size()]);
				int64_t shift = (int64_t)(rng() % (uint64_t)p.period_us);
				l.others.push_back(LinkJob{p, shift});
			}
			l.newcomer = job(rng, 100, cs.newcomer_duty_pct);
		}
		const int64_t nperiod = links[0].newcomer.period_us;

		// Baseline: one full scoring of link 0 with the newcomer at 0.
		std::vector<LinkJob> all = links[0].others;
		all.push_back(LinkJob{links[0].newcomer, int64_t(0)});
		Circle c = circle_of(all, o);
		std::vector<int64_t> shifts;
		for (const LinkJob &j : all)
			shifts.push_back(*j.fixed_shift_us);
		long calls = 0;
		double t0 = now(), t, sink = 0;
		do {
			sink += score_shifts(all, c, shifts, cap, nullptr);
			calls++;
			t = now() - t0;
		} while (t < budget);
		double base = t / (double)calls;

		NewcomerShift r;
		calls = 0;
		t0 = now();
		do {
			r = best_newcomer_shift(links, nperiod, o);
			calls++;
			t = now() - t0;
		} while (t < budget);
		double per = t / (double)calls;
		NewcomerShift w;
		calls = 0;
		t0 = now();
		do {
			w = best_newcomer_shift(links, nperiod, o, true, false);
			calls++;
			t = now() - t0;
		} while (t < budget);
		double walk = t / (double)calls;
		char per_name[32];
		std::snprintf(per_name, sizeof(per_name), "%.0fms",
			      (double)c.perimeter_us / 1000.0);
		std::printf("%-26s %10s %8llu %10.1f %12.1f %12.3g %8.1fx %10.1f %7.1fx\n",
			    cs.name, per_name, (unsigned long long)r.evaluations,
			    base * 1e6, per * 1e6, (double)r.evaluations / per,
			    base * (double)r.evaluations / per, walk * 1e6, walk / per);
		std::printf("#   shift %lld us of %lld, score min %.4f mean %.4f; %llu of %llu by runs; walk: shift %lld us, score min %.4f%s\n",
			    (long long)r.shift_us, (long long)r.gate_period_us,
			    r.score_min, r.score_mean,
			    (unsigned long long)r.run_evaluations,
			    (unsigned long long)r.evaluations, (long long)w.shift_us,
			    w.score_min, sink < 0 ? " (never)" : "");
	}
	return 0;
}
