// The gate: when a job runs with a time shift, each Up phase waits for its
// next slot.  Slot k of a phase with offset o starts at
//     epoch + shift + o + k * period
// where period is the job's gate period (its iteration time rounded up to
// the circle quantum).  A phase that is ready exactly at (or within
// `tolerance` after) a slot goes at once; a late one waits for the next.
//
// NOTE: this is the policy the job-side gate applies at run time.  It lives
// here for now so the simulator can use it; it moves into liborrery (and
// the simulator will call that copy) with the runtime/gate issue.
#pragma once

#include <cmath>

namespace sim {

// Earliest slot time >= now - tolerance for a phase anchored at
// anchor = epoch + shift + offset, repeating every period (> 0).
inline double gate_next_slot(double now, double anchor, double period,
			     double tolerance = 1e-9)
{
	double k = std::ceil((now - tolerance - anchor) / period);
	double t = anchor + k * period;
	// Floating-point guard: never return a slot before now - tolerance.
	if (t < now - tolerance)
		t += period;
	return t < now ? now : t;
}

}  // namespace sim
