// The pinned jobs' load on a link for a newcomer's circle (see the header).
#include "circle/pinned_load.hpp"

#include "core/error.hpp"

namespace orrery {

PinnedLoad pinned_load(const std::vector<LinkJob> &others, const LinkCap &cap,
		       int64_t newcomer_period_us, const CircleOpts &o)
{
	PinnedLoad x;
	std::vector<int64_t> periods;
	periods.reserve(others.size() + 1);
	for (const LinkJob &j : others) {
		if (!j.fixed_shift_us)
			fail(ORRERY_EINTERNAL, "best_newcomer_shift: a running job has no shift");
		periods.push_back(j.pattern.period_us);
	}
	periods.push_back(newcomer_period_us);
	x.circle = unify(periods, o);
	x.nc = periods.size() - 1;
	x.newcomer_period_us = newcomer_period_us;
	x.cap = LinkCap(cap.mbps, cap.links, cap.flows);  // normalised as the search builds it
	x.C = (double)cap.mbps;
	x.total.assign(x.circle.bins, 0.0);
	if (cap.ecmp() && cap.mbps) {
		x.model.reset(new EcmpExcess(cap));
		x.flows.assign(x.circle.bins, 0);
	}
	// A job's flows count once per bin it touches, however many of its
	// intervals land there.
	std::vector<uint32_t> mark(x.flows.size(), UINT32_MAX);
	std::vector<std::pair<uint32_t, double>> sp;
	for (size_t j = 0; j < others.size(); j++) {
		int64_t g = x.circle.gate_period_us[j];
		discretise_sparse(others[j].pattern, 1.0, x.circle, j,
				  (double)(*others[j].fixed_shift_us % g), sp);
		const uint32_t f = x.model ? job_flows(others[j].pattern.flows,
				others[j].pattern.flow_mult, cap) : 0;
		for (const auto &[b, v] : sp) {
			x.total[b] += v;
			if (f && v > 0 && mark[b] != (uint32_t)j) {
				mark[b] = (uint32_t)j;
				x.flows[b] += f;
			}
		}
	}
	if (cap.mbps == 0)
		return x;
	for (uint32_t b = 0; b < x.circle.bins; b++) {
		uint32_t f = x.model ? x.flows[b] : 0;
		x.excess += x.exc(x.total[b], f);
		x.over += x.is_over(x.total[b], f);
	}
	return x;
}

}  // namespace orrery
