// Workloads: the CSV trace format, the synthetic generator and the two
// built-in scenarios.  See doc/orrery-sim.1 for the formats.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <orrery.h>

#include "job.hpp"

namespace sim {

// One trace row before resolution.
struct TraceRow {
	double arrival = 0;
	uint32_t nodes = 0;
	std::string profile;
	uint64_t iterations = 0;
	std::vector<uint32_t> at;  // optional 5th field: the job's nodes
	// Optional 6th to 8th fields (queue.hpp): priority, time limit (a
	// Slurm time), --switches (N or N@TIME).
	double priority = 0;
	double time_limit = 0;     // s; 0: the queue's default
	uint32_t switches = 0;
	double switch_wait = -1;   // s; -1: max_switch_wait
};

// Hard limits on trace input.
constexpr size_t kTraceMaxLine = 8192;
constexpr size_t kTraceMaxRows = 1000000;
constexpr uint64_t kTraceMaxIterations = 1000000000ULL;

// Parse `arrival_s,nodes,profile,iterations[,at[,priority[,time_limit[,
// switches]]]]` rows (empty optional fields: not given); '#' comments, blank
// lines and one header line are skipped; fields may be double-quoted
// (profiles contain commas).  Throws std::runtime_error naming the line.
std::vector<TraceRow> read_trace(std::istream &in, const std::string &name);
void write_trace(std::ostream &out, const std::vector<TraceRow> &rows);

struct Weighted {
	std::string value;
	double weight;
};

struct GeneratorOptions {
	double load = 0.8;          // offered node-seconds / (nodes * horizon)
	double horizon_s = 86400;   // arrivals in [0, horizon)
	double min_duration_s = 600, max_duration_s = 7200;  // log-uniform
	std::vector<Weighted> sizes;   // value = node count
	std::vector<Weighted> models;  // value = profile spec
	uint64_t seed = 1;
};

// Needs each (model, size) pair's isolated iteration time to turn a
// target duration into an iteration count.
class ProfileTable;
std::vector<TraceRow> generate(const GeneratorOptions &o, uint32_t cluster_nodes,
			       ProfileTable &profiles);

// "2:30,4:40,8:30" or "resnet50:1,bert:2" (weights default to 1; the last
// ':' separates the weight only if what follows is a number).
std::vector<Weighted> parse_mix(const std::string &s, const std::string &what);

struct Scenario {
	std::string name;
	orrery_fabric_t fabric{};
	uint32_t gpus_per_node = 1;
	GeneratorOptions gen;
	std::string description;
	uint32_t leaf_links = 1;  // parallel links of each leaf uplink (ECMP)
	uint32_t flows = 0;       // flows per job per uplink; 0 = liborrery's
};

// "testbed", "large" or "clos-ecmp"; throws on another name.
Scenario scenario(const std::string &name);

// Resolve rows into jobs (ids = row order).
std::vector<JobSpec> make_jobs(const std::vector<TraceRow> &rows,
			       ProfileTable &profiles);

// --profile-error E: each job's compute (the pattern's time outside its
// Up phases) becomes F times its profile's, F uniform in [1 - E, 1 + E]
// drawn from (seed, job id); its Up phases, iteration count and what
// placement and the gate are told (its profile) stay.  E in [0, 0.5].
void perturb_compute(std::vector<JobSpec> &jobs, double error, uint64_t seed);

}  // namespace sim
