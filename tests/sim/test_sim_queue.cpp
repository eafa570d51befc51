// The simulator's Slurm queue by hand: priority order, the main scheduler
// stopping at the first job that cannot start, backfill into a hole before
// a reservation (and not across it), --switches=N@wait, and the inputs
// (trace fields, SchedulerParameters, Slurm times).  Jobs here cross no
// constrained link, so each runs exactly its iterations x period.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
extern "C" {
#include <cmocka.h>
}

#include "engine.hpp"
#include "fixtures.hpp"
#include "policies.hpp"
#include "queue.hpp"
#include "workload.hpp"

using namespace sim;

#define assert_near(a, b, eps) \
	assert_true(std::fabs((double)(a) - (double)(b)) <= (eps))

// runs `secs` seconds (1 s iterations, no contention: one event), arrives
// at `at`, with a time limit (0: the queue's default).
static JobSpec job(uint32_t id, uint32_t nodes, double at, uint64_t secs,
		   double limit = 0)
{
	JobSpec j;
	j.id = id;
	j.nodes = nodes;
	j.arrival = at;
	j.iterations = secs;
	j.time_limit = limit;
	j.pattern.period = 1;
	j.pattern.phases.push_back(Phase{0.5, 0.5, 10, Coll::Ring});
	return j;
}

static std::vector<JobResult> run(const Fabric &f, std::vector<JobSpec> jobs,
				  QueueOptions::Kind kind, SimStats *out = nullptr)
{
	auto pol = make_default_policy(f);
	EngineOptions o;
	o.queue.kind = kind;
	Engine e(f, *pol, o);
	SimStats st;
	auto r = e.run(std::move(jobs), st);
	if (out)
		*out = st;
	return r;
}

// One leaf of 4 nodes.  A (3 nodes, 100 s, limit 120 s) runs; B (4
// nodes) waits and backfill reserves all 4 nodes from A's planned end
// (120 s) to 240 s.  C (1 node, limit 300 s) would still hold its node at
// 120 s: not backfilled, it starts when B ends (200 s).  D (1 node, 50 s,
// limit 60 s) ends before 120 s: backfilled at the first pass after its
// arrival (30 s).  B starts at 100 s, when A ends.  The greedy queue
// starts C at once and D when A ends, and B waits for D (150 s).
static void test_backfill_reservation(void **state)
{
	Fabric f = two_tier(1, 4, 1e6);
	std::vector<JobSpec> jobs = {job(0, 3, 0, 100, 120), job(1, 4, 1, 100, 120),
				     job(2, 1, 2, 100, 300), job(3, 1, 3, 50, 60)};
	SimStats st;
	auto r = run(f, jobs, QueueOptions::Kind::Slurm, &st);
	assert_near(r[0].start, 0, 1e-9);
	assert_near(r[3].start, 30, 1e-9);
	assert_near(r[1].start, 100, 1e-9);
	assert_near(r[2].start, 200, 1e-9);
	assert_int_equal(st.backfilled, 1);
	assert_true(st.reservations >= 1);
	auto g = run(f, jobs, QueueOptions::Kind::Greedy);
	assert_near(g[2].start, 2, 1e-9);
	assert_near(g[3].start, 100, 1e-9);
	assert_near(g[1].start, 150, 1e-9);
}

// The main scheduler stops at the first job that cannot start: E (1 node)
// behind a blocked 4-node job waits for a backfill pass even though a
// node is free; with nothing reserved in its way it starts at 30 s.
static void test_main_scheduler_blocks(void **state)
{
	Fabric f = two_tier(1, 4, 1e6);
	auto r = run(f, {job(0, 3, 0, 100, 120), job(1, 4, 1, 100, 120),
			 job(2, 1, 5, 10, 60)},
		     QueueOptions::Kind::Slurm);
	assert_near(r[2].start, 30, 1e-9);
	assert_near(r[1].start, 100, 1e-9);
}

// A job pinned to its nodes (-w) that cannot start does not block the
// partition: A holds nodes 0-1; P wants 0 and 2; Q (1 node) starts at
// once on a node P does not want.  An unpinned P would block Q until the
// first backfill pass (30 s).
static void test_pinned_job_does_not_block(void **state)
{
	Fabric f = two_tier(1, 4, 1e6);
	std::vector<JobSpec> jobs = {job(0, 2, 0, 100), job(1, 2, 1, 10), job(2, 1, 2, 10)};
	jobs[0].at = {0, 1};
	jobs[1].at = {0, 2};
	auto r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[2].start, 2, 1e-9);
	assert_near(r[1].start, 100, 1e-9);
	jobs[1].at.clear();
	jobs[1].nodes = 3;
	r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[2].start, 30, 1e-9);
}

// Priority before submit time: C (priority 20, submitted after B,
// priority 10) starts first when A ends.
static void test_priority_order(void **state)
{
	Fabric f = two_tier(1, 4, 1e6);
	std::vector<JobSpec> jobs = {job(0, 4, 0, 10), job(1, 4, 1, 10), job(2, 4, 2, 10)};
	jobs[1].priority = 10;
	jobs[2].priority = 20;
	auto r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[2].start, 10, 1e-9);
	assert_near(r[1].start, 20, 1e-9);
	// Equal priorities: submit order.
	jobs[2].priority = 10;
	r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[1].start, 10, 1e-9);
	assert_near(r[2].start, 20, 1e-9);
}

// Two leaves of 2 nodes; A holds node 0 and X node 2 for 100 s, so the
// only 2 free nodes are in two leaves.  B (2 nodes) without --switches
// starts at once over 2 leaves; with --switches=1@60 it is refused until
// its wait is over (61 s) and starts at the next backfill pass (90 s);
// with --switches=1 (max_switch_wait, 300 s) it waits for one leaf to
// free (100 s).
static void test_switches_wait(void **state)
{
	Fabric f = two_tier(2, 2, 1e6);
	auto mk = [](uint32_t sw, double wait) {
		std::vector<JobSpec> jobs = {job(0, 1, 0, 100), job(1, 1, 0, 100),
					     job(2, 1, 0, 100), job(3, 2, 1, 10)};
		jobs[3].switches = sw;
		jobs[3].switch_wait = wait;
		return jobs;
	};
	// Best fit puts the three 1-node jobs on nodes 0, 1 (leaf 0) and 2;
	// the middle one ends first so the free nodes are 1 and 3.
	auto jobs = mk(0, -1);
	jobs[1].iterations = 1;
	auto r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[3].start, 1, 1e-9);
	jobs = mk(1, 60);
	jobs[1].iterations = 1;
	r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[3].start, 90, 1e-9);
	jobs = mk(1, -1);
	jobs[1].iterations = 1;
	r = run(f, jobs, QueueOptions::Kind::Slurm);
	assert_near(r[3].start, 100, 1e-9);
}

// A larger mix finishes every job under both queues, and the Slurm queue
// never starts a job before it arrives.
static void test_all_jobs_finish(void **state)
{
	Fabric f = two_tier(4, 4, 1e6);
	std::vector<JobSpec> jobs;
	Rng rng(7);
	double t = 0;
	for (uint32_t i = 0; i < 200; i++) {
		t += rng.uniform() * 20;
		jobs.push_back(job(i, 1 + (uint32_t)rng.below(16), t,
				   10 + rng.below(300), rng.uniform() < 0.5 ? 0 : 600));
		jobs.back().priority = (double)rng.below(3);
	}
	for (auto kind : {QueueOptions::Kind::Slurm, QueueOptions::Kind::Greedy}) {
		auto r = run(f, jobs, kind);
		assert_int_equal(r.size(), jobs.size());
		for (size_t i = 0; i < r.size(); i++) {
			assert_true(r[i].start >= r[i].arrival - 1e-9);
			assert_near(r[i].finish - r[i].start, (double)jobs[i].iterations, 1e-6);
		}
	}
}

static void expect_throw(void (*fn)(), const char *needle)
{
	try {
		fn();
	} catch (const std::runtime_error &e) {
		assert_non_null(std::strstr(e.what(), needle));
		return;
	}
	fail_msg("no error (expected one naming '%s')", needle);
}

static void test_inputs(void **state)
{
	assert_near(parse_slurm_time("90"), 5400, 0);
	assert_near(parse_slurm_time("10:30"), 630, 0);
	assert_near(parse_slurm_time("01:00:05"), 3605, 0);
	assert_near(parse_slurm_time("2-03"), (2 * 24 + 3) * 3600, 0);
	assert_near(parse_slurm_time("1-00:30:00"), 86400 + 1800, 0);
	assert_near(parse_slurm_time("UNLIMITED"), kUnlimited, 0);
	assert_true(parse_slurm_time("") < 0);
	assert_true(parse_slurm_time("1:2:3:4") < 0);
	assert_true(parse_slurm_time("ten") < 0);

	QueueOptions o;
	parse_scheduler_parameters("bf_continue,bf_window=2880,bf_resolution=300,"
				   "bf_interval=60,bf_max_job_test=100,max_switch_wait=900",
				   "x", o);
	assert_near(o.bf_window, 2880 * 60, 0);
	assert_near(o.bf_resolution, 300, 0);
	assert_near(o.bf_interval, 60, 0);
	assert_int_equal(o.bf_max_job_test, 100);
	assert_near(o.max_switch_wait, 900, 0);
	expect_throw([] {
		QueueOptions q;
		parse_scheduler_parameters("bf_window=-5", "slurm.conf:7", q);
	}, "slurm.conf:7: SchedulerParameters bf_window='-5'");

	std::istringstream in(
		"arrival_s,nodes,profile,iterations,at,priority,time_limit,switches\n"
		"0,2,resnet50,10,,5,1:00:00,1@10:00\n"
		"1,2,resnet50,10\n");
	auto rows = read_trace(in, "t.csv");
	assert_int_equal(rows.size(), 2);
	assert_near(rows[0].priority, 5, 0);
	assert_near(rows[0].time_limit, 3600, 0);
	assert_int_equal(rows[0].switches, 1);
	assert_near(rows[0].switch_wait, 600, 0);
	assert_int_equal(rows[1].switches, 0);
	expect_throw([] {
		std::istringstream b("0,2,resnet50,10,,,,0@5\n");
		read_trace(b, "t.csv");
	}, "t.csv:1: switches '0@5'");
	expect_throw([] {
		std::istringstream b("0,2,resnet50,10,,,soon\n");
		read_trace(b, "t.csv");
	}, "t.csv:1: time_limit: 'soon'");
}

// slurm.conf: the last SchedulerParameters line counts; a bad value names
// file and line.
static void test_slurm_conf(void **state)
{
	const char *p = "test_sim_queue.slurm.conf";
	{
		std::ofstream o(p);
		o << "ClusterName=x\n# SchedulerParameters=bf_window=5\n"
		     "SchedulerParameters=bf_window=60\n"
		     "schedulerparameters=bf_resolution=120,defer   # comment\n";
	}
	QueueOptions q;
	read_slurm_conf(p, q);
	assert_near(q.bf_window, 1440 * 60, 0);  // reset by the later line
	assert_near(q.bf_resolution, 120, 0);
	{
		std::ofstream o(p);
		o << "SchedulerParameters=bf_resolution=0\n";
	}
	try {
		read_slurm_conf(p, q);
		fail_msg("bf_resolution=0 accepted");
	} catch (const std::runtime_error &e) {
		assert_non_null(std::strstr(e.what(), "test_sim_queue.slurm.conf:1"));
	}
	std::remove(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_backfill_reservation),
		cmocka_unit_test(test_main_scheduler_blocks),
		cmocka_unit_test(test_pinned_job_does_not_block),
		cmocka_unit_test(test_priority_order),
		cmocka_unit_test(test_switches_wait),
		cmocka_unit_test(test_all_jobs_finish),
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_slurm_conf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
