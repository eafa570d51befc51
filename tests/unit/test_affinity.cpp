// Consistent shifts across links (lib/affinity): loops and trees.
#include "affinity/affinity.hpp"

#include <cmath>
#include <cstdio>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

using namespace orrery;

namespace {

const uint64_t D = 50000;

Pattern one_phase(int64_t period_ms, int64_t up_ms)
{
	Pattern p;
	p.period_us = period_ms * 1000;
	p.phases.push_back(Phase{0, up_ms * 1000, D, Collective::Ring});
	return p;
}

AffinityLink link(uint32_t id, uint64_t cap, std::vector<size_t> jobs,
		  const std::vector<Pattern> &pat)
{
	AffinityLink l;
	l.id = id;
	l.capacity_mbps = cap;
	for (size_t j : jobs) {
		l.jobs.push_back(j);
		l.patterns.push_back(pat[j]);
	}
	return l;
}

void near_at(double a, double b, int line)
{
	if (std::fabs(a - b) > 1e-9) {
		print_error("%.12f != %.12f (line %d)\n", a, b, line);
		fail();
	}
}
#define near(a, b) near_at((a), (b), __LINE__)

}  // namespace

// Three 50%-duty jobs pairwise on three links of capacity D: each link
// alone wants its two jobs half a period apart, which no assignment can
// give all three pairs.  Equal gains: ties go by id, so links 10 and 11
// form the tree and 12 closes the loop.  t0 = 0, t1 = 50 ms (link 10),
// t2 = 50 + 50 = 0 mod 100 (link 11): link 12 sees both in step, 0.5.
static void triangle_loop(void **)
{
	std::vector<Pattern> p(3, one_phase(100, 50));
	std::vector<AffinityLink> links = {link(12, D, {0, 2}, p),
					   link(10, D, {0, 1}, p),
					   link(11, D, {1, 2}, p)};
	AffinityResult r = solve_affinity({100000, 100000, 100000}, links,
					  CircleOpts{});
	assert_int_equal(r.loops, 1);
	assert_int_equal(r.shift_us[0], 0);
	assert_int_equal(r.shift_us[1], 50000);
	assert_int_equal(r.shift_us[2], 0);
	// Results keep the input order.
	assert_int_equal(r.links[0].id, 12);
	assert_true(r.links[0].loop_closing);
	near(r.links[0].score_optimal, 1.0);
	near(r.links[0].score_achieved, 0.5);
	assert_true(r.links[0].score_achieved < r.links[0].score_optimal);
	for (size_t l = 1; l < 3; l++) {
		assert_false(r.links[l].loop_closing);
		near(r.links[l].score_achieved, r.links[l].score_optimal);
	}
}

// The spanning tree keeps the links that gain most from rotation: a link
// with room for both of its jobs (capacity 2D) gains nothing, so it is
// the one left to close the loop, and nothing is lost on it.
static void loop_closed_by_least_gain(void **)
{
	std::vector<Pattern> p(3, one_phase(100, 50));
	std::vector<AffinityLink> links = {link(1, 2 * D, {0, 1}, p),
					   link(2, D, {1, 2}, p),
					   link(3, D, {0, 2}, p)};
	AffinityResult r = solve_affinity({100000, 100000, 100000}, links,
					  CircleOpts{});
	assert_int_equal(r.loops, 1);
	assert_true(r.links[0].loop_closing);
	assert_false(r.links[1].loop_closing);
	assert_false(r.links[2].loop_closing);
	for (const auto &l : r.links)
		near(l.score_achieved, l.score_optimal);
	near(r.links[1].score_achieved, 1.0);
	near(r.links[2].score_achieved, 1.0);
}

// A chain of links (no loop) with mixed periods: every link achieves its
// optimum, and a job on no link keeps shift 0.
static void tree_achieves_optimum(void **)
{
	std::vector<Pattern> p = {one_phase(100, 50), one_phase(100, 50),
				  one_phase(150, 50), one_phase(100, 30),
				  one_phase(120, 60)};
	std::vector<AffinityLink> links = {link(0, D, {0, 1}, p),
					   link(1, D, {1, 2}, p),
					   link(2, D, {2, 3}, p)};
	std::vector<int64_t> periods;
	for (const Pattern &x : p)
		periods.push_back(x.period_us);
	AffinityResult r = solve_affinity(periods, links, CircleOpts{});
	assert_int_equal(r.loops, 0);
	for (const auto &l : r.links) {
		assert_false(l.loop_closing);
		near(l.score_achieved, l.score_optimal);
	}
	near(r.links[0].score_optimal, 1.0);
	assert_int_equal(r.shift_us[4], 0);
	for (size_t j = 0; j < 4; j++)
		assert_true(r.shift_us[j] >= 0 && r.shift_us[j] < periods[j]);
}

// Two separate components: each root starts at 0.
static void components_are_independent(void **)
{
	std::vector<Pattern> p(4, one_phase(100, 50));
	std::vector<AffinityLink> links = {link(0, D, {2, 3}, p),
					   link(1, D, {0, 1}, p)};
	AffinityResult r = solve_affinity({100000, 100000, 100000, 100000},
					  links, CircleOpts{});
	assert_int_equal(r.loops, 0);
	assert_int_equal(r.shift_us[0], 0);
	assert_int_equal(r.shift_us[1], 50000);
	assert_int_equal(r.shift_us[2], 0);
	assert_int_equal(r.shift_us[3], 50000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(triangle_loop),
		cmocka_unit_test(loop_closed_by_least_gain),
		cmocka_unit_test(tree_achieves_optimum),
		cmocka_unit_test(components_are_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
