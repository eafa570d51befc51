// The newcomer's shift search (best_newcomer_shift) on random links, held
// to the answers it must give however its work is shared or cut short:
//   - the pinned jobs' load built once and reused for another newcomer on
//     the same link (what one placement does across its candidates) gives
//     bit for bit the answer of a search that builds it itself;
//   - that load is the running jobs' demand: the unshifted score matches
//     score_shifts() of every job recomputed from scratch;
//   - stopping at the first perfect shift gives bit for bit the answer of
//     the search that scores every candidate shift (ECMP links included,
//     where the search must not stop);
//   - scoring rotations by runs and prefix sums gives the shift of the
//     bin-by-bin walk, and its scores to rounding.
#include "circle/pinned_load.hpp"
#include "circle/score.hpp"
#include "core/error.hpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

// After the orrery headers: cmocka defines a fail() macro.
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

using namespace orrery;

namespace {

// Periods from a short list (so circles repeat and some stay small) or
// random; 1-3 phases; demands around a quarter to all of a link.
Pattern random_pattern(std::mt19937_64 &g)
{
	static const int64_t common_ms[] = {50, 100, 150, 200, 400};
	Pattern p;
	p.period_us = g() % 2 ? common_ms[g() % 5] * 1000
			      : (int64_t)(20 + g() % 481) * 1000 + (int64_t)(g() % 1000);
	size_t n = 1 + g() % 3;
	int64_t slot = p.period_us / (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		int64_t dur = std::max<int64_t>(1, p.period_us * (int64_t)(5 + g() % 45) / 100);
		dur = std::min(dur, slot);
		int64_t off = (int64_t)i * slot + (int64_t)(g() % (uint64_t)(slot - dur + 1));
		p.phases.push_back(Phase{off, dur, (uint64_t)(5000 + g() % 45000),
					 Collective::Ring});
	}
	p.flows = g() % 3 == 0 ? 1 + (uint32_t)(g() % 8) : 0;
	return p;
}

struct RandomLink {
	LinkCap cap;
	std::vector<LinkJob> others;
};

RandomLink random_link(std::mt19937_64 &g)
{
	RandomLink l;
	// Some unknown, some ample (perfect scores), some tight; a few ECMP.
	static const uint64_t caps[] = {0, 400000, 50000, 25000};
	uint64_t mbps = caps[g() % 4];
	uint32_t links = g() % 5 == 0 ? 2 + (uint32_t)(g() % 3) : 1;
	l.cap = LinkCap(mbps, links, 0);
	size_t n = 1 + g() % 4;
	for (size_t j = 0; j < n; j++) {
		Pattern p = random_pattern(g);
		int64_t shift = (int64_t)(g() % (uint64_t)p.period_us);
		l.others.push_back(LinkJob{p, shift});
	}
	return l;
}

LinkProblem problem(const RandomLink &l, const Pattern &newcomer, const PinnedLoad *pinned)
{
	LinkProblem lp;
	lp.capacity_mbps = l.cap.mbps;
	lp.links = l.cap.links;
	lp.flows = l.cap.flows;
	if (!pinned)
		lp.others = l.others;
	lp.pinned = pinned;
	lp.newcomer = newcomer;
	return lp;
}

void assert_same(const NewcomerShift &a, const NewcomerShift &b)
{
	assert_int_equal(a.shift_us, b.shift_us);
	assert_int_equal(a.gate_period_us, b.gate_period_us);
	assert_true(a.score_min == b.score_min);
	assert_true(a.score_mean == b.score_mean);
	assert_int_equal(a.links.size(), b.links.size());
	for (size_t l = 0; l < a.links.size(); l++) {
		assert_true(a.links[l].score == b.links[l].score);
		assert_true(a.links[l].over_fraction == b.links[l].over_fraction);
		assert_true(a.links[l].score_unshifted == b.links[l].score_unshifted);
	}
}

// A newcomer scaled as pattern_on_link would for another crossing: same
// period and timing, other demands and flows.
Pattern rescaled(const Pattern &p, std::mt19937_64 &g)
{
	Pattern q = p;
	for (Phase &ph : q.phases)
		ph.demand_mbps = ph.demand_mbps * (1 + g() % 4) / 2 + 1;
	q.flow_mult = 1 + (uint32_t)(g() % 6);
	return q;
}

}  // namespace

// One load, built once per link, serves newcomers with other demands on
// that link exactly as a load built for each of them.
static void shared_load_same_answer(void **state)
{
	(void)state;
	std::mt19937_64 g(20261201);
	const CircleOpts o;
	size_t contended = 0;
	for (int round = 0; round < 150; round++) {
		std::vector<RandomLink> ls(1 + g() % 4);
		for (RandomLink &l : ls)
			l = random_link(g);
		Pattern nc = random_pattern(g);
		std::vector<PinnedLoad> loads;
		for (const RandomLink &l : ls)
			loads.push_back(pinned_load(l.others, l.cap, nc.period_us, o));
		for (int k = 0; k < 3; k++) {
			std::vector<LinkProblem> own, shared;
			for (size_t i = 0; i < ls.size(); i++) {
				Pattern mine = k == 0 ? nc : rescaled(nc, g);
				own.push_back(problem(ls[i], mine, nullptr));
				shared.push_back(problem(ls[i], mine, &loads[i]));
			}
			NewcomerShift a = best_newcomer_shift(own, nc.period_us, o);
			NewcomerShift b = best_newcomer_shift(shared, nc.period_us, o);
			assert_same(a, b);
			contended += a.score_min < 1.0;
		}
	}
	// Not only trivial answers were compared.
	assert_true(contended > 50);
}

// The load is the running jobs' demand: with the newcomer at shift 0 the
// search's incremental score equals the from-scratch score of all jobs.
static void load_is_the_running_jobs(void **state)
{
	(void)state;
	std::mt19937_64 g(42);
	const CircleOpts o;
	size_t below = 0;
	for (int round = 0; round < 300; round++) {
		RandomLink l = random_link(g);
		if (!l.cap.mbps)
			continue;
		Pattern nc = random_pattern(g);
		NewcomerShift r = best_newcomer_shift({problem(l, nc, nullptr)}, nc.period_us, o);
		std::vector<LinkJob> all = l.others;
		all.push_back(LinkJob{nc, 0});
		Circle c = circle_of(all, o);
		std::vector<int64_t> shifts;
		for (const LinkJob &j : all)
			shifts.push_back(*j.fixed_shift_us);
		double want = score_shifts(all, c, shifts, l.cap, nullptr);
		if (std::fabs(r.links[0].score_unshifted - want) > 1e-9) {
			print_error("round %d: unshifted %.15f, from scratch %.15f\n", round,
				    r.links[0].score_unshifted, want);
			fail();
		}
		below += want < 1.0;
	}
	assert_true(below > 50);
}

// Stopping at the first perfect shift changes no answer, and it does stop
// (some searches end early, so the comparison is not vacuous).
static void stop_at_perfect_same_answer(void **state)
{
	(void)state;
	std::mt19937_64 g(7);
	const CircleOpts o;
	size_t stopped = 0, imperfect = 0;
	for (int round = 0; round < 400; round++) {
		std::vector<LinkProblem> ps(1 + g() % 4);
		Pattern nc = random_pattern(g);
		for (LinkProblem &p : ps)
			p = problem(random_link(g), nc, nullptr);
		NewcomerShift all = best_newcomer_shift(ps, nc.period_us, o, false);
		NewcomerShift cut = best_newcomer_shift(ps, nc.period_us, o, true);
		assert_same(all, cut);
		assert_true(cut.evaluations <= all.evaluations);
		stopped += cut.evaluations < all.evaluations;
		imperfect += all.score_min < 1.0;
	}
	print_message("%zu of 400 stopped early, %zu imperfect\n", stopped, imperfect);
	assert_true(stopped > 20);
	assert_true(imperfect > 50);
}

// Runs and prefix sums (score.cpp, prefix_runs) against the bin-by-bin
// walk: the same shift, the same bins over, the same scores up to the
// order the terms were added in.  Random links as above, and box-shaped
// newcomers of high duty on tight links (the case the runs are for:
// long runs of one value), so that both paths are taken often.
static void runs_same_answer(void **state)
{
	(void)state;
	std::mt19937_64 g(20261204);
	const CircleOpts o;
	uint64_t by_runs = 0, total = 0;
	size_t imperfect = 0;
	for (int round = 0; round < 400; round++) {
		std::vector<LinkProblem> ps(1 + g() % 4);
		Pattern nc = random_pattern(g);
		if (round % 2) {	/* one long phase, 50-95 % duty */
			nc.phases.resize(1);
			nc.phases[0].offset_us = 0;
			nc.phases[0].duration_us = nc.period_us * (int64_t)(50 + g() % 46) / 100;
		}
		for (LinkProblem &p : ps)
			p = problem(random_link(g), nc, nullptr);
		NewcomerShift walk = best_newcomer_shift(ps, nc.period_us, o, true, false);
		NewcomerShift runs = best_newcomer_shift(ps, nc.period_us, o, true, true);
		assert_int_equal(walk.run_evaluations, 0);
		assert_int_equal(runs.shift_us, walk.shift_us);
		assert_int_equal(runs.gate_period_us, walk.gate_period_us);
		assert_int_equal(runs.evaluations, walk.evaluations);
		assert_true(std::fabs(runs.score_min - walk.score_min) < 1e-12);
		assert_true(std::fabs(runs.score_mean - walk.score_mean) < 1e-12);
		for (size_t l = 0; l < ps.size(); l++) {
			assert_true(std::fabs(runs.links[l].score - walk.links[l].score) < 1e-12);
			assert_true(runs.links[l].over_fraction == walk.links[l].over_fraction);
			assert_true(std::fabs(runs.links[l].score_unshifted -
					      walk.links[l].score_unshifted) < 1e-12);
		}
		by_runs += runs.run_evaluations;
		total += runs.evaluations;
		imperfect += walk.score_min < 1.0;
	}
	print_message("%llu of %llu link scores by runs, %zu imperfect\n",
		      (unsigned long long)by_runs, (unsigned long long)total, imperfect);
	assert_true(by_runs > total / 4);
	assert_true(imperfect > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shared_load_same_answer),
		cmocka_unit_test(load_is_the_running_jobs),
		cmocka_unit_test(stop_at_perfect_same_answer),
		cmocka_unit_test(runs_same_answer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
