// The event-driven simulator.  One priority queue of timed events (ties
// broken by insertion order, so a run is deterministic); events are job
// arrivals, the end of a compute (Down) gap, a gate slot, the end of an
// Up phase, and job completion.  Link rates are re-solved only when an Up
// phase starts or ends (network.hpp).
//
// Queue discipline, the same for every policy: queue.hpp (Slurm's main
// scheduler and backfill with reservations, or the earlier greedy scan).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fabric.hpp"
#include "job.hpp"
#include "queue.hpp"

namespace sim {

// New gate parameters for a running job (re-alignment), or for the job
// just started (its gate at launch).
struct GateChange {
	uint32_t job_id = 0;
	bool gated = false;
	double period = 0;  // s
	double shift = 0;   // s, in [0, period)
};

// A link group's decision when it was made (orrery: the groups a
// re-alignment re-solved; the ones it carried over are not repeated).
struct GroupRecord {
	double time = 0;                // s, set by the engine
	std::vector<uint32_t> jobs;     // job ids
	uint32_t links = 0;             // constrained uplinks in the group
	std::string mode;               // rotate, divide, share
	double score = 0;               // lowest rotation score achieved
	// Mean predicted slowdown per mode (< 0: not predicted).
	double rotate = -1, divide = -1, share = -1;
	double period = 0;              // s, time division's common period; 0: none
	std::string reason;
};

// A placement policy.  place() gets the free-node mask and must either
// fill `out` with exactly job.nodes free nodes and return true, or return
// false (the job stays queued).  started() and ended() tell the policy
// which jobs hold which nodes (orrery keeps its cluster state with them).
class Policy {
public:
	virtual ~Policy() = default;
	virtual const char *name() const = 0;
	// Set by the engine before each place(): at most this many leaf
	// switches (the job's --switches while it waits; 0: no limit).  The
	// engine refuses a placement over more; a policy that ranks several
	// candidates may pick the first within it, as select/orrery does.
	uint32_t leaf_limit = 0;
	virtual bool place(const std::vector<uint8_t> &free, const JobSpec &job,
			   double now, Placement &out) = 0;
	// A job the trace pins to its nodes (JobSpec::at, all free): the
	// policy sets the gate only.  Default: ungated.
	virtual void place_at(const JobSpec &job, double, Placement &out)
	{
		out.nodes = job.at;
	}
	virtual void started(const JobSpec &, const Placement &, double) {}
	virtual void ended(const JobSpec &) {}
	// After started() and ended(): gate parameters that changed.  A
	// change for the job just started that turns its gate off replaces its
	// Placement's gate at once, one that gates it applies with the running
	// jobs' (EngineOptions::newcomer_with_group): at the job's first
	// iteration boundary at least EngineOptions::realign_delay later.
	virtual void gate_changes(std::vector<GateChange> &) {}
	// A gated job's measured iteration, µs: the shortest work of each
	// window its gate completes (orrery_gate_stats_t.min_work_us).  True: the policy took it (the job's
	// model changed) and gate changes may wait (gate_changes), applied as
	// after an end.  The orrery policies take it when learn_tolerance >= 0
	// (orrery-sim --learn-periods) and it is off by more than that.
	virtual bool measured(const JobSpec &, int64_t) { return false; }
	double learn_tolerance = -1;
	// After gate_changes(): the link-group decisions made since the last
	// call (GroupRecord::time is the engine's to set).
	virtual void group_decisions(std::vector<GroupRecord> &) {}
	// ideal: no link contention (every job at its isolated time).
	virtual bool ideal() const { return false; }
	// mltcp: a flow's share of a bottleneck grows with the bytes its job
	// has sent in the current iteration (doc/orrery-sim.1, POLICIES).
	virtual bool mltcp() const { return false; }
	// Perfect interleaving (the bound policies): each job's bytes of an
	// iteration are sent evenly over its isolated iteration time, one
	// flow at its mean rate on each link, so that a link is over capacity
	// only when its jobs' mean loads are (doc/orrery-sim.1, POLICIES).
	virtual bool smooth() const { return false; }
	// alone: each job's flows contend only with its own (every job has a
	// copy of the fabric's links to itself): what each job would take if
	// it were the only one on the fabric, on the same nodes
	// (default-alone, doc/orrery-sim.1, POLICIES).
	virtual bool alone() const { return false; }
};

struct JobResult {
	uint32_t id = 0;
	uint32_t nodes = 0;
	double arrival = 0, start = 0, finish = 0;
	double isolated = 0;   // iterations * isolated iteration time
	uint32_t links = 0;    // constrained uplinks crossed
	bool gated = false;
	double shift = 0, gate_period = 0;
	uint64_t gate_missed = 0;   // slots the gate counted as missed
	bool gate_disabled = false; // the gate was off at the end
	double gate_wait = 0;       // s spent waiting at the gate
	uint64_t gate_reanchored = 0;  // the gate re-anchored (all its gates)
	uint64_t gate_rearmed = 0;     // ... went back to its grid or on
	uint64_t gate_disables = 0;    // ... turned itself off
	double iter_min = 0;    // s: the gate's measured work per iteration
	double iter_range = 0;  // s: ... how much it varies (orrery.h range_us)
	uint32_t realigned = 0;        // gate changes applied while running
	uint32_t learned = 0;          // times the policy took its measured
				       // iteration (Policy::measured)
	bool ever_gated = false;       // gated at some point of its run
	double jct() const { return finish - arrival; }
	double run() const { return finish - start; }
	// Run time over the job's isolated run time (>= 1 up to rounding).
	double slowdown() const { return isolated > 0 ? run() / isolated : 1; }
};

struct SimStats {
	double makespan = 0;         // last finish - first arrival
	double over_link_s = 0;      // link-seconds with offered load > capacity
	double over_bytes = 0;       // bytes carried on such links then
	std::vector<double> link_over_s;  // per network link (Fabric)
	std::vector<GroupRecord> groups;  // the policy's group decisions
	uint64_t events = 0;
	uint64_t solves = 0;
	uint64_t backfilled = 0;     // jobs sched/backfill started (slurm queue)
	uint64_t reservations = 0;   // reservations it made, over all passes
	double wall_s = 0;
	double sim_s = 0;
};

struct EngineOptions {
	double epoch = 0;            // slot origin (the cluster epoch), s
	bool progress = false;       // progress line on stderr
	std::string label;           // shown in the progress line
	double realign_delay = 5;    // s before a running job's gate change
	// Gates' late tolerance as a fraction of their period (0: the
	// gate's default, period / 10; orrery_gate_params_t).
	double gate_late_tolerance = 0;
	// Every gate's margin (orrery_gate_params_t.margin_ppm), the same for
	// all jobs, as a site sets it for all of Slurm's (spank-orrery(8),
	// gate_margin=).  0: none.
	uint32_t gate_margin_ppm = 0;
	// The newcomer's gate change (its group's re-alignment at its start)
	// applies with the running jobs' changes, realign_delay later; until
	// then it runs on its placement's gate.  This is what select/orrery
	// does (its launch gate is job_begin's evaluation, the group's new
	// gate a channel record with the neighbours' lead; a gate turned off
	// holds at once).  false (--newcomer-gate at-start): at its start.
	bool newcomer_with_group = true;
	uint64_t ecmp_seed = 1;      // hashes flows onto parallel links
	QueueOptions queue;          // greedy unless the caller says slurm
	// Fast-forward jobs that cannot be slowed (cruise.hpp): the same
	// results in fewer events.  Off: every iteration is stepped.
	bool fast_forward = true;
	// --iteration-jitter J: every compute gap a stepped job runs (before
	// each Up phase and the iteration's tail) is its pattern's times a
	// factor uniform in [1 - J, 1 + J], drawn from (jitter_seed, job id,
	// iteration, phase): the job's own noise, which its profile and gate
	// do not know.  A cruising job runs its mean (cruise.hpp).  0: none.
	double iteration_jitter = 0;
	// --transfer-jitter T: every Up phase a stepped job sends on a
	// constrained link carries its pattern's bits times a factor uniform
	// in [1 - T, 1 + T], drawn as above but independently of the compute
	// gaps: a transfer that takes longer or shorter than profiled (a
	// drop-tail queue's losses, another rank late to the collective).
	// A phase a cruising job resumes in the middle of runs its mean.
	double transfer_jitter = 0;
	uint64_t jitter_seed = 1;
};

class Engine {
public:
	Engine(const Fabric &f, Policy &p, EngineOptions o = {});
	// Runs the jobs (any order; sorted by arrival, then id).  Throws
	// std::runtime_error if a job can never fit.
	std::vector<JobResult> run(std::vector<JobSpec> jobs, SimStats &stats);

private:
	const Fabric &fabric_;
	Policy &policy_;
	EngineOptions opt_;
};

}  // namespace sim
