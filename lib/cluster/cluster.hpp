// Running jobs on a topology, with their shifts; persistence.
//
// A Cluster is what the select plugin keeps between scheduling passes: the
// fabric, every running job's node set, explicit pattern and time shift, and
// an index from each uplink to the jobs whose traffic crosses it.  Nodes may
// be shared by several jobs (Slurm's OverSubscribe): each job's traffic is
// then simply counted on the links it crosses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "circle/score.hpp"
#include "orrery.h"
#include "topology/topology.hpp"

namespace orrery {

// Hard limits on what a cluster (and so a state file) may hold.
constexpr size_t kMaxClusterJobs = 1000000;
constexpr size_t kStateFileMax = 64u << 20;    // bytes
constexpr size_t kStateLineMax = 4u << 20;     // bytes in one line

struct RunningJob {
	uint32_t id = 0;
	std::vector<uint32_t> nodes;   // sorted, distinct topology node indices
	Pattern pattern;               // explicit
	int64_t shift_us = 0;
	int64_t gate_period_us = 0;    // pattern period rounded up to the quantum
	// Bumped when the pattern is retimed to a measured iteration
	// (retime_job): a link group holding the job is then re-solved.
	uint32_t revision = 0;
	// The latest measured iterations (Cluster::measured), newest at
	// measured[(n_measured - 1) % kMeasuredKept].
	static constexpr size_t kMeasuredKept = ORRERY_MEASURED_KEPT;
	int64_t measured[kMeasuredKept] = {};
	uint32_t n_measured = 0;
	std::vector<Crossing> links;   // cached crossings, ascending switch

	// The crossing of this job at switch sw, or nullptr.
	const Crossing *crossing(size_t sw) const;
};

// The measured-iteration rule (orrery_measured_off): the shortest of
// w[0..n) in *shortest, and whether it is more than tolerance off
// period_us.  False when n is not 2..kMeasuredKept or period_us <= 0.
bool measured_off(const int64_t *w, size_t n, int64_t period_us,
		  double tolerance, int64_t *shortest);

// A pattern's period rounded up to the circle quantum: the period a job is
// gated to when nothing forces a coarser one.
int64_t gate_period(const Pattern &p, const CircleOpts &o);

class Cluster {
public:
	// t must be finalized (ORRERY_ESTATE otherwise).  epoch_us starts at
	// the current wall-clock time.
	Cluster(Topology t, CircleOpts circle, uint32_t max_candidates);

	const Topology &topology() const { return topo_; }
	const CircleOpts &circle() const { return circle_; }
	uint32_t max_candidates() const { return max_candidates_; }
	// How many more leaves / switch levels the contention-aware ranking
	// may spread a job (placement/rank.cpp); 0: locality first, always.
	uint32_t rank_spread() const { return rank_spread_; }
	void set_rank_spread(uint32_t s) { rank_spread_ = s; }
	int64_t epoch_us() const { return epoch_us_; }
	void set_epoch_us(int64_t e);

	// Throws ORRERY_EINVAL (duplicate id, empty or repeated node, pattern
	// not explicit), ORRERY_ERANGE (node index, shift), ORRERY_ELIMIT.
	void add_job(uint32_t id, std::vector<uint32_t> nodes, Pattern p,
		     int64_t shift_us);
	bool remove_job(uint32_t id);
	// Replace a job's shift (solve with apply).  Throws ORRERY_ENOENT.
	void set_shift(uint32_t id, int64_t shift_us);
	// Replace a job's pattern by the same phases at another period
	// (retime_pattern: the job's measured iteration); its nodes and
	// links stay, its shift is kept within the new gate period.  Throws
	// ORRERY_ENOENT, and what retime_pattern throws (nothing changed).
	void retime_job(uint32_t id, const Pattern &p);
	// A measured iteration of job id (orrery_cluster_job_measured).  The
	// job is retimed from `profile' (the pattern it was given) to the
	// shortest of its latest kMeasuredKept measurements (at least two)
	// when that is off the period it is modelled with by more than
	// tolerance (a fraction).  Returns whether it was.  Throws as
	// retime_job.
	bool measured(uint32_t id, int64_t iteration_us, double tolerance,
		      const Pattern &profile);
	const RunningJob *job(uint32_t id) const;
	const std::map<uint32_t, RunningJob> &jobs() const { return jobs_; }
	// Ids of the jobs crossing the uplink of switch sw, ascending.
	const std::vector<uint32_t> &jobs_on_link(size_t sw) const;
	// Bumped on every change (add, remove, shift, load, epoch).
	uint64_t version() const { return version_; }

	// State file (cluster/state_file.cpp, doc/orrery-state.5).
	void save(const std::string &path) const;
	// A state file read and checked against this cluster's topology, not
	// yet applied: reading throws and leaves *this alone; apply() cannot
	// fail.  (So that a caller keeping more beside the cluster, orrery.h's
	// handle, needs no copy of the whole cluster to load all-or-nothing.)
	struct Loaded {
		std::map<uint32_t, RunningJob> jobs;
		std::vector<std::vector<uint32_t>> link_jobs;
		int64_t epoch_us = 0;
		size_t dropped = 0;  // jobs on nodes the topology lacks
	};
	Loaded read_state(const std::string &path) const;
	// Same, from bytes in memory (origin names them in messages).
	Loaded parse_state(const std::string &data, const std::string &origin) const;
	void apply(Loaded &&s) noexcept;
	// read_state/parse_state + apply: returns jobs dropped (unknown nodes);
	// leaves *this unchanged on error.
	size_t load(const std::string &path);
	size_t load_data(const std::string &data, const std::string &origin);
	std::string serialise() const;

private:
	void index_job(const RunningJob &j);
	void unindex_job(const RunningJob &j);

	Topology topo_;
	CircleOpts circle_;
	uint32_t max_candidates_;
	uint32_t rank_spread_ = 0;
	int64_t epoch_us_ = 0;
	std::map<uint32_t, RunningJob> jobs_;
	std::vector<std::vector<uint32_t>> link_jobs_;
	uint64_t version_ = 0;
};

// The state file's atomic, durable write (state_file.cpp).
void write_state_file(const std::string &path, const char *data, size_t len);

}  // namespace orrery
