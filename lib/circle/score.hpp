// Compatibility score of one link and the search for best rotations.
//   score = 1 - (1/A) * sum_a max(0, sum_j d_j(a - r_j) - C) / C
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "circle/circle.hpp"

namespace orrery {

// One job on one link: its pattern with demands already scaled to the link.
struct LinkJob {
	Pattern pattern;
	std::optional<int64_t> fixed_shift_us;  // nullopt = free to rotate
};

struct LinkScore {
	Circle circle;
	double score = 1.0;
	double score_unshifted = 1.0;      // every free job at shift 0
	double over_fraction = 0.0;
	double over_fraction_unshifted = 0.0;
	std::vector<int64_t> shift_us;     // per job, in [0, gate period)
	bool exact = true;
};

// Score of the given shifts.
double score_of(const std::vector<std::vector<double>> &demand,
		uint64_t capacity_mbps, double *over_fraction);

// Best rotations for the free jobs (exact search when the search space
// times the circle fits exact_budget, else greedy + coordinate descent).
// Deterministic; ties go to the smallest shifts.
LinkScore best_rotations(const std::vector<LinkJob> &jobs,
			 uint64_t capacity_mbps, const CircleOpts &o);

// One newcomer across several links, other jobs pinned: the one shift
// (in [0, newcomer gate period)) maximising min link score, then mean.
struct LinkProblem {
	uint64_t capacity_mbps = 0;   // 0 = unknown: unconstrained, score 1
	std::vector<LinkJob> others;  // all with fixed_shift_us set
	Pattern newcomer;             // scaled to this link
};
struct LinkOutcome {
	double score = 1.0;
	double over_fraction = 0.0;
	double score_unshifted = 1.0;
};
struct NewcomerShift {
	int64_t shift_us = 0;
	int64_t gate_period_us = 0;
	std::vector<LinkOutcome> links;
	double score_min = 1.0;
	double score_mean = 1.0;
};
NewcomerShift best_newcomer_shift(const std::vector<LinkProblem> &links,
				  int64_t newcomer_period_us,
				  const CircleOpts &o);

}  // namespace orrery
