// The unified circle: jobs with different periods share one circle whose
// perimeter is the LCM of their periods rounded up to a quantum, capped.
// Demand patterns are discretised into bins (angles) on it.
// The rules, and why, are in doc/orrery-score.7.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/types.hpp"
#include "orrery.h"

namespace orrery {

// Accepted ranges of the circle options (orrery_link_score checks them).
constexpr uint32_t kMinBins = 8;
constexpr uint32_t kMaxBins = 10000;
constexpr int64_t kMaxCapUs = 86400LL * 1000000LL;      // one day
constexpr uint64_t kMaxExactBudget = 10000000000ULL;    // 1e10

struct CircleOpts {
	uint32_t bins = 360;
	int64_t quantum_us = 1000;
	int64_t cap_us = 60000000;
	uint64_t exact_budget = 20000000;

	// NULL gives the defaults.  Throws Error (ORRERY_ERANGE) naming the
	// field when a value is outside its documented range.
	static CircleOpts from_c(const orrery_circle_opts_t *o);
	void validate() const;
};

struct Circle {
	int64_t perimeter_us = 0;
	uint32_t bins = 0;
	// Each job's period as gated on this circle (rounded up to the
	// quantum actually used); perimeter is a multiple of every one,
	// unless smeared.
	std::vector<int64_t> gate_period_us;
	// Periods could not be unified under the cap: jobs whose gate period
	// does not divide the perimeter have their demand spread evenly
	// around the circle (rotation cannot help them).
	bool smeared = false;
	std::vector<uint8_t> spread;  // per job: 1 = demand spread evenly
	int64_t quantum_used_us = 0;

	double bin_width_us() const
	{
		return bins ? (double)perimeter_us / (double)bins : 0.0;
	}
	// Whole bins that fit in job j's gate period (at least 1): the
	// number of distinct rotations searched for it.
	uint32_t rotations(size_t j) const;
};

// Unify periods (each > 0).  Documented rule in doc/orrery-score.7.
Circle unify(const std::vector<int64_t> &periods, const CircleOpts &o);

// Demand of `p` on the circle in Mbit/s per bin (exact time-weighted mean
// over each bin), rotated by shift_us (the job's Up phases start shift_us
// later).  `scale` multiplies every phase demand (link mapping).
std::vector<double> discretise(const Pattern &p, double scale,
			       const Circle &c, size_t job_index,
			       int64_t shift_us);

// The same, sparse: (bin, demand) pairs for the bins the job touches, at
// a cost proportional to its phases and those bins rather than to the
// whole circle.  A bin may appear more than once (overlapping phases,
// wrap-around); the values add.  A spread job touches every bin.
void discretise_sparse(const Pattern &p, double scale, const Circle &c,
		       size_t job_index, double shift_us,
		       std::vector<std::pair<uint32_t, double>> &out);

}  // namespace orrery
