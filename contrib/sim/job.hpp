// Jobs as the engine sees them: a resolved periodic pattern, a size and an
// iteration count.  Times in seconds, rates in Mbit/s per node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric.hpp"

namespace sim {

struct Phase {
	double offset = 0;    // start within the period, s
	double duration = 0;  // Up time in isolation, s
	double demand = 0;    // per-node Mbit/s while Up (<= NIC rate)
	Coll coll = Coll::Ring;
	uint32_t groups = 0;  // pipeline stages or rails (orrery_phase_t)
};

// Phases sorted by offset.  Phases that overlap in the profile are run one
// after the other (their bytes are kept; see iteration_time()).
struct Pattern {
	double period = 0;
	std::vector<Phase> phases;

	// Iteration time of the job alone on the fabric: phases back to back
	// at their offsets, at least the period.
	double iteration_time() const;
};

struct JobSpec {
	uint32_t id = 0;
	double arrival = 0;       // s
	uint32_t nodes = 0;
	uint64_t iterations = 0;
	std::string profile;      // the spec as written in the trace
	uint32_t profile_index = 0;  // in the ProfileTable (bridge.hpp)
	uint32_t flows = 0;       // flows per uplink (ECMP); 0 = the fabric's
	std::vector<uint32_t> at; // nodes the trace pins it to (sorted); empty:
				  // the policy chooses
	Pattern pattern;          // resolved for this job's shape and fabric:
				  // what the job does on the fabric
	// Phase 0's offset in the job's profile, where its gate puts the
	// slot; < 0: pattern's own.  Differs from pattern's when the job's
	// compute differs from its profile (--profile-error).
	double gate_offset = -1;
	// The queue (queue.hpp): Slurm's job priority (higher first; equal:
	// submit order, as priority/basic gives), the time limit the
	// backfill plan uses (0: the queue's default), and --switches=N@wait
	// (N = 0: none; wait < 0: the queue's max_switch_wait).
	double priority = 0;
	double time_limit = 0;    // s
	uint32_t switches = 0;
	double switch_wait = -1;  // s
};

// Where a job runs and whether it is gated.
struct Placement {
	std::vector<uint32_t> nodes;
	bool gated = false;
	double shift = 0;        // s, in [0, gate_period)
	double gate_period = 0;  // s
	// Set by a policy that refuses to start the job now although `nodes`
	// (filled in) would take it: the queue reserves them (orrery-hold).
	bool held = false;
	// With held: when the hold ends at the latest (eligible +
	// hold_max_s), the start the queue plans it for.
	double held_until = 0;
};

}  // namespace sim
