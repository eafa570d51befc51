// The simulator's queue: which pending job starts when, and on which nodes
// the policy may place it.  Two disciplines (doc/orrery-sim.1, Queue):
//
// slurm   Slurm 22.05's: pending jobs in priority order (then submit time,
//         then id).  The main scheduler runs at every submission and every
//         end and starts jobs from the front until the first one that
//         cannot start now (it blocks the partition: one partition here).
//         sched/backfill runs every bf_interval seconds: it plans when
//         running jobs end (start + time limit, on a bf_resolution grid),
//         walks the pending jobs in priority order (at most
//         bf_max_job_test), starts each job that can run now without
//         touching an earlier job's reservation for its whole time limit,
//         and reserves nodes for the others at their earliest start within
//         bf_window.  --switches=N@wait: a placement over more than N leaf
//         switches is refused until the job has waited `wait`.
// greedy  the simulator's earlier queue, kept to compare with: arrival
//         order, every job that fits now starts, no reservations.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "job.hpp"

namespace sim {

struct QueueOptions {
	enum class Kind { Slurm, Greedy };
	Kind kind = Kind::Greedy;
	// SchedulerParameters, with Slurm 22.05's defaults.
	double bf_interval = 30;        // s between backfill passes
	double bf_resolution = 60;      // s, the plan's time grid
	double bf_window = 1440 * 60;   // s (bf_window is given in minutes)
	uint32_t bf_max_job_test = 500; // jobs a pass considers
	double max_switch_wait = 300;   // s: --switches=N without @wait, and the cap
	// A job without a time limit gets this factor times its isolated run
	// time, rounded up to a minute (orrery-sim(1)).
	double time_limit_factor = 2;
};

// "slurm" or "greedy".
QueueOptions::Kind parse_queue_kind(const std::string &s);

// SchedulerParameters's keys the queue models (bf_interval, bf_resolution,
// bf_window, bf_max_job_test, max_switch_wait); other keys are ignored, as
// they do not change the order or the reservations modelled here.  Throws
// std::runtime_error naming `where` and the key on a bad value.
void parse_scheduler_parameters(const std::string &value, const std::string &where,
				QueueOptions &o);

// The SchedulerParameters= line of a slurm.conf (the last one wins, as in
// Slurm); no such line: the defaults.  Throws naming file and line.
void read_slurm_conf(const std::string &path, QueueOptions &o);

// A Slurm time as sbatch --time and sacct's Timelimit write it: minutes,
// minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes,
// days-hours:minutes:seconds.  Returns seconds; -1 if it does not parse.
// UNLIMITED and INFINITE give kUnlimited.
constexpr double kUnlimited = 365.0 * 86400;  // as far as the plan looks
double parse_slurm_time(const std::string &s);

// --switches's value: N or N@TIME (TIME as above).  Throws naming `where`.
void parse_switches(const std::string &s, const std::string &where,
		    uint32_t &count, double &wait);

// A job's time limit (s) for the backfill plan: its own, or the factor of
// its isolated run time; at least one minute.
double job_time_limit(const JobSpec &j, double isolated, const QueueOptions &o);

class JobQueue {
public:
	// The policy's placement of job j on the nodes set in avail, as it
	// would be at time t (the --switches wait is judged at t).
	using PlaceFn = std::function<bool(uint32_t j, const std::vector<uint8_t> &avail,
					   double t, Placement &out)>;
	// Start job j now on out.nodes (all free).
	using StartFn = std::function<void(uint32_t j, double now, Placement &&pl)>;

	JobQueue(const QueueOptions &o, const std::vector<JobSpec> &jobs,
		 std::vector<double> limits, PlaceFn place, StartFn start);

	void arrive(uint32_t j);
	void ended(uint32_t j);
	// The main scheduler (greedy: the whole scan); free is the engine's
	// free-node mask, updated by StartFn as jobs start.
	void schedule(double now, const std::vector<uint8_t> &free, size_t n_free);
	// One sched/backfill pass (slurm only).
	void backfill(double now, const std::vector<uint8_t> &free);
	// When the next backfill pass runs: the next multiple of bf_interval
	// after now while jobs are pending; < 0 when none is needed.
	double next_backfill(double now) const;
	bool empty() const { return pending_.empty(); }
	uint64_t backfilled() const { return backfilled_; }
	uint64_t reservations() const { return reservations_; }

private:
	struct Slice {
		double begin;
		std::vector<uint8_t> avail;
	};
	bool before(uint32_t a, uint32_t b) const;
	void start(uint32_t j, double now, Placement &&pl);
	size_t split(std::vector<Slice> &s, double t) const;
	double grid(double t) const;

	QueueOptions opt_;
	const std::vector<JobSpec> &jobs_;
	std::vector<double> limit_;
	PlaceFn place_;
	StartFn start_;
	std::vector<uint32_t> pending_;   // slurm: priority order; greedy: arrival
	std::vector<double> started_at_;  // per job, < 0: not running
	std::vector<std::vector<uint32_t>> nodes_;  // per running job
	std::vector<uint32_t> running_;
	bool dirty_ = true;       // something changed since the last pass
	double recheck_at_ = -1;  // a pass must run again at this time
	uint64_t backfilled_ = 0, reservations_ = 0;
};

}  // namespace sim
