#include "core/types.hpp"

#include <algorithm>
#include <tuple>

namespace orrery {

bool Phase::operator<(const Phase &o) const
{
	return std::tie(offset_us, duration_us, demand_mbps, coll, groups) <
	       std::tie(o.offset_us, o.duration_us, o.demand_mbps, o.coll,
			o.groups);
}

double Pattern::mean_demand_mbps() const
{
	if (period_us <= 0)
		return 0.0;
	double bits = 0.0;
	for (const Phase &ph : phases)
		bits += (double)ph.demand_mbps * (double)ph.duration_us;
	return bits / (double)period_us;
}

double Pattern::duty_cycle() const
{
	if (period_us <= 0)
		return 0.0;
	// Union of [offset, offset + duration): phases are sorted by offset.
	int64_t up = 0, end = 0;
	for (const Phase &ph : phases) {
		int64_t s = std::max(ph.offset_us, end);
		int64_t e = ph.offset_us + ph.duration_us;
		if (e > s)
			up += e - s;
		end = std::max(end, e);
	}
	return (double)up / (double)period_us;
}

}  // namespace orrery
