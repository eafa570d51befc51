// Definitions of the opaque C handles, shared by the api/*.cpp wrappers.
#pragma once

#include <map>
#include <memory>

#include "affinity/affinity.hpp"
#include "cluster/cluster.hpp"
#include "placement/placement.hpp"
#include "profile/profile.hpp"
#include "tdiv/tdiv.hpp"

struct orrery_profile {
	orrery::Profile p;
	std::string model_name;  // backing store for orrery_profile_model()
};
struct orrery_link_result {
	orrery::LinkScore s;
	std::vector<orrery::LinkJob> jobs;  // for the SVG writer
	uint64_t capacity_mbps;
};
struct orrery_topology {
	orrery::Topology t;
};
struct orrery_cluster {
	std::unique_ptr<orrery::Cluster> c;
	orrery_topology topo_view;  // returned by orrery_cluster_topology()
	// Backing store for orrery_cluster_job_profile(), kept in step with
	// the jobs by every non-const call (so const calls stay read-only).
	std::map<uint32_t, orrery_profile> profiles;
};
struct orrery_eval {
	orrery::Evaluation e;
};
struct orrery_placement {
	orrery::Placement p;
	std::vector<orrery_eval> evals;
};
struct orrery_solve {
	orrery::AffinityResult r;
	std::vector<uint32_t> job_ids;  // index -> job id
	std::vector<uint32_t> link_jobs;  // per r.links entry: jobs on it
};
struct orrery_division {
	orrery::Division d;
};
