// test_topology_crossing.cpp - the uplink crossing rule (lib/topology/
// link_map.cpp), hand-computed on a 3-tier tree:
//
//                     core
//            pod01              pod02
//      leaf01   leaf02     leaf03   leaf04
//      n1-n4    n5-n8      n9-n12   n13-n16   (indices 0..15)
#include <cmath>
#include <map>

#include <orrery.h>

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

// demand on each crossed uplink (by switch name) of one phase
static std::map<std::string, uint64_t> on_links(const Topology &t,
						 std::vector<uint32_t> nodes,
						 Phase ph, uint32_t *flow_mult = nullptr)
{
	Pattern p;
	p.period_us = 100000;
	p.phases.push_back(ph);
	std::map<std::string, uint64_t> out;
	for (const Crossing &c : crossings(t, nodes)) {
		Pattern on = pattern_on_link(p, c);
		assert_int_equal(on.phases.size(), 1);  // kept in step, even at 0
		out[t.switches[c.sw].name] = on.phases[0].demand_mbps;
		if (flow_mult && t.switches[c.sw].name == "leaf01")
			*flow_mult = on.flow_mult;
	}
	return out;
}

static Phase pp(uint64_t demand, uint32_t stages)
{
	Phase ph{0, 20000, demand, Collective::Pipeline};
	ph.groups = stages;
	return ph;
}

// Pipeline on n1-n8 (leaf01: positions 0-3, leaf02: 4-7).  The man page's
// worked number: 25 Gb/s, /pp4: stages 0-1 2-3 4-5 6-7, pairs 0-2 1-3 2-4
// 3-5 4-6 5-7; 2-4 and 3-5 cross each leaf uplink: 50 Gb/s.
static void test_pipeline_two_leaves(void **)
{
	Topology t = tree();
	const std::vector<uint32_t> job = {0, 1, 2, 3, 4, 5, 6, 7};
	uint32_t fm = 0;
	auto a = on_links(t, job, pp(25000, 4), &fm);
	assert_int_equal(a.size(), 2);  // pod01 holds the whole job
	assert_int_equal(a["leaf01"], 50000);
	assert_int_equal(a["leaf02"], 50000);
	assert_int_equal(fm, 2);        // two pairs: two connections
	// One node per stage: only boundary 3-4 crosses: 25 Gb/s.
	a = on_links(t, job, pp(25000, 8), &fm);
	assert_int_equal(a["leaf01"], 25000);
	assert_int_equal(fm, 1);
	// Two stages of four: all four pairs 0-4 1-5 2-6 3-7 cross: 100 Gb/s.
	a = on_links(t, job, pp(25000, 2), &fm);
	assert_int_equal(a["leaf01"], 100000);
	assert_int_equal(fm, 4);
	// More stages than nodes: one stage per node (as /pp8).
	a = on_links(t, job, pp(25000, 16));
	assert_int_equal(a["leaf01"], 25000);
	// The same node set in another order: node order is node index.
	a = on_links(t, {7, 6, 5, 4, 3, 2, 1, 0}, pp(25000, 4));
	assert_int_equal(a["leaf01"], 50000);
}

// Pipeline across pods: n1 n2 n3 n5 n6 n9 n10 n13 are positions 0-7; /pp4
// pairs 0-2 1-3 2-4 3-5 4-6 5-7, demand 10 per pair:
//   leaf01 {0,1,2}: 1-3 2-4            -> 20
//   leaf02 {3,4}:   1-3 2-4 3-5 4-6    -> 40
//   pod01 {0..4}:   3-5 4-6            -> 20
//   leaf03 {5,6}:   3-5 4-6 5-7        -> 30
//   pod02 {5,6,7}:  3-5 4-6            -> 20
//   leaf04 {7}:     5-7                -> 10
static void test_pipeline_across_pods(void **)
{
	Topology t = tree();
	auto a = on_links(t, {0, 1, 2, 4, 5, 8, 9, 12}, pp(10, 4));
	assert_int_equal(a.size(), 6);
	assert_int_equal(a["leaf01"], 20);
	assert_int_equal(a["leaf02"], 40);
	assert_int_equal(a["pod01"], 20);
	assert_int_equal(a["leaf03"], 30);
	assert_int_equal(a["pod02"], 20);
	assert_int_equal(a["leaf04"], 10);
}

// Uneven stages: n = 5, /pp2: stages 0-1 and 2-4 (floor(5/2) = 2); the
// pairs are 0-2 and 1-3, node 4 has no partner.  Nodes n1-n5: leaf01 holds
// positions 0-3, so both pairs stay inside it: the uplinks carry nothing,
// and the phase keeps its place with demand 0.
static void test_pipeline_uneven(void **)
{
	Topology t = tree();
	auto a = on_links(t, {0, 1, 2, 3, 4}, pp(1000, 2));
	assert_int_equal(a.size(), 2);
	assert_int_equal(a["leaf01"], 0);
	assert_int_equal(a["leaf02"], 0);
	// n1 n2 n5 n6 n7 (positions 0-1 on leaf01): pairs 0-2 1-3 cross.
	a = on_links(t, {0, 1, 4, 5, 6}, pp(1000, 2));
	assert_int_equal(a["leaf01"], 2000);
	assert_int_equal(a["leaf02"], 2000);
}

// Rail (hierarchical) collective: 400 Gb/s per node, /rail8, on n1 + n5:
// the eight rail rings cross each leaf uplink with 50 Gb/s each, 400 Gb/s
// in all, in eight connections.
static void test_rail(void **)
{
	Topology t = tree();
	Phase ph{0, 20000, 400000, Collective::Rail};
	ph.groups = 8;
	uint32_t fm = 0;
	auto a = on_links(t, {0, 4}, ph, &fm);
	assert_int_equal(a.size(), 2);
	assert_int_equal(a["leaf01"], 400000);
	assert_int_equal(fm, 8);
	// Inside one leaf: nothing crosses.
	assert_true(on_links(t, {0, 1}, ph).empty());
}

// The C entry point the simulator uses: the same numbers from a mask.
static void test_phase_crossing_api(void **)
{
	orrery_phase_t ph{0, 20000, 25000, ORRERY_COLL_PIPELINE, 4};
	const uint8_t leaf[8] = {1, 1, 1, 1, 0, 0, 0, 0};
	uint32_t conns = 0;
	assert_true(orrery_phase_crossing(&ph, leaf, 8, &conns) == 2.0);
	assert_int_equal(conns, 2);
	ph.collective = ORRERY_COLL_ALLTOALL;
	ph.groups = 0;
	// 4 * 4 / 7
	assert_true(std::abs(orrery_phase_crossing(&ph, leaf, 8, &conns) - 16.0 / 7.0) < 1e-12);
	assert_int_equal(conns, 16);
	ph.collective = ORRERY_COLL_RING;
	assert_true(orrery_phase_crossing(&ph, leaf, 8, &conns) == 1.0);
	assert_int_equal(conns, 1);
	ph.collective = ORRERY_COLL_RAIL;
	ph.groups = 8;
	assert_true(orrery_phase_crossing(&ph, leaf, 8, &conns) == 1.0);
	assert_int_equal(conns, 8);
	// Nothing below, or everything: no crossing.
	const uint8_t none[8] = {0}, all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	assert_true(orrery_phase_crossing(&ph, none, 8, &conns) == 0.0);
	assert_true(orrery_phase_crossing(&ph, all, 8, &conns) == 0.0);
	assert_int_equal(conns, 0);
	// Bad arguments.
	assert_true(orrery_phase_crossing(nullptr, leaf, 8, &conns) < 0);
	assert_true(orrery_phase_crossing(&ph, nullptr, 8, &conns) < 0);
	ph.collective = 7;
	assert_true(orrery_phase_crossing(&ph, leaf, 8, &conns) < 0);
	// Rail rings on parallel links: ring r on link r mod k.
	assert_int_equal(orrery_rail_link(5, 8), 5);
	assert_int_equal(orrery_rail_link(5, 4), 1);
	assert_int_equal(orrery_rail_link(5, 0), 0);
}

// orrery_profile_on_uplink with a non-contiguous mask vs on_link's "first
// m nodes": the pipeline differs, ring and all-to-all do not.
static void test_profile_on_uplink(void **)
{
	orrery_profile_t *p = nullptr, *a = nullptr, *b = nullptr;
	orrery_error_t err;
	assert_int_equal(orrery_profile_parse("period=100ms;up=0ms+30ms@25Gbps/pp4;"
					      "up=50ms+10ms@7Gbps/a2a", &p, &err), ORRERY_OK);
	// Positions 0 and 2 below (stage 0's first node, stage 1's first):
	// pairs 0-2 inside, 1-3 out, 2-4 crosses: one pair.  First two
	// (0, 1): pairs 0-2 and 1-3 both cross: two.
	const uint8_t mask[8] = {1, 0, 1, 0, 0, 0, 0, 0};
	assert_int_equal(orrery_profile_on_uplink(p, mask, 8, &a, &err), ORRERY_OK);
	assert_int_equal(orrery_profile_on_link(p, 2, 8, &b, &err), ORRERY_OK);
	orrery_phase_t x, y;
	assert_int_equal(orrery_profile_phase(a, 0, &x), ORRERY_OK);
	assert_int_equal(orrery_profile_phase(b, 0, &y), ORRERY_OK);
	assert_int_equal(x.demand_mbps, 25000);
	assert_int_equal(y.demand_mbps, 50000);
	assert_int_equal(x.groups, 4);
	assert_int_equal(orrery_profile_phase(a, 1, &x), ORRERY_OK);
	assert_int_equal(orrery_profile_phase(b, 1, &y), ORRERY_OK);
	assert_int_equal(x.demand_mbps, 12000);  // 7 * 2 * 6 / 7
	assert_int_equal(y.demand_mbps, 12000);
	orrery_profile_free(a);
	orrery_profile_free(b);
	a = nullptr;
	const uint8_t all[8] = {1, 1, 1, 1, 1, 1, 1, 1};
	assert_int_equal(orrery_profile_on_uplink(p, all, 8, &a, &err), ORRERY_ERANGE);
	assert_null(a);
	orrery_profile_free(p);
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
		cmocka_unit_test(test_pipeline_two_leaves),
		cmocka_unit_test(test_pipeline_across_pods),
		cmocka_unit_test(test_pipeline_uneven),
		cmocka_unit_test(test_rail),
		cmocka_unit_test(test_phase_crossing_api),
		cmocka_unit_test(test_profile_on_uplink),
		cmocka_unit_test(test_bad_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
