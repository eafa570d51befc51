#include "cruise.hpp"
#include "network.hpp"

#include <algorithm>

namespace sim {

Headroom::Headroom(const std::vector<double> &cap_mbps)
{
	links_.resize(cap_mbps.size());
	for (size_t i = 0; i < cap_mbps.size(); i++)
		links_[i].cap = cap_mbps[i];
}

// Within the Network's tolerance a link is neither a bottleneck nor over
// capacity.
bool Headroom::link_safe(const Link &l) const
{
	return l.cap <= 0 || l.peak <= l.cap * (1 + kNetTol);
}

void Headroom::join(uint32_t j, const std::vector<std::vector<Crossing>> &cross,
		    const Pattern &pat, std::vector<uint32_t> &unsafe)
{
	if (jobs_.size() <= j)
		jobs_.resize(j + 1);
	std::vector<Load> &mine = jobs_[j];
	mine.clear();
	// Per phase, the load on each link (a link listed twice adds up);
	// per link, the most of any phase.
	std::vector<Load> phase;
	for (size_t i = 0; i < cross.size() && i < pat.phases.size(); i++) {
		phase.clear();
		for (const Crossing &c : cross[i])
			phase.push_back({c.link, c.weight * pat.phases[i].demand});
		std::sort(phase.begin(), phase.end(),
			  [](const Load &a, const Load &b) { return a.link < b.link; });
		for (size_t k = 0; k < phase.size();) {
			Load sum = phase[k];
			for (k++; k < phase.size() && phase[k].link == sum.link; k++)
				sum.peak += phase[k].peak;
			auto it = std::find_if(mine.begin(), mine.end(),
					       [&](const Load &x) { return x.link == sum.link; });
			if (it == mine.end())
				mine.push_back(sum);
			else
				it->peak = std::max(it->peak, sum.peak);
		}
	}
	unsafe.clear();
	for (const Load &x : mine) {
		Link &l = links_[x.link];
		l.peak += x.peak;
		l.jobs.push_back(j);
		if (!link_safe(l))
			unsafe.push_back(x.link);
	}
}

void Headroom::leave(uint32_t j)
{
	if (j >= jobs_.size())
		return;
	for (const Load &x : jobs_[j]) {
		Link &l = links_[x.link];
		auto it = std::find(l.jobs.begin(), l.jobs.end(), j);
		if (it != l.jobs.end()) {
			*it = l.jobs.back();
			l.jobs.pop_back();
		}
		l.peak -= x.peak;
		if (l.jobs.empty())
			l.peak = 0;  // no drift from rounding
	}
	jobs_[j].clear();
}

bool Headroom::safe(uint32_t j) const
{
	if (j >= jobs_.size())
		return true;
	for (const Load &x : jobs_[j])
		if (!link_safe(links_[x.link]))
			return false;
	return true;
}

// The engine's arithmetic (engine.cpp, after_up): after phase i ends, the
// next starts after a gap of its offset minus phase i's nominal end (not
// less than 0); after the last, the tail up to the period.  An Up phase on
// the network lasts its bytes over its demand (its duration; none without
// bytes), one on no constrained link its duration.
Cycle isolated_cycle(const Pattern &pat,
		     const std::vector<std::vector<Crossing>> &cross)
{
	Cycle c;
	const std::vector<Phase> &ph = pat.phases;
	if (ph.empty())
		return c;
	double t = ph[0].offset;
	for (size_t i = 0; i < ph.size(); i++) {
		bool net = i < cross.size() && !cross[i].empty();
		double up = net && !(ph[i].demand * ph[i].duration > 0) ? 0 : ph[i].duration;
		c.at.push_back(t);
		c.up.push_back(up);
		double end = ph[i].offset + ph[i].duration;
		t += up;
		if (i + 1 < ph.size())
			t += std::max(0.0, ph[i + 1].offset - end);
		else
			t += std::max(0.0, pat.period - end);
	}
	c.length = t;
	return c;
}

}  // namespace sim
