// The unified circle: jobs with different periods share one circle whose
// perimeter is the LCM of their periods rounded up to a quantum, capped.
// Demand patterns are discretised into bins (angles) on it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/types.hpp"
#include "orrery.h"

namespace orrery {

struct CircleOpts {
	uint32_t bins = 360;
	int64_t quantum_us = 1000;
	int64_t cap_us = 60000000;
	uint64_t exact_budget = 20000000;

	static CircleOpts from_c(const orrery_circle_opts_t *o);
};

struct Circle {
	int64_t perimeter_us = 0;
	uint32_t bins = 0;
	// Each job's period as gated on this circle (rounded up to the
	// quantum actually used); perimeter is a multiple of every one,
	// unless smeared.
	std::vector<int64_t> gate_period_us;
	// Periods could not be unified under the cap: every job's demand is
	// spread evenly around the circle (rotation cannot help).
	bool smeared = false;
	int64_t quantum_used_us = 0;
};

// Unify periods (each > 0).  Documented rule in doc/orrery-score.7.
Circle unify(const std::vector<int64_t> &periods, const CircleOpts &o);

// Demand of `p` on the circle in Mbit/s per bin (exact time-weighted mean
// over each bin), rotated by shift_us (the job's Up phases start shift_us
// later).  `scale` multiplies every phase demand (link mapping).
std::vector<double> discretise(const Pattern &p, double scale,
			       const Circle &c, size_t job_index,
			       int64_t shift_us);

}  // namespace orrery
