// Fabrics the simulator's unit tests build by hand.
#pragma once

#include <cstdint>
#include <string>

#include "fabric.hpp"

namespace sim {

// leaves x per_leaf nodes under one root; leaf uplinks of capacity cap.
inline Fabric two_tier(uint32_t leaves, uint32_t per_leaf, double cap)
{
	Fabric f;
	f.parent.push_back(-1);
	f.level.push_back(1);
	f.cap_mbps.push_back(0);
	f.name.push_back("root");
	for (uint32_t l = 0; l < leaves; l++) {
		f.parent.push_back(0);
		f.level.push_back(0);
		f.cap_mbps.push_back(cap);
		f.name.push_back("leaf" + std::to_string(l));
		for (uint32_t k = 0; k < per_leaf; k++)
			f.node_leaf.push_back(l + 1);
	}
	f.node_link_mbps = cap;
	return f;
}

}  // namespace sim
