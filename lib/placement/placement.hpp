// Evaluating node sets and ranking candidate placements.
//
// place() runs inside slurmctld's job_test, many times per second, so it
// never copies the topology, caches each uplink's pinned demand once per
// call (candidates share links), and bounds its work by max_candidates.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "affinity/affinity.hpp"
#include "circle/pinned_load.hpp"
#include "cluster/cluster.hpp"

namespace orrery {

struct LinkEval {
	size_t sw;
	uint64_t capacity_mbps;
	uint32_t other_jobs;
	LinkOutcome outcome;
	// The summed peaks exceed the link (some shift could collide): the
	// links the contention-aware ranking predicts (placement/cost.cpp).
	bool contended = false;
};

struct Evaluation {
	std::vector<LinkEval> links;   // ascending switch index
	int64_t shift_us = 0;
	int64_t gate_period_us = 0;
	double score_min = 1.0;
	double score_mean = 1.0;
};

// The running jobs' demand on each uplink, as LinkJobs pinned at their
// shifts, built the first time a link is asked for.  Valid while the
// cluster is not modified.
class LinkDemandCache {
public:
	explicit LinkDemandCache(const Cluster &c);
	const std::vector<LinkJob> &pinned(size_t sw);
	// Upper bound of the pinned jobs' summed demand on sw at any instant
	// (the sum of each job's own peak), Mbit/s.
	double pinned_peak(size_t sw);
	// The pinned jobs' load on sw's circle with a newcomer of this
	// period (lib/circle/pinned_load.hpp), built on first use; rebuilt
	// if asked for another period.
	const PinnedLoad &pinned_load(size_t sw, int64_t newcomer_period_us);

private:
	const Cluster &c_;
	std::vector<uint8_t> built_;
	std::vector<std::vector<LinkJob>> pinned_;
	std::vector<double> peak_;
	std::vector<std::unique_ptr<PinnedLoad>> load_;
};

// Highest instantaneous demand of a pattern (overlapping phases add).
double peak_demand(const Pattern &p);

// nodes: topology node indices (any order, no repeats).  Throws
// ORRERY_EINVAL / ORRERY_ERANGE on a bad node set.
Evaluation evaluate(const Cluster &c, const std::vector<uint32_t> &nodes,
		    const Pattern &p, LinkDemandCache *cache = nullptr);

struct Candidate {
	std::vector<uint32_t> nodes;   // ascending
	int lca_level = 0;
	uint32_t leaves = 0;
	// Best-fit key (placement/candidates.cpp, fit_key): compared
	// lexicographically, lower is what topology/tree's best fit takes
	// first.  The ranking's tie-break among candidates of equal locality
	// and score; empty for a candidate not built by the enumeration.
	std::vector<uint64_t> fit;
	Evaluation eval;
	// Predicted slowdown the placement causes (placement/cost.cpp); < 0:
	// not predicted.
	double cost = -1.0;
	// The part of cost the newcomer pays there alone (its own traffic
	// over the uplinks' capacity), which no neighbour's departure takes
	// back: admission weighs cost less this (orrery_placement_hold).
	double self_cost = 0.0;
};

// Candidate node sets by topology/tree's best fit (placement/candidates.cpp).
// At most max_out are built; *enumerated counts every candidate found, up to
// count_limit (counting is cheap: no node sets are built past max_out).
std::vector<Candidate> enumerate_candidates(const Topology &t,
					    const std::vector<uint8_t> &free_nodes,
					    uint32_t n_nodes, size_t max_out,
					    size_t count_limit, size_t *enumerated);

// Less local candidates for the contention-aware ranking: under the
// switches of level max(base_level, 1) that can hold the job, every
// combination of exactly k_min(s) + e leaves (e = 1..extra) that needs all
// of them (no leaf can be left out), filled like enumerate_candidates'.
// At most max_out, best-fit switch order, then e ascending.
std::vector<Candidate> enumerate_spread_candidates(const Topology &t,
						   const std::vector<uint8_t> &free_nodes,
						   uint32_t n_nodes, int base_level,
						   uint32_t extra, size_t max_out);

// Counting stops here: enumerated is exact below this many.
constexpr size_t kEnumerateCountLimit = 10000;

// Sort by (lca_level asc, leaves asc, score_min desc, score_mean desc,
// unshifted score mean desc, fit asc, nodes lexicographically asc)
// (placement/rank.cpp).
void rank_candidates(std::vector<Candidate> &cands);

// How far a candidate spreads past the first of today's order: extra
// leaves or extra switch levels, whichever is more (0 if not wider).
uint32_t spread_steps(const Candidate &c, const Candidate &base);

// What one step of spread must gain (in total predicted slowdown, the
// unit of placement_cost) for a less local candidate to be ranked first.
constexpr double kSpreadStepCost = 0.05;
// What a predicted candidate pays (same unit) for each leaf it breaks up
// more than today's first candidate does (placement/rank.cpp,
// broken_leaves): a leaf left partly free costs later multi-node jobs
// locality (they span more leaves, so cross more uplinks).  0.2 from
// orrery-sim's testbed, seeds 1-60 and 61-120 (doc/benchmark-report.md).
constexpr double kBrokenLeafCost = 0.2;
// Candidates predicted per call, of today's locality / of the spread ones.
constexpr size_t kPredictLocal = 3;
constexpr size_t kPredictSpread = 3;
// Spread candidates enumerated and scored per call.
constexpr size_t kMaxSpreadCandidates = 16;
// Jobs (newcomer included) past which a candidate is not predicted.
constexpr size_t kMaxCostJobs = 16;

// Predicted slowdown caused by placing pattern p on cand (its eval set):
// the newcomer and every running job on the contended links it crosses,
// predicted by liborrery's link-group model (tdiv: decide_group, the
// mode the re-alignment would choose), minus what those running jobs are
// predicted to do there without it (rotation or free sharing) and minus
// the newcomer's own isolated 1.  0 when it crosses no contended link;
// < 0 when the group is too large to predict (kMaxCostJobs).  With
// self_cost: the newcomer's predicted slowdown alone on those links, less
// its isolated 1 (0 when not predicted).
double placement_cost(const Cluster &c, const Candidate &cand, const Pattern &p,
		      LinkDemandCache &cache, double *self_cost = nullptr);

struct Placement {
	std::vector<Candidate> ranked;
	size_t enumerated = 0;
};

Placement place(const Cluster &c, const std::vector<uint8_t> &free_nodes,
		uint32_t n_nodes, const Pattern &p);

}  // namespace orrery

namespace orrery {

// Re-solve every running job's shift from scratch (placement/solve.cpp).
// Links with at least two jobs and a known capacity enter the affinity
// graph (an unconstrained link cannot gain from rotation and would only
// add spurious loops).  job_ids[i] is the job of result.shift_us[i];
// link_jobs[i] the number of jobs on result.links[i].
struct ShiftSolution {
	AffinityResult result;
	std::vector<uint32_t> job_ids;
	std::vector<uint32_t> link_jobs;
};
ShiftSolution solve_shifts(const Cluster &c);

// The links solve_shifts and the link groups work on: every uplink with a
// known capacity and at least two jobs, in switch order, its members as
// indices into c.jobs() (ascending id) with their patterns on the link.
std::vector<AffinityLink> shared_links(const Cluster &c);

}  // namespace orrery
