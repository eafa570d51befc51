// Candidate enumeration (placement/candidates.cpp): topology/tree best fit.
// C++ test of the internal enumerator: it needs neither scoring nor
// profiles, so it pins the locality rules down on their own.
#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "placement/placement.hpp"

// After the orrery headers: cmocka defines a fail() macro.
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

using namespace orrery;

// Root "spine" over `leaves` leaves of `per` nodes: node i on leaf i/per.
static Topology two_tier(int leaves, int per)
{
	Topology t;
	t.add_switch("spine", "");
	for (int l = 0; l < leaves; l++) {
		std::string leaf = "leaf" + std::to_string(l + 1);
		t.add_switch(leaf, "spine");
		for (int n = 0; n < per; n++)
			t.add_node("n" + std::to_string(l * per + n), leaf);
	}
	t.finalize();
	return t;
}

// core -> pods -> leaves -> nodes
static Topology three_tier(int pods, int leaves_per_pod, int per)
{
	Topology t;
	t.add_switch("core", "");
	int node = 0;
	for (int p = 0; p < pods; p++) {
		std::string pod = "pod" + std::to_string(p);
		t.add_switch(pod, "core");
		for (int l = 0; l < leaves_per_pod; l++) {
			std::string leaf = pod + "l" + std::to_string(l);
			t.add_switch(leaf, pod);
			for (int n = 0; n < per; n++)
				t.add_node("n" + std::to_string(node++), leaf);
		}
	}
	t.finalize();
	return t;
}

static std::vector<uint8_t> free_except(const Topology &t, std::vector<uint32_t> busy)
{
	std::vector<uint8_t> f(t.nodes.size(), 1);
	for (uint32_t b : busy)
		f[b] = 0;
	return f;
}

static size_t distinct_leaves(const Topology &t, const std::vector<uint32_t> &nodes)
{
	std::set<size_t> s;
	for (uint32_t n : nodes)
		s.insert(t.node_leaf[n]);
	return s.size();
}

// 4 leaves x 4 nodes; leaf1 and leaf2 half busy.  A 6-node job: no leaf
// fits, so the spine is the LCA; leaves by free count are leaf3(4),
// leaf4(4), leaf1(2), leaf2(2): k_min = 2, and the pairs reaching 6 are
// {leaf3,leaf4}, {leaf3,leaf1}, {leaf3,leaf2}, {leaf4,leaf1}, {leaf4,leaf2}.
static void test_two_leaf_combinations(void **state)
{
	Topology t = two_tier(4, 4);
	auto f = free_except(t, {0, 1, 4, 5});
	size_t en = 0;
	auto c = enumerate_candidates(t, f, 6, 64, 1000, &en);
	assert_int_equal(en, 5);
	assert_int_equal(c.size(), 5);
	std::vector<std::vector<uint32_t>> want = {
		{8, 9, 10, 11, 12, 13},   // leaf3 full, best fit last leaf leaf4
		{2, 3, 8, 9, 10, 11},     // leaf3 full + leaf1's 2
		{6, 7, 8, 9, 10, 11},
		{2, 3, 12, 13, 14, 15},
		{6, 7, 12, 13, 14, 15},
	};
	for (size_t i = 0; i < c.size(); i++) {
		assert_int_equal(c[i].lca_level, 1);
		assert_int_equal(c[i].leaves, 2);
		assert_true(c[i].nodes == want[i]);
	}
}

// The last leaf is the one with the fewest free nodes that completes the
// job: 5 nodes from leaves with 4 and 3 free... with 4, 4 and 2 free, k=2;
// {4a, 4b} takes 4 from leaf3 then 1 from leaf4; {4a, 2} takes 4 + 1, the
// single node coming from the 2-free leaf.
static void test_best_fit_last_leaf(void **state)
{
	Topology t = two_tier(4, 4);
	// leaf1: 2 free (2,3); leaf2: 0 free; leaf3, leaf4: 4 free.
	auto f = free_except(t, {0, 1, 4, 5, 6, 7});
	size_t en = 0;
	auto c = enumerate_candidates(t, f, 5, 64, 1000, &en);
	assert_int_equal(en, 3);  // {l3,l4}, {l3,l1}, {l4,l1}
	assert_true(c[0].nodes == (std::vector<uint32_t>{8, 9, 10, 11, 12}));
	assert_true(c[1].nodes == (std::vector<uint32_t>{2, 8, 9, 10, 11}));
	assert_true(c[2].nodes == (std::vector<uint32_t>{2, 12, 13, 14, 15}));
}

// When one leaf can hold the job, only single leaves are candidates, best
// fit (fewest free nodes) first, nodes in index order.
static void test_single_leaf_best_fit(void **state)
{
	Topology t = two_tier(4, 4);
	// free: leaf1 4, leaf2 3 (5,6,7), leaf3 2, leaf4 3 (12,14,15)
	auto f = free_except(t, {4, 8, 9, 13});
	size_t en = 0;
	auto c = enumerate_candidates(t, f, 3, 64, 1000, &en);
	assert_int_equal(en, 3);
	assert_int_equal(c.size(), 3);
	for (const Candidate &x : c) {
		assert_int_equal(x.lca_level, 0);
		assert_int_equal(x.leaves, 1);
	}
	assert_true(c[0].nodes == (std::vector<uint32_t>{5, 6, 7}));     // leaf2, 3 free
	assert_true(c[1].nodes == (std::vector<uint32_t>{12, 14, 15}));  // leaf4, 3 free
	assert_true(c[2].nodes == (std::vector<uint32_t>{0, 1, 2}));     // leaf1, 4 free
}

static void test_not_enough_nodes(void **state)
{
	Topology t = two_tier(2, 4);
	auto f = free_except(t, {0, 1, 2});
	size_t en = 7;
	auto c = enumerate_candidates(t, f, 6, 64, 1000, &en);
	assert_int_equal(c.size(), 0);
	assert_int_equal(en, 0);
}

// Three tiers: a job that fits in a pod never spreads over the core.
static void test_lowest_level_only(void **state)
{
	Topology t = three_tier(2, 3, 4);  // 24 nodes, pods of 12
	// pod0: leaves 0..2 with 1, 2, 4 free; pod1: all free.
	auto f = free_except(t, {0, 1, 2, 4, 5});
	size_t en = 0;
	auto c = enumerate_candidates(t, f, 7, 64, 100000, &en);
	assert_true(en > 0);
	for (const Candidate &x : c) {
		assert_int_equal(x.lca_level, 1);
		std::set<long> pods;
		for (uint32_t n : x.nodes)
			pods.insert(t.switches[t.node_leaf[n]].parent);
		assert_int_equal(pods.size(), 1);
	}
	// pod0 has 7 free (best fit: visited first) and needs all 3 leaves;
	// pod1 has 12 free and needs 2 of its 3 leaves.
	assert_int_equal(c[0].leaves, 3);
	assert_true(c[0].nodes == (std::vector<uint32_t>{3, 6, 7, 8, 9, 10, 11}));
	assert_int_equal(en, 1 + 3);
}

// Cap: only max_out node sets are built but all are counted; the built
// ones are the first ones of the uncapped run.
static void test_cap_and_determinism(void **state)
{
	Topology t = two_tier(8, 4);
	auto f = free_except(t, {0, 5, 10, 15, 20});
	size_t en_all = 0, en_cap = 0, en_again = 0;
	auto all = enumerate_candidates(t, f, 10, 100000, 100000, &en_all);
	auto cap = enumerate_candidates(t, f, 10, 3, 100000, &en_cap);
	auto again = enumerate_candidates(t, f, 10, 3, 100000, &en_again);
	assert_int_equal(en_all, all.size());
	assert_int_equal(en_cap, en_all);
	assert_int_equal(cap.size(), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_true(cap[i].nodes == all[i].nodes);
		assert_true(again[i].nodes == cap[i].nodes);
	}
	size_t en_lim = 0;
	enumerate_candidates(t, f, 10, 3, 4, &en_lim);
	assert_int_equal(en_lim, 4);
}

// Property: on random free maps, every candidate holds n distinct free
// nodes on exactly k_min leaves, candidates are distinct, and their number
// equals a brute-force count of the k_min-leaf subsets that reach n.
static void test_random_properties(void **state)
{
	Topology t = two_tier(7, 5);
	uint32_t seed = 12345;
	auto rnd = [&]() { seed = seed * 1103515245u + 12345u; return (seed >> 16) & 0x7fff; };
	for (int iter = 0; iter < 300; iter++) {
		std::vector<uint8_t> f(t.nodes.size());
		for (auto &x : f)
			x = rnd() % 3 != 0;
		uint32_t n = 1 + rnd() % 20;
		size_t en = 0;
		auto c = enumerate_candidates(t, f, n, 1000000, 1000000, &en);
		std::vector<uint32_t> lf;
		for (size_t s = 1; s < t.switches.size(); s++) {
			uint32_t k = 0;
			for (size_t node : t.switches[s].nodes)
				k += f[node];
			lf.push_back(k);
		}
		uint32_t total = 0, maxleaf = 0;
		for (uint32_t k : lf) {
			total += k;
			maxleaf = std::max(maxleaf, k);
		}
		if (total < n) {
			assert_int_equal(c.size(), 0);
			continue;
		}
		// brute force over leaf subsets
		size_t kmin = 99, count = 0;
		for (unsigned m = 1; m < (1u << lf.size()); m++) {
			uint32_t sum = 0;
			for (size_t i = 0; i < lf.size(); i++)
				if (m & (1u << i))
					sum += lf[i];
			size_t bits = (size_t)__builtin_popcount(m);
			bool any_empty = false;
			for (size_t i = 0; i < lf.size(); i++)
				if ((m & (1u << i)) && !lf[i])
					any_empty = true;
			if (sum < n || any_empty)
				continue;
			if (bits < kmin) {
				kmin = bits;
				count = 0;
			}
			if (bits == kmin)
				count++;
		}
		assert_int_equal(en, count);
		assert_int_equal(c.size(), count);
		std::set<std::vector<uint32_t>> seen;
		for (const Candidate &x : c) {
			assert_int_equal(x.nodes.size(), n);
			assert_true(std::is_sorted(x.nodes.begin(), x.nodes.end()));
			assert_true(std::adjacent_find(x.nodes.begin(), x.nodes.end()) ==
				    x.nodes.end());
			for (uint32_t node : x.nodes)
				assert_true(f[node]);
			assert_int_equal(x.leaves, kmin);
			assert_int_equal(distinct_leaves(t, x.nodes), kmin);
			assert_int_equal(x.lca_level, kmin == 1 ? 0 : 1);
			assert_true(seen.insert(x.nodes).second);
		}
	}
}

static void test_bad_input(void **state)
{
	Topology t = two_tier(2, 2);
	size_t en;
	std::vector<uint8_t> shortmap(3, 1);
	try {
		enumerate_candidates(t, shortmap, 1, 8, 8, &en);
		fail_msg("short free map accepted");
	} catch (const Error &e) {
		assert_int_equal(e.code(), ORRERY_EINVAL);
	}
	try {
		enumerate_candidates(t, std::vector<uint8_t>(4, 1), 0, 8, 8, &en);
		fail_msg("zero-node job accepted");
	} catch (const Error &e) {
		assert_int_equal(e.code(), ORRERY_EINVAL);
	}
}

// Spread candidates (enumerate_spread_candidates): 4 leaves x 4 nodes,
// leaf1 and leaf2 half busy, a 4-node job.  leaf3 and leaf4 each hold it
// (level 0), so one leaf more means two leaves under the spine, each
// needed: of the pairs, those whose larger leaf alone cannot hold 4 nodes,
// i.e. only {leaf1, leaf2} (2 + 2).  Two more leaves: no triple needs all
// three (any with leaf3 or leaf4 can drop the other two).
static void test_spread_candidates(void **state)
{
	Topology t = two_tier(4, 4);
	auto f = free_except(t, {0, 1, 4, 5});
	auto c = enumerate_spread_candidates(t, f, 4, 0, 2, 16);
	assert_int_equal(c.size(), 1);
	assert_int_equal(c[0].lca_level, 1);
	assert_int_equal(c[0].leaves, 2);
	std::vector<uint32_t> want{2, 3, 6, 7};
	assert_true(c[0].nodes == want);
	// extra 0: nothing.
	assert_int_equal(enumerate_spread_candidates(t, f, 4, 0, 0, 16).size(), 0);
	// leaf1 free, leaf2-4 with 2 free each; a 5-node job needs 2 leaves
	// (leaf1 + one).  One leaf more: three leaves that all matter, i.e.
	// {leaf2, leaf3, leaf4} (2 + 2 + 2; any with leaf1 can drop a leaf),
	// filled most free first, the last leaf the one that completes it.
	auto g = free_except(t, {4, 5, 8, 9, 12, 13});
	auto w = enumerate_spread_candidates(t, g, 5, 1, 1, 16);
	assert_int_equal(w.size(), 1);
	assert_int_equal(w[0].leaves, 3);
	std::vector<uint32_t> want3{6, 7, 10, 11, 14};
	assert_true(w[0].nodes == want3);
	// The cap holds.
	assert_int_equal(enumerate_spread_candidates(t, g, 5, 1, 1, 0).size(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_leaf_combinations),
		cmocka_unit_test(test_best_fit_last_leaf),
		cmocka_unit_test(test_single_leaf_best_fit),
		cmocka_unit_test(test_not_enough_nodes),
		cmocka_unit_test(test_lowest_level_only),
		cmocka_unit_test(test_cap_and_determinism),
		cmocka_unit_test(test_random_properties),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_spread_candidates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
