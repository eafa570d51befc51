// Synthetic fabrics: leaves of nodes under one spine (2 tiers), or leaves
// grouped into pods under a core (3 tiers).  A leaf/spine Clos with many
// spine switches is modelled as one aggregate switch whose uplink
// capacities are the sums, which is what matters for contention on the
// leaf uplinks.  Oversubscription divides the bandwidth below a switch by
// the ratio to get its uplink: leaf uplink = nodes_per_leaf * node_link /
// oversub_leaf; pod uplink = leaves_per_pod * leaf uplink / oversub_pod.
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "topology/slurm_conf.hpp"

namespace orrery {

namespace {

int digits(uint64_t n)
{
	int d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

std::string numbered(const std::string &prefix, uint64_t i, int width)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%0*llu", width, (unsigned long long)i);
	return prefix + buf;
}

std::string fmt_ratio(double x)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%g", x);
	return buf;
}

void check_oversub(const char *what, double x)
{
	if (!std::isfinite(x) || x < 1.0 || x > 1000.0)
		fail(ORRERY_ERANGE, std::string(what) + " " + fmt_ratio(x) +
		     " out of range (accepted: 1 to 1000; 1 = non-blocking)");
}

}  // namespace

Topology generate_fabric(const orrery_fabric_t &f)
{
	if (f.tiers != 2 && f.tiers != 3)
		fail(ORRERY_ERANGE, "tiers=" + std::to_string(f.tiers) +
		     " not supported (accepted: 2 or 3)");
	if (f.nodes_per_leaf < 1 || f.nodes_per_leaf > kTopologyMaxNodes)
		fail(ORRERY_ERANGE, "nodes-per-leaf=" + std::to_string(f.nodes_per_leaf) +
		     " out of range (accepted: 1 to " +
		     std::to_string(kTopologyMaxNodes) + ")");
	if (f.leaves < 1 || f.leaves > kTopologyMaxSwitches - 1)
		fail(ORRERY_ERANGE, "leaves=" + std::to_string(f.leaves) +
		     " out of range (accepted: 1 to " +
		     std::to_string(kTopologyMaxSwitches - 1) + ")");
	uint64_t total = (uint64_t)f.nodes_per_leaf * f.leaves;
	if (total > kTopologyMaxNodes)
		fail(ORRERY_ELIMIT, std::to_string(f.leaves) + " leaves x " +
		     std::to_string(f.nodes_per_leaf) + " nodes = " +
		     std::to_string(total) + " nodes, more than the limit of " +
		     std::to_string(kTopologyMaxNodes));
	if (f.node_link_mbps < ORRERY_MIN_DEMAND_MBPS ||
	    f.node_link_mbps > ORRERY_MAX_DEMAND_MBPS)
		fail(ORRERY_ERANGE, "node link " + std::to_string(f.node_link_mbps) +
		     " Mb/s out of range (accepted: 1 Mb/s to 10 Tb/s)");
	check_oversub("leaf oversubscription", f.oversub_leaf);
	uint32_t pods = 0;
	if (f.tiers == 3) {
		check_oversub("pod oversubscription", f.oversub_pod);
		if (f.leaves_per_pod < 1 || f.leaves % f.leaves_per_pod)
			fail(ORRERY_ERANGE, "leaves-per-pod=" +
			     std::to_string(f.leaves_per_pod) + " must be >= 1 and divide leaves=" +
			     std::to_string(f.leaves));
		pods = f.leaves / f.leaves_per_pod;
		if ((uint64_t)pods + f.leaves + 1 > kTopologyMaxSwitches)
			fail(ORRERY_ELIMIT, "more than " +
			     std::to_string(kTopologyMaxSwitches) + " switches");
	}
	std::string prefix = f.node_prefix && *f.node_prefix ? f.node_prefix : "node";
	if (!valid_name(prefix) || prefix.size() > 64)
		fail(ORRERY_EINVAL, "node prefix '" + prefix +
		     "' invalid (accepted: up to 64 letters, digits, '.', '_', '-')");

	Topology t;
	t.node_link_mbps = f.node_link_mbps;
	const std::string root = f.tiers == 2 ? "spine" : "core";
	t.add_switch(root, "");
	const int lw = std::max(2, digits(f.leaves));
	const int pw = std::max(2, digits(pods));
	const int nw = std::max(3, digits(total));
	for (uint32_t p = 1; p <= pods; p++)
		t.add_switch(numbered("pod", p, pw), root);
	uint64_t node = 1;
	for (uint32_t l = 1; l <= f.leaves; l++) {
		std::string leaf = numbered("leaf", l, lw);
		std::string parent = f.tiers == 2
			? root : numbered("pod", (l - 1) / f.leaves_per_pod + 1, pw);
		t.add_switch(leaf, parent);
		for (uint32_t n = 0; n < f.nodes_per_leaf; n++)
			t.add_node(numbered(prefix, node++, nw), leaf);
	}
	t.finalize();

	const double leaf_up = (double)f.nodes_per_leaf * (double)f.node_link_mbps /
			       f.oversub_leaf;
	const double pod_up = f.tiers == 3
		? (double)f.leaves_per_pod * std::llround(leaf_up) / f.oversub_pod : 0;
	if (std::max(leaf_up, pod_up) > (double)kMaxLinkMbps)
		fail(ORRERY_ERANGE, "uplink capacity above 1 Pb/s: lower nodes-per-leaf, "
		     "leaves-per-pod or the node link, or raise oversubscription");
	for (Switch &s : t.switches) {
		if (s.parent < 0)
			continue;
		uint64_t up = (uint64_t)std::max(1LL, std::llround(s.level == 0 ? leaf_up : pod_up));
		s.up_mbps = s.down_mbps = up;
	}
	char buf[256];
	if (f.tiers == 2)
		snprintf(buf, sizeof buf, "tiers=2 leaves=%u nodes-per-leaf=%u "
			 "node-link=%llu Mb/s oversub=%s",
			 f.leaves, f.nodes_per_leaf,
			 (unsigned long long)f.node_link_mbps,
			 fmt_ratio(f.oversub_leaf).c_str());
	else
		snprintf(buf, sizeof buf, "tiers=3 leaves=%u leaves-per-pod=%u "
			 "nodes-per-leaf=%u node-link=%llu Mb/s oversub=%s "
			 "pod-oversub=%s",
			 f.leaves, f.leaves_per_pod, f.nodes_per_leaf,
			 (unsigned long long)f.node_link_mbps,
			 fmt_ratio(f.oversub_leaf).c_str(),
			 fmt_ratio(f.oversub_pod).c_str());
	t.origin = std::string("generated: ") + buf;
	return t;
}

}  // namespace orrery
