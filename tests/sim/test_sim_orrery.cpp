// Hand-computable runs of the orrery policy's gating in orrery-sim: time
// division of one over-committed link group, and re-alignment when a job
// of the group leaves.  The node sets are fixed by the test (a wrapper
// places the jobs where the arithmetic below assumes them); everything
// else (cluster state, link groups, the choice, slots, re-alignment, the
// gates) is the orrery policy's and liborrery's own.  Fluid model, so the
// figures are exact up to the gate's microsecond rounding; asserted to 1 %.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bridge.hpp"
#include "engine.hpp"
#include "policies.hpp"

// cmocka last: it defines a fail() macro that clashes with <ios>.
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

using namespace sim;

// 50 ms compute, then 50 ms Up at the link rate.
static const char *kHalf = "period=100ms;up=50ms+50ms@50Gbps";

static void near_rel(double got, double want, double rel, const char *what)
{
	if (std::fabs(got - want) > rel * std::fabs(want)) {
		print_error("%s: got %.4f, want %.4f (within %.1f %%)\n", what, got,
			    want, rel * 100);
		fail();
	}
}

// spine over leaf0 (nodes 0-2) and leaf1 (nodes 3-5), 50 Gb/s uplinks and
// NICs.  Every job below has one node on each leaf: all of them cross
// both uplinks.
struct Setup {
	TopologyPtr topo;
	Fabric fabric;
	ProfileTable profiles{1, 50000};
	Setup()
	{
		orrery_topology_t *t = orrery_topology_new();
		orrery_error_t err{};
		check(orrery_topology_add_switch(t, "spine", nullptr, &err), err, "spine");
		for (int l = 0; l < 2; l++) {
			std::string leaf = "leaf" + std::to_string(l);
			check(orrery_topology_add_switch(t, leaf.c_str(), "spine", &err), err, leaf);
			for (int n = 0; n < 3; n++) {
				std::string node = "n" + std::to_string(l * 3 + n);
				check(orrery_topology_add_node(t, node.c_str(), leaf.c_str(), &err),
				      err, node);
			}
		}
		check(orrery_topology_finalize(t, &err), err, "finalize");
		check(orrery_topology_set_level_uplink(t, 0, 50000, 50000, &err), err, "uplink");
		orrery_topology_set_node_link(t, 50000);
		topo.reset(t);
		fabric = fabric_from_topology(t);
	}
	JobSpec job(uint32_t id, uint64_t iters)
	{
		JobSpec j;
		j.id = id;
		j.nodes = 2;
		j.iterations = iters;
		j.profile = kHalf;
		j.profile_index = profiles.resolve(kHalf, 2);
		j.pattern = profiles.pattern(j.profile_index);
		return j;
	}
};

// The orrery policy with node sets fixed by job id: job i on nodes
// i and 3 + i.
class FixedNodes : public Policy {
public:
	explicit FixedNodes(std::unique_ptr<Policy> inner) : in_(std::move(inner)) {}
	const char *name() const override { return "orrery/fixed-nodes"; }
	bool place(const std::vector<uint8_t> &free, const JobSpec &j, double now,
		   Placement &out) override
	{
		uint32_t a = j.id - 1, b = 3 + j.id - 1;
		if (!free[a] || !free[b])
			return false;
		// The policy's newcomer evaluation on these nodes, as for a
		// job pinned with -w (select/orrery's job_begin).
		JobSpec pinned = j;
		pinned.at = {a, b};
		in_->place_at(pinned, now, out);
		return true;
	}
	void started(const JobSpec &j, const Placement &p, double now) override
	{
		in_->started(j, p, now);
	}
	void ended(const JobSpec &j) override { in_->ended(j); }
	void gate_changes(std::vector<GateChange> &out) override { in_->gate_changes(out); }

private:
	std::unique_ptr<Policy> in_;
};

static std::vector<JobResult> run(Setup &s, std::vector<JobSpec> jobs, double delay,
				  bool with_group = true)
{
	FixedNodes pol(make_orrery_policy(s.topo.get(), s.fabric, s.profiles, true));
	EngineOptions o;
	o.realign_delay = delay;
	o.newcomer_with_group = with_group;
	Engine e(s.fabric, pol, o);
	SimStats st;
	return e.run(std::move(jobs), st);
}

// Three 50 %-duty jobs on the same two uplinks, all at t = 0: rotation
// cannot fit them (score 0.5), so liborrery divides time: a 150 ms common
// period with slots 0/50/100 ms.  Each job's Up phase then runs alone at
// the full rate once every 150 ms: N iterations take 150 N ms (within the
// first slot's wait), against 200 N ms sharing in step.
static void test_time_division(void **state)
{
	(void)state;
	Setup s;
	const uint64_t N = 200;
	auto res = run(s, {s.job(1, N), s.job(2, N), s.job(3, N)}, 5.0);
	for (const JobResult &r : res) {
		near_rel(r.run(), 0.150 * N, 0.01, "run time under time division");
		near_rel(r.gate_period, 0.150, 1e-6, "common period");
		assert_true(r.gated);
		assert_int_equal(r.gate_missed, 0);
		assert_int_equal(r.realigned, 0);
	}
	// One slot each, 50 ms apart.
	std::vector<double> sh;
	for (const JobResult &r : res)
		sh.push_back(r.shift);
	std::sort(sh.begin(), sh.end());
	near_rel(sh[1] - sh[0], 0.050, 1e-3, "slot spacing");
	near_rel(sh[2] - sh[1], 0.050, 1e-3, "slot spacing");
}

// Job 3 does 20 iterations and leaves at 3.05 s (slots at 150 + 150 k ms,
// the last Up ending at 150 + 19 * 150 + 50 ms).  Jobs 1 and 2 then fit by
// rotation at their own 100 ms period; liborrery re-aligns them and the
// engine applies the new gates at their first iteration boundary
// 4.99 s later: job 1's iteration ending at 8.05 s (150 k - 50 ms), job
// 2's at 8.10 s (150 k).  From there each runs one 100 ms iteration per
// slot, the two Up phases 50 ms apart: job 1 (shift 0) waits once to
// 8.15 s, then does its remaining 145 iterations, ending at
// 8.15 + 144 * 0.1 + 0.05 = 22.60 s; job 2 the same 50 ms later.  Without
// re-alignment they would end near 30 s (200 x 150 ms).
static void test_realign_after_leave(void **state)
{
	(void)state;
	Setup s;
	auto res = run(s, {s.job(1, 200), s.job(2, 200), s.job(3, 20)}, 4.99);
	near_rel(res[2].finish, 3.05, 0.01, "job 3 leaves");
	for (int i = 0; i < 2; i++) {
		const JobResult &r = res[i];
		near_rel(r.finish, 22.65, 0.01, "finish after re-alignment");
		assert_true(r.gated);
		assert_int_equal(r.realigned, 1);
		near_rel(r.gate_period, 0.100, 1e-6, "own period after re-alignment");
		assert_int_equal(r.gate_missed, 0);
	}
	near_rel(std::fabs(res[0].shift - res[1].shift), 0.050, 1e-3, "rotation");

	// With a re-alignment delay longer than the run, the gates stay on
	// the 150 ms grid: the delay is honoured.
	auto late = run(s, {s.job(1, 200), s.job(2, 200), s.job(3, 20)}, 100.0);
	for (int i = 0; i < 2; i++) {
		near_rel(late[i].run(), 0.150 * 200, 0.01, "no re-alignment yet");
		assert_int_equal(late[i].realigned, 0);
	}
}

// Jobs 1 and 2 rotate apart at 100 ms from t = 0; job 3 arrives at 1 s
// and makes the group time-divided (150 ms).  As select/orrery does it,
// the newcomer launches on its placement's gate (its shift against 1 and
// 2 as they run) and switches to its slot when they do, 2 s later: all
// three change once, at the same delay, and end on the common period.
// --newcomer-gate at-start puts job 3 on its slot at once (no change
// later) while 1 and 2 keep their rotation for those 2 s.  Job 3's 85
// iterations make the three end together, before a departure re-aligns
// the others.
static void test_newcomer_with_group(void **state)
{
	(void)state;
	Setup s;
	std::vector<JobSpec> jobs = {s.job(1, 100), s.job(2, 100), s.job(3, 85)};
	jobs[2].arrival = 1.0;
	auto res = run(s, jobs, 2.0);
	for (const JobResult &r : res) {
		assert_true(r.gated);
		near_rel(r.gate_period, 0.150, 1e-6, "common period");
		assert_int_equal(r.realigned, 1);
	}
	auto early = run(s, jobs, 2.0, false);
	assert_int_equal(early[0].realigned, 1);
	assert_int_equal(early[1].realigned, 1);
	assert_int_equal(early[2].realigned, 0);
	near_rel(early[2].gate_period, 0.150, 1e-6, "at-start: the slot from the start");
	// Out of step for 2 s, the gates miss slots and every job ends
	// later (here 16.9-19.0 s against 14.2-15.0 s).
	for (int i = 0; i < 3; i++)
		assert_true(res[i].finish < early[i].finish);
}

// Admission (orrery-hold): jobs 1 and 2 are pinned across the leaves
// (nodes 0+3, 1+4) and rotate apart; job 3 can only take nodes 2+5, on the
// same uplinks, which would time-divide all three (each 1.5x slower: a
// predicted cost of 4.5 - 2 - 1 = 1.5).  With a hold cost of 1.0 job 3
// waits for them to end (20 s), and they run at their isolated speed;
// plain orrery starts it at once, all three on the 150 ms common period.
// With a 40 s limit and jobs 1 and 2 running 100 s, job 3 starts once its
// hold has run out (the next backfill pass), before they end.
static std::vector<JobResult> run_queue(Setup &s, std::vector<JobSpec> jobs,
					std::unique_ptr<Policy> pol)
{
	EngineOptions o;
	o.queue.kind = QueueOptions::Kind::Slurm;
	Engine e(s.fabric, *pol, o);
	SimStats st;
	return e.run(std::move(jobs), st);
}

static void test_hold(void **state)
{
	(void)state;
	Setup s;
	auto jobs = [&](uint64_t n) {
		std::vector<JobSpec> v = {s.job(1, n), s.job(2, n), s.job(3, 100)};
		v[0].at = {0, 3};
		v[1].at = {1, 4};
		return v;
	};
	auto held = run_queue(s, jobs(200),
			      make_hold_policy(s.topo.get(), s.fabric, s.profiles,
					       HoldRule{1.0, 60}));
	for (int i = 0; i < 2; i++) {
		near_rel(held[i].start, 0, 0, "pinned jobs start at once");
		near_rel(held[i].run(), 20.0, 0.01, "alone on their rotation");
	}
	assert_true(held[2].start >= held[0].finish - 1e-6);
	near_rel(held[2].slowdown(), 1.0, 0.01, "job 3 after the others: alone");

	auto plain = run_queue(s, jobs(200),
			       make_orrery_policy(s.topo.get(), s.fabric, s.profiles, true));
	near_rel(plain[2].start, 0, 0, "orrery starts job 3 at once");
	assert_true(plain[0].run() > 1.3 * held[0].run());

	auto limit = run_queue(s, jobs(1000),
			       make_hold_policy(s.topo.get(), s.fabric, s.profiles,
						HoldRule{1.0, 40}));
	print_message("hold: job 3 starts at %.2f s (others end %.2f s); limited: %.2f s (others end %.2f s); plain orrery run %.2f s against %.2f s\n", held[2].start, held[0].finish, limit[2].start, limit[0].finish, plain[0].run(), held[0].run());
	assert_true(limit[2].start >= 40.0);
	assert_true(limit[2].start < limit[0].finish);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_division),
		cmocka_unit_test(test_realign_after_leave),
		cmocka_unit_test(test_newcomer_with_group),
		cmocka_unit_test(test_hold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
