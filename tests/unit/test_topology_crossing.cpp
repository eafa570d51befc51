// test_topology_crossing.cpp - the uplink crossing rule (lib/topology/
// link_map.cpp), hand-computed on a 3-tier tree:
//
//                     core
//            pod01              pod02
//      leaf01   leaf02     leaf03   leaf04
//      n1-n4    n5-n8      n9-n12   n13-n16   (indices 0..15)
#include <map>

// Before cmocka.h: cmocka defines a fail() macro that clashes with
// orrery::fail().
#include "core/error.hpp"
#include "topology/topology.hpp"

#include <cstdarg>
#include <cstddef>
#include <csetjmp>
extern "C" {
#include <cmocka.h>
}

using namespace orrery;

static Topology tree()
{
	Topology t;
	t.add_switch("core", "");
	t.add_switch("pod01", "core");
	t.add_switch("pod02", "core");
	for (int l = 1; l <= 4; l++) {
		std::string leaf = "leaf0" + std::to_string(l);
		t.add_switch(leaf, l <= 2 ? "pod01" : "pod02");
		for (int n = 1; n <= 4; n++)
			t.add_node("n" + std::to_string((l - 1) * 4 + n), leaf);
	}
	t.finalize();
	return t;
}

// switch name -> m, for the crossings of a node set
static std::map<std::string, uint32_t> crossed(const Topology &t,
					       std::vector<uint32_t> nodes)
{
	std::map<std::string, uint32_t> out;
	for (const Crossing &c : crossings(t, nodes)) {
		assert_int_equal(c.n, nodes.size());
		out[t.switches[c.sw].name] = c.m;
	}
	return out;
}

static void test_which_uplinks(void **)
{
	Topology t = tree();
	// Inside one leaf: no uplink at all.
	assert_true(crossed(t, {0, 1, 2, 3}).empty());
	// Two leaves of one pod: both leaf uplinks, not the pod's.
	auto a = crossed(t, {0, 4});
	assert_int_equal(a.size(), 2);
	assert_int_equal(a["leaf01"], 1);
	assert_int_equal(a["leaf02"], 1);
	// Across pods: {n1,n2,n5,n9}: leaf01 m=2, leaf02 m=1, leaf03 m=1,
	// pod01 m=3, pod02 m=1; leaf04 has none; the core has no uplink.
	auto b = crossed(t, {0, 1, 4, 8});
	assert_int_equal(b.size(), 5);
	assert_int_equal(b["leaf01"], 2);
	assert_int_equal(b["leaf02"], 1);
	assert_int_equal(b["leaf03"], 1);
	assert_int_equal(b["pod01"], 3);
	assert_int_equal(b["pod02"], 1);
	assert_int_equal(b.count("leaf04"), 0);
	assert_int_equal(b.count("core"), 0);
	// The whole cluster: leaf and pod uplinks all crossed.
	std::vector<uint32_t> all;
	for (uint32_t i = 0; i < 16; i++)
		all.push_back(i);
	auto c = crossed(t, all);
	assert_int_equal(c.size(), 6);
	assert_int_equal(c["pod02"], 8);
}

static void test_demand_on_link(void **)
{
	Topology t = tree();
	Pattern p;
	p.period_us = 100000;
	p.phases.push_back(Phase{0, 20000, 100, Collective::Ring});
	p.phases.push_back(Phase{50000, 10000, 90, Collective::AllToAll});
	std::map<std::string, std::pair<uint64_t, uint64_t>> got;
	for (const Crossing &c : crossings(t, {0, 1, 4, 8})) {
		Pattern on = pattern_on_link(p, c);
		assert_int_equal(on.period_us, p.period_us);
		assert_int_equal(on.phases.size(), 2);
		assert_int_equal(on.phases[0].offset_us, 0);
		assert_int_equal(on.phases[1].duration_us, 10000);
		got[t.switches[c.sw].name] = {on.phases[0].demand_mbps,
					      on.phases[1].demand_mbps};
	}
	// Ring: the phase demand on every crossed uplink.
	// All-to-all: 90 * m * (4 - m) / 3.
	assert_int_equal(got["leaf01"].first, 100);
	assert_int_equal(got["leaf01"].second, 120);  // m=2: 90*2*2/3
	assert_int_equal(got["leaf02"].second, 90);   // m=1: 90*1*3/3
	assert_int_equal(got["pod01"].first, 100);
	assert_int_equal(got["pod01"].second, 90);    // m=3: 90*3*1/3
	assert_int_equal(got["pod02"].second, 90);

	// 8 of 16 nodes below a pod: 90 * 8 * 8 / 15 = 384
	std::vector<uint32_t> all;
	for (uint32_t i = 0; i < 16; i++)
		all.push_back(i);
	for (const Crossing &c : crossings(t, all))
		if (t.switches[c.sw].name == "pod01")
			assert_int_equal(pattern_on_link(p, c).phases[1].demand_mbps, 384);
}

static void test_bad_index(void **)
{
	Topology t = tree();
	bool thrown = false;
	try {
		crossings(t, {0, 16});
	} catch (const Error &e) {
		thrown = e.code() == ORRERY_EINVAL;
	}
	assert_true(thrown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which_uplinks),
		cmocka_unit_test(test_demand_on_link),
		cmocka_unit_test(test_bad_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
