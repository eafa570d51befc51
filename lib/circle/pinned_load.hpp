// The running jobs' load on one link, on the circle they share with a
// newcomer of a given period: everything best_newcomer_shift needs that
// depends neither on the newcomer's pattern nor on its shift.
//
// Why on its own: the candidates of one placement cross the same uplinks
// again and again (64 candidates under one pod share most of them), and
// discretising every running job on every such uplink for every candidate
// was a third of a 256-node decision.  The placement builds this once per
// uplink and call (placement/evaluate.cpp, LinkDemandCache); the values
// are exactly those best_newcomer_shift would build itself, so the
// decision does not change.  One thread at a time: the ECMP model fills
// its tables as it is used.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "circle/score.hpp"

namespace orrery {

struct PinnedLoad {
	Circle circle;               // the pinned jobs' periods, then the newcomer's
	size_t nc = 0;               // newcomer's index on the circle
	int64_t newcomer_period_us = 0;
	LinkCap cap;
	double C = 0.0;              // cap.mbps
	std::vector<double> total;   // pinned demand per bin
	// ECMP (lib/circle/ecmp.hpp): flows per bin of the pinned jobs and
	// the model; empty/null on a single pipe or an unknown capacity.
	std::vector<uint32_t> flows;
	std::unique_ptr<EcmpExcess> model;
	// Known capacity only: sum over bins of the excess, bins over.
	double excess = 0.0;
	size_t over = 0;

	double exc(double t, uint32_t f) const
	{
		return model ? (*model)(t, f) : std::max(0.0, t - C);
	}
	bool is_over(double t, uint32_t f) const
	{
		return model ? (*model)(t, f) > C * kOverEpsilon
			     : t > C * (1.0 + kOverEpsilon);
	}
	// Adding demand v to bin b (and nf flows with it when v > 0): the
	// change of the bin's excess, returned, and of the bins over, added
	// to *over.
	double add_to_bin(uint32_t b, double v, uint32_t nf, long *over) const
	{
		double t0 = total[b], t1 = t0 + v;
		uint32_t f0 = model ? flows[b] : 0;
		uint32_t f1 = f0 + (v > 0 ? nf : 0);
		*over += (long)is_over(t1, f1) - (long)is_over(t0, f0);
		return exc(t1, f1) - exc(t0, f0);
	}
};

// others: all with fixed_shift_us set (ORRERY_EINTERNAL otherwise).
PinnedLoad pinned_load(const std::vector<LinkJob> &others, const LinkCap &cap,
		       int64_t newcomer_period_us, const CircleOpts &o);

}  // namespace orrery
