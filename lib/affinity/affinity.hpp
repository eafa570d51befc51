// Consistent time shifts across links: the job-link affinity graph
// (CASSINI section 4).  Breadth-first from a root job with shift 0; moving
// from job j through link l to job k: t_k = (t_j - t_j^l + t_k^l) mod P_k.
#pragma once

#include <cstdint>
#include <vector>

#include "circle/score.hpp"

namespace orrery {

struct AffinityLink {
	uint32_t id;                    // caller's link id (switch index)
	uint64_t capacity_mbps;
	std::vector<size_t> jobs;       // indices into AffinityInput::periods
	std::vector<Pattern> patterns;  // per member, scaled to this link
};

struct AffinityResult {
	std::vector<int64_t> shift_us;  // per job
	struct Link {
		uint32_t id;
		double score_optimal;
		double score_achieved;
		bool loop_closing;
	};
	std::vector<Link> links;
	int loops = 0;
};

AffinityResult solve_affinity(const std::vector<int64_t> &periods_us,
			      const std::vector<AffinityLink> &links,
			      const CircleOpts &o);

}  // namespace orrery
