// Slurm topology.conf in and out, the fabric generator, and the small
// hostlist compressor the writer uses.  Expansion of hostlist expressions
// is never done here: callers pass an orrery_hostlist_fn (the tools use
// libslurm's slurm_hostlist_*), so liborrery does not link libslurm.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "orrery.h"
#include "topology/topology.hpp"

namespace orrery {

// Hard limits on untrusted topology input.
constexpr size_t kTopologyFileMax = 16u * 1024 * 1024;  // bytes
constexpr size_t kTopologyMaxNodes = 100000;
constexpr size_t kTopologyMaxSwitches = 10000;
// Largest uplink capacity: an aggregate spine uplink can be far above one
// NIC's rate (ORRERY_MAX_DEMAND_MBPS), so links get their own bound.
constexpr uint64_t kMaxLinkMbps = 1000000000ULL;  // 1 Pb/s

// Read and validate topology.conf; the result is finalized.  Every error
// names `path:line` and the offending token.
Topology read_slurm_topology(const std::string &path, orrery_hostlist_fn expand,
			     void *expand_ctx, uint64_t linkspeed_unit_mbps);
// Same on text already in memory; `name` stands for the file in messages.
Topology parse_slurm_topology(const std::string &text, const std::string &name,
			      orrery_hostlist_fn expand, void *expand_ctx,
			      uint64_t linkspeed_unit_mbps);

Topology generate_fabric(const orrery_fabric_t &f);

void write_slurm_topology(const Topology &t, FILE *out);

// "node001,node002,node003,gpu7" -> "node[001-003],gpu7".  Only runs of
// consecutive names with the same prefix and equally wide numeric suffix
// are merged, and order is kept, so expanding the result gives `names`.
std::string hostlist_compress(const std::vector<std::string> &names);

// Names accepted for switches and nodes: [A-Za-z0-9._-], 1..255 chars.
bool valid_name(const std::string &s);

}  // namespace orrery
