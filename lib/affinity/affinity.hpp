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
	uint32_t links = 1;             // parallel links (ECMP)
	uint32_t flows = kDefaultFlows; // flows of a member that says none

	LinkCap cap() const { return LinkCap(capacity_mbps, links, flows); }
	// What the link carries when all its members send at once: the
	// capacity less the expected ECMP collision excess of their flows
	// (lib/circle/ecmp.hpp); the capacity on a single pipe.  The time
	// division's predictions (lib/tdiv) use it.
	double effective_mbps() const;
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
