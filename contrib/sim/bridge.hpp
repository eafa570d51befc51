// Everything the simulator takes from liborrery, through orrery.h: the
// fabric (generated or read from topology.conf), comm profiles resolved
// for a job's shape, and the orrery placement policies, which call
// orrery_cluster_place / orrery_cluster_add_job exactly as the select
// plugin does.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <orrery.h>

#include "engine.hpp"
#include "fabric.hpp"
#include "job.hpp"

namespace sim {

// Throws std::runtime_error with liborrery's message.
void check(int rc, const orrery_error_t &err, const std::string &what);

struct TopologyDeleter {
	void operator()(orrery_topology_t *t) const { orrery_topology_free(t); }
};
using TopologyPtr = std::unique_ptr<orrery_topology_t, TopologyDeleter>;

TopologyPtr generate_topology(const orrery_fabric_t &f);
Fabric fabric_from_topology(const orrery_topology_t *t);

// Comm profiles by spec, resolved per (spec, nodes) for one fabric.  The
// table owns the orrery_profile_t handles; JobSpec::profile_index points
// here.
class ProfileTable {
public:
	ProfileTable(uint32_t gpus_per_node, uint64_t link_mbps)
		: gpn_(gpus_per_node), link_(link_mbps)
	{
	}
	~ProfileTable();
	ProfileTable(const ProfileTable &) = delete;
	ProfileTable &operator=(const ProfileTable &) = delete;

	// Index of the resolved profile; throws with the parser's message.
	uint32_t resolve(const std::string &spec, uint32_t nodes);
	const orrery_profile_t *get(uint32_t i) const { return resolved_[i]; }
	const Pattern &pattern(uint32_t i) const { return patterns_[i]; }

private:
	uint32_t gpn_;
	uint64_t link_;
	std::map<std::pair<std::string, uint32_t>, uint32_t> index_;
	std::vector<orrery_profile_t *> resolved_;
	std::vector<Pattern> patterns_;
};

Pattern pattern_from_profile(const orrery_profile_t *p);

// orrery-place (shifts == false): candidate 0 of orrery_cluster_place, no
// gate.  orrery (shifts == true): the same node set, gated with the
// newcomer shift and gate period of its evaluation.
// Jobs without inter-node traffic are placed by tree best fit.
// rank_spread: orrery_cluster_opts.rank_spread (< 0: liborrery's default).
std::unique_ptr<Policy> make_orrery_policy(const orrery_topology_t *t,
					   const Fabric &f,
					   const ProfileTable &profiles,
					   bool shifts, int rank_spread = -1);
// cassini: CASSINI as published, on liborrery's scoring: among the
// locality candidates of orrery_cluster_place, the best score (min over
// links, then mean); gated with the newcomer shift on its own gate
// period, fixed at launch; no link groups, no time division, no
// re-alignment (rank_spread 0: the locality candidates only).
enum class OrreryKind { Place, Full, Cassini, Bound, Hold };
std::unique_ptr<Policy> make_cassini_policy(const orrery_topology_t *t,
					    const Fabric &f,
					    const ProfileTable &profiles);
// bound: orrery-place's placement, and every job's communication spread
// evenly over its iteration (Policy::smooth): what a perfect gate could
// reach on those placements.  A reference, not a policy to run.
std::unique_ptr<Policy> make_bound_policy(const orrery_topology_t *t,
					  const Fabric &f,
					  const ProfileTable &profiles, int rank_spread = -1);
// orrery-hold: orrery, and a job whose chosen placement's neighbours are
// predicted to add more than hold_cost of slowdown (its own share alone on
// those links not counted) waits (orrery_placement_hold) until
// hold_max_s after its arrival; the queue reserves the nodes it would
// have taken from then (Placement::held_until), as Slurm's backfill does
// with select/orrery's will-run answer for a held job, and lets other
// jobs use them until then.  select/orrery applies the same rule when
// orrery.conf sets hold= (off by default).
struct HoldRule {
	double cost = ORRERY_HOLD_COST_DEFAULT;
	double max_s = ORRERY_HOLD_MAX_S_DEFAULT;
};
std::unique_ptr<Policy> make_hold_policy(const orrery_topology_t *t,
					 const Fabric &f,
					 const ProfileTable &profiles,
					 const HoldRule &rule, int rank_spread = -1);

}  // namespace sim
