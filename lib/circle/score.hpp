// Compatibility score of one link and the search for best rotations.
//   score = 1 - (1/A) * sum_a max(0, sum_j d_j(a - r_j) - C) / C
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "circle/circle.hpp"
#include "circle/ecmp.hpp"

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
	// Candidate configurations scored by the search (benchmarks).
	uint64_t evaluations = 0;
};

// Bins count as over capacity when their total exceeds C by more than
// this fraction of C (rounding noise is not congestion).
constexpr double kOverEpsilon = 1e-9;

// Most demand-vector operations the heuristic search may plan for; past
// it, candidate rotations are thinned (doc/orrery-score.7).
constexpr double kHeuristicMaxOps = 1e9;

// Score of per-job demand vectors (already rotated), all of one length.
// capacity 0 = unknown: score 1, over fraction 0.
double score_of(const std::vector<std::vector<double>> &demand,
		uint64_t capacity_mbps, double *over_fraction);
// The same from the total demand per bin.
double score_of_total(const std::vector<double> &total,
		      uint64_t capacity_mbps, double *over_fraction);
// With parallel links: flows[b] = flows Up in bin b (lib/circle/ecmp.hpp);
// the excess of a bin is the expected one.  One link: score_of_total.
double score_of_bins(const std::vector<double> &total,
		     const std::vector<uint32_t> &flows, const LinkCap &cap,
		     double *over_fraction);

// Score of the given shifts on a circle (µs, any value; reduced modulo
// each job's gate period).
double score_shifts(const std::vector<LinkJob> &jobs, const Circle &c,
		    const std::vector<int64_t> &shift_us,
		    const LinkCap &cap, double *over_fraction);

// The circle the jobs share.
Circle circle_of(const std::vector<LinkJob> &jobs, const CircleOpts &o);

// Best rotations for the free jobs (exact search when the search space
// times the circle fits exact_budget, else greedy + coordinate descent).
// Deterministic; ties go to the smallest shifts.
LinkScore best_rotations(const std::vector<LinkJob> &jobs,
			 const LinkCap &cap, const CircleOpts &o);

// One newcomer across several links, other jobs pinned: the one shift
// (in [0, newcomer gate period)) maximising min link score, then mean,
// then the smallest shift.  Each link has its own circle (its jobs'
// periods and the newcomer's).  Candidates are multiples of
// gate_period / R, R = the fewest whole bins the newcomer's gate period
// spans on any of its links (at most bins).  When links needed different
// quanta, gate_period_us is the longest of the newcomer's gate periods
// and the shift is taken modulo each link's own.
struct PinnedLoad;
struct LinkProblem {
	uint64_t capacity_mbps = 0;   // 0 = unknown: unconstrained, score 1
	uint32_t links = 1;           // parallel links (ECMP)
	uint32_t flows = kDefaultFlows;  // default flows per job
	std::vector<LinkJob> others;  // all with fixed_shift_us set
	Pattern newcomer;             // scaled to this link
	// Optional: pinned_load(others, ...) for this link, capacity and
	// newcomer period, built once by a caller that asks about the same
	// link again (lib/circle/pinned_load.hpp); others is then not read.
	// Owned by the caller, alive for the call.
	const PinnedLoad *pinned = nullptr;
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
	uint64_t evaluations = 0;  // candidate shifts x links scored
	uint64_t run_evaluations = 0;  // of those, by runs (by_runs)
};
// stop_at_perfect: stop at the first shift scoring 1 everywhere (on
// single pipes nothing later can win; same answer, fewer evaluations);
// false scores every candidate shift (tests compare the two).
// by_runs: score whole-bin rotations of the newcomer by runs of equal
// demand and prefix sums where that is cheaper (score.cpp, prefix_runs);
// false walks its bins one by one (tests compare the two).
NewcomerShift best_newcomer_shift(const std::vector<LinkProblem> &links,
				  int64_t newcomer_period_us,
				  const CircleOpts &o, bool stop_at_perfect = true,
				  bool by_runs = true);

}  // namespace orrery
