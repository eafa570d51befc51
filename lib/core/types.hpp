// Plain value types shared by every module.  Times are microseconds,
// bandwidths Mbit/s per direction (see orrery.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orrery {

// orrery.h's orrery_collective; the crossing rules are in
// lib/topology/crossing_rule.cpp.
enum class Collective { Ring = 0, AllToAll = 1, Pipeline = 2, Rail = 3 };

struct Phase {
	int64_t offset_us = 0;
	int64_t duration_us = 0;
	uint64_t demand_mbps = 0;
	Collective coll = Collective::Ring;
	// Pipeline: stages S; Rail: rails R; 0 for ring and all-to-all.
	uint32_t groups = 0;

	bool operator==(const Phase &o) const
	{
		return offset_us == o.offset_us &&
		       duration_us == o.duration_us &&
		       demand_mbps == o.demand_mbps && coll == o.coll &&
		       groups == o.groups;
	}
	bool operator<(const Phase &o) const;
};

// An explicit periodic pattern.  Phases are sorted (offset, duration,
// demand, collective); they may overlap (demands add).
struct Pattern {
	int64_t period_us = 0;
	std::vector<Phase> phases;
	// Flows the job sends across one uplink (ECMP, lib/circle/ecmp.hpp):
	// 0 = the link's default; flow_mult is set by pattern_on_link (the
	// most connections a phase sends across: an all-to-all crossing
	// carries m(n-m), a pipeline one pair per crossing stage pair, a
	// rail collective one ring per rail).
	uint32_t flows = 0;
	uint32_t flow_mult = 1;

	bool operator==(const Pattern &o) const
	{
		return period_us == o.period_us && phases == o.phases;
	}
	double mean_demand_mbps() const;
	double duty_cycle() const;  // fraction of the period with any phase Up
};

// A reference to a catalogue model with normalised parameters (all keys
// the model accepts, defaults filled in, values in canonical spelling).
struct ModelRef {
	std::string name;
	std::map<std::string, std::string> params;

	bool operator==(const ModelRef &o) const
	{
		return name == o.name && params == o.params;
	}
};

// What a user asked for: a model (resolved later, when the job's shape is
// known) or an explicit pattern.
struct Profile {
	std::optional<ModelRef> model;
	Pattern pattern;  // meaningful only when !model

	bool is_model() const { return model.has_value(); }
	bool operator==(const Profile &o) const
	{
		return model == o.model && (model || pattern == o.pattern);
	}
};

struct Shape {
	uint32_t nodes = 0;
	uint32_t gpus_per_node = 0;
	uint64_t link_mbps = 0;
};

}  // namespace orrery
