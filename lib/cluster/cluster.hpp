// Running jobs on a topology, with their shifts; persistence.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "circle/score.hpp"
#include "topology/topology.hpp"

namespace orrery {

struct RunningJob {
	uint32_t id = 0;
	std::vector<uint32_t> nodes;   // sorted topology node indices
	Pattern pattern;               // explicit
	int64_t shift_us = 0;
	std::vector<Crossing> links;   // cached crossings
};

class Cluster {
public:
	Cluster(Topology t, CircleOpts circle, uint32_t max_candidates);

	const Topology &topology() const { return topo_; }
	const CircleOpts &circle() const { return circle_; }
	uint32_t max_candidates() const { return max_candidates_; }
	int64_t epoch_us = 0;

	void add_job(uint32_t id, std::vector<uint32_t> nodes, Pattern p,
		     int64_t shift_us);
	bool remove_job(uint32_t id);
	const std::map<uint32_t, RunningJob> &jobs() const { return jobs_; }
	// Jobs crossing the uplink of switch sw.
	const std::vector<uint32_t> &jobs_on_link(size_t sw) const;
	uint64_t version() const { return version_; }

	void save(const std::string &path) const;
	// Returns jobs dropped (unknown nodes); leaves *this unchanged on error.
	size_t load(const std::string &path);

private:
	Topology topo_;
	CircleOpts circle_;
	uint32_t max_candidates_;
	std::map<uint32_t, RunningJob> jobs_;
	std::vector<std::vector<uint32_t>> link_jobs_;
	uint64_t version_ = 0;
};

}  // namespace orrery
