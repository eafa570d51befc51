// Time division of a link group, and the fluid model that predicts what
// each job's iteration time would be under each way of sharing.
//
// A link group is a connected set of constrained uplinks (capacity known,
// at least two jobs each) together with the jobs that cross them.  When
// rotation cannot keep the jobs' Up phases apart (best score < 1), the
// group may instead be time-divided: every job is gated to one common
// period G and gets its own slot (shift) in it, so that no link of the
// group is ever over capacity.  Whether that pays is decided per group
// from the same fluid model (max-min fair sharing of the group's links,
// the rule the simulator uses) run three ways: gated at each job's own
// period with the rotation shifts ("rotate"), gated to G with the slots
// ("divide"), and ungated, starting in step ("share").  The rules are in
// doc/orrery-score.7, TIME DIVISION.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "affinity/affinity.hpp"
#include "circle/circle.hpp"
#include "core/types.hpp"

namespace orrery {

// Groups larger than these are not time-divided (a common period over so
// many jobs is longer than any of them gains) / not predicted at all (the
// group is left to rotation, as before).
constexpr size_t kMaxDivideJobs = 16;
constexpr size_t kMaxPredictJobs = 64;

// One link of a group: its members (indices into the caller's job list)
// and each member's pattern as scaled to this link; the affinity graph's
// link, so the rotation solve and the division read the same links.
using DivLink = AffinityLink;

// A gate as the fluid model applies it: period 0 = ungated.  Slots are
// shift + k * period from time 0; the first Up phase of an iteration waits
// for the next unused slot moved by that phase's offset (as the simulator
// and the job-side runtime ask the gate).
struct FluidGate {
	int64_t period_us = 0;
	int64_t shift_us = 0;
};

// Iteration time of a pattern alone: phases back to back at their offsets
// (overlapping phases run one after the other), at least the period.
int64_t isolated_iteration_us(const Pattern &p);

// Mean iteration time (µs) of each job of `jobs` (node-level patterns)
// over the links given, every job starting at time 0, after a warm-up of
// a few iterations.  gates: one per job.  Deterministic.
std::vector<double> predict_iterations(const std::vector<Pattern> &jobs,
				       const std::vector<DivLink> &links,
				       const std::vector<FluidGate> &gates);

// A common period and one slot per job such that no link is over
// capacity (each job's own demand clamped to the link's capacity): the
// shortest period found on a grid from the lower bound (longest isolated
// iteration; busiest link's bytes over its capacity) to serialising the
// jobs' communication spans, which always fits.
struct TimeDivision {
	int64_t period_us = 0;                // the common period; 0 = none found
	std::vector<int64_t> job_period_us;  // per job: period_us, or a whole fraction of it
	std::vector<int64_t> shift_us;       // per job, in [0, its period)
	uint32_t periods_tried = 0;
};
TimeDivision divide_time(const std::vector<Pattern> &jobs,
			 const std::vector<DivLink> &links, const CircleOpts &o);

// Harmonic time division: a common period H that is a whole multiple of
// a job's iteration (up to kMaxSlots), and each job gated at H / m, m the
// most slots (<= kMaxSlots) whose period still holds its iteration and
// divides H; so jobs of different periods keep their own pace and their
// grids never drift apart.  Candidates are tried in the order of their
// least total slowdown (sum of period / isolated iteration), at most
// kMaxHarmonicTries, and the first whose slots pack without excess wins;
// period_us = 0 when none does, or when every job would get one slot
// (divide_time's case).  Candidates whose least total slowdown is not
// below below_slowdown (when > 0: the best the caller already has) are
// not tried: they cannot win, and the tries go to those that can.
constexpr size_t kMaxSlots = 16;
constexpr size_t kMaxHarmonicTries = 24;
TimeDivision divide_time_harmonic(const std::vector<Pattern> &jobs,
				  const std::vector<DivLink> &links, const CircleOpts &o,
				  double below_slowdown = 0);

enum class GroupMode { Rotate = 0, Divide = 1, Share = 2 };
const char *group_mode_name(GroupMode m);

struct GroupDecision {
	std::vector<size_t> links;      // indices into Division::link_ids
	std::vector<size_t> jobs;       // indices into Division::jobs, ascending
	double score = 1.0;             // min rotation score achieved
	GroupMode mode = GroupMode::Rotate;
	int64_t period_us = 0;          // time division's common period, 0 = none
	std::vector<int64_t> rotate_shift_us;         // per group job
	std::vector<int64_t> divide_shift_us;         // per group job
	std::vector<int64_t> divide_period_us;        // per group job: period_us or a whole fraction
	// Predictions per group job (µs; < 0 = not predicted).
	std::vector<double> iter_rotate_us, iter_divide_us, iter_share_us;
	// Totals of predicted iteration / isolated iteration over the jobs.
	double slowdown_rotate = -1, slowdown_divide = -1, slowdown_share = -1;
	// The busiest link's mean demand over what it carries (each job's
	// bits per isolated iteration); above 1 rotation is not chosen.
	double load = 0;
	std::string reason;
	bool reused = false;            // carried over unchanged (realign)
};

// Per job: gate parameters under its group's mode.
struct JobGate {
	long group = -1;         // -1: on no shared constrained link
	bool gated = false;
	int64_t period_us = 0;
	int64_t shift_us = 0;
	int64_t isolated_us = 0;
	bool changed = true;     // differs from the previous division
};

struct Division {
	std::vector<GroupDecision> groups;
	std::vector<JobGate> jobs;
	std::vector<uint32_t> job_ids;   // caller's id per job (cluster job id)
	std::vector<uint32_t> job_revs;  // RunningJob::revision per job (cluster)
	std::vector<uint32_t> link_ids;  // DivLink::id per link index
};

// The decision for one group (local job indices 0..k-1 in `links`):
// predictions under every mode, the slots when division is considered,
// the choice.  gate_period_us/rotate_shift_us: each job's own gate period
// and the shift rotation gave it; link_score: per link, the score those
// shifts achieve.  jobs/links of the result are left empty.
GroupDecision decide_group(const std::vector<Pattern> &patterns,
			   const std::vector<int64_t> &gate_period_us,
			   const std::vector<int64_t> &rotate_shift_us,
			   const std::vector<DivLink> &links,
			   const std::vector<double> &link_score,
			   const CircleOpts &o);

// Every job on one link (orrery_link_divide): a group when n >= 2.
Division divide_link(const std::vector<Pattern> &patterns, uint64_t capacity_mbps,
		     const CircleOpts &o);

class Cluster;
// The cluster's link groups.  With prev, a group whose jobs and links are
// those of a group of prev keeps prev's decision; a changed group is
// re-solved (rotation on its links, then decide_group) and its shifts are
// all moved by the one amount that leaves the most of its running jobs'
// gates as prev had them.  JobGate::changed says which differ from prev.
Division divide_cluster(const Cluster &c, const Division *prev);

}  // namespace orrery
