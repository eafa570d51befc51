// Fast-forward ("cruise") of jobs that cannot be slowed down.
//
// A network link can never carry more than its capacity while the sum,
// over the running jobs whose flows cross it, of each job's peak load on
// it (weight * demand, the most of any of its phases: a job has one Up
// phase at a time) is within its capacity.  Such a link is never a
// bottleneck and never counts as over capacity (network.hpp).  An
// ungated job whose every crossed link is safe in that sense runs at its
// isolated timing, so the engine can replace its iterations with one
// event and, when a newcomer makes one of its links unsafe, work out
// where it is from the clock (engine.cpp, resume).
//
// Headroom keeps those sums per network link (ECMP links separately: the
// crossings are the hashed ones) and which jobs cross each link.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric.hpp"
#include "job.hpp"

namespace sim {

class Headroom {
public:
	explicit Headroom(const std::vector<double> &cap_mbps);

	// Job j starts: its peak load per link from its phases' crossings
	// (cross[i] for phase i of pat).  Fills `unsafe` with the links of
	// j that are not safe now.
	void join(uint32_t j, const std::vector<std::vector<Crossing>> &cross,
		  const Pattern &pat, std::vector<uint32_t> &unsafe);
	// Job j sends no more.
	void leave(uint32_t j);
	// Every link job j crosses is safe.
	bool safe(uint32_t j) const;
	// Jobs that joined and have not left, crossing link l.
	const std::vector<uint32_t> &jobs_on(uint32_t l) const { return links_[l].jobs; }

private:
	struct Link {
		double cap = 0;
		double peak = 0;              // sum of the joined jobs' peaks
		std::vector<uint32_t> jobs;
	};
	struct Load {
		uint32_t link;
		double peak;
	};
	bool link_safe(const Link &l) const;

	std::vector<Link> links_;
	std::vector<std::vector<Load>> jobs_;  // per job index
};

// A job's iteration at its isolated timing, as the engine steps it: Up
// phase i starts at at[i] after the iteration's start and lasts up[i],
// the next iteration starts `length` after it.  (Overlapping phases run
// back to back with the gaps the engine keeps, and a phase on the network
// with no bytes ends at once, so this can differ from
// Pattern::iteration_time().)  cross[i]: phase i's crossings.
struct Cycle {
	std::vector<double> at, up;
	double length = 0;
};
Cycle isolated_cycle(const Pattern &pat,
		     const std::vector<std::vector<Crossing>> &cross);

}  // namespace sim
