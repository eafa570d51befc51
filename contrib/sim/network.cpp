#include "network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sim {

Network::Network(const std::vector<double> &cap_mbps)
{
	links_.resize(cap_mbps.size());
	for (size_t i = 0; i < cap_mbps.size(); i++)
		links_[i].cap = cap_mbps[i];
}

void Network::touch(Link &l, double now)
{
	if (now > l.last) {
		if (l.cap > 0 && l.offered > l.cap * (1 + kNetTol)) {
			over_s_ += now - l.last;
			l.over_s += now - l.last;
			over_mbit_ += l.carried * (now - l.last);
		}
		l.last = now;
	}
}

void Network::settle(double now)
{
	for (Link &l : links_)
		touch(l, now);
}

double Network::finish_time(uint32_t id) const
{
	const Flow &f = flows_[id];
	if (f.remaining <= 0)
		return f.last;
	if (f.rate <= 0)
		return std::numeric_limits<double>::infinity();
	return f.last + f.remaining / f.rate;
}

uint32_t Network::add(double now, std::vector<Crossing> links, double cap,
		      double mbit)
{
	uint32_t id;
	if (!free_ids_.empty()) {
		id = free_ids_.back();
		free_ids_.pop_back();
	} else {
		id = (uint32_t)flows_.size();
		flows_.emplace_back();
		flow_mark_.push_back(0);
	}
	Flow &f = flows_[id];
	f.links = std::move(links);
	f.cap = cap;
	f.remaining = mbit;
	f.rate = 0;
	f.last = now;
	f.version++;
	f.share = 1;
	f.active = true;
	n_active_++;
	std::vector<uint32_t> seeds;
	bool roomy = true;
	for (const Crossing &c : f.links) {
		Link &l = links_[c.link];
		touch(l, now);
		l.flows.push_back(id);
		l.offered += c.weight * cap;
		roomy &= l.offered <= l.cap * (1 + kNetTol);
		seeds.push_back(c.link);
	}
	changed_.clear();
	if (roomy) {
		// Every link it crosses holds the caps of all its flows, so none
		// of them is a bottleneck: the flow runs at its cap and no other
		// rate changes (no need to solve).
		f.rate = cap;
		for (const Crossing &c : f.links)
			links_[c.link].carried += c.weight * cap;
		changed_.push_back(id);
		return id;
	}
	resolve(now, seeds);
	return id;
}

void Network::remove(double now, uint32_t id)
{
	Flow &f = flows_[id];
	std::vector<uint32_t> seeds;
	// If none of its links was a possible bottleneck (offered load within
	// capacity), removing it changes no other rate.
	bool roomy = true;
	for (const Crossing &c : f.links)
		roomy &= links_[c.link].offered <= links_[c.link].cap * (1 + kNetTol);
	for (const Crossing &c : f.links) {
		Link &l = links_[c.link];
		touch(l, now);
		auto it = std::find(l.flows.begin(), l.flows.end(), id);
		if (it != l.flows.end()) {
			*it = l.flows.back();
			l.flows.pop_back();
		}
		l.offered -= c.weight * f.cap;
		l.carried -= c.weight * f.rate;
		if (l.flows.empty())
			l.offered = l.carried = 0;  // no drift from rounding
		seeds.push_back(c.link);
	}
	f.active = false;
	f.version++;
	f.links.clear();
	n_active_--;
	free_ids_.push_back(id);
	changed_.clear();
	if (!seeds.empty() && !roomy)
		resolve(now, seeds);
}

void Network::set_share(double now, uint32_t id, double share)
{
	Flow &f = flows_[id];
	changed_.clear();
	if (!f.active || share == f.share)
		return;
	f.share = share;
	bool roomy = true;
	std::vector<uint32_t> seeds;
	for (const Crossing &c : f.links) {
		roomy &= links_[c.link].offered <= links_[c.link].cap * (1 + kNetTol);
		seeds.push_back(c.link);
	}
	// Shares only matter where a link is a bottleneck.
	if (!roomy && !seeds.empty())
		resolve(now, seeds);
}

double Network::remaining_at(uint32_t id, double now) const
{
	const Flow &f = flows_[id];
	return std::max(0.0, f.remaining - f.rate * (now - f.last));
}

// Progressive filling over the component of flows reachable from the seed
// links through shared links.
void Network::resolve(double now, const std::vector<uint32_t> &seed_links)
{
	solves_++;
	if (++epoch_ == 0) {
		for (Link &l : links_)
			l.mark = 0;
		std::fill(flow_mark_.begin(), flow_mark_.end(), 0);
		epoch_ = 1;
	}
	comp_links_.clear();
	comp_flows_.clear();
	for (uint32_t s : seed_links)
		if (links_[s].mark != epoch_) {
			links_[s].mark = epoch_;
			comp_links_.push_back(s);
		}
	for (size_t i = 0; i < comp_links_.size(); i++) {
		Link &l = links_[comp_links_[i]];
		for (uint32_t fid : l.flows) {
			if (flow_mark_[fid] == epoch_)
				continue;
			flow_mark_[fid] = epoch_;
			comp_flows_.push_back(fid);
			for (const Crossing &c : flows_[fid].links)
				if (links_[c.link].mark != epoch_) {
					links_[c.link].mark = epoch_;
					comp_links_.push_back(c.link);
				}
		}
	}
	// Deterministic order regardless of discovery order: ascending ids.
	// A component that holds a good part of all ids (scattered jobs) is
	// listed faster by scanning the marks than by sorting.
	if (comp_links_.size() * 8 >= links_.size()) {
		comp_links_.clear();
		for (uint32_t l = 0; l < links_.size(); l++)
			if (links_[l].mark == epoch_)
				comp_links_.push_back(l);
	} else {
		std::sort(comp_links_.begin(), comp_links_.end());
	}
	if (comp_flows_.size() * 8 >= flows_.size()) {
		comp_flows_.clear();
		for (uint32_t f = 0; f < flows_.size(); f++)
			if (flow_mark_[f] == epoch_)
				comp_flows_.push_back(f);
	} else {
		std::sort(comp_flows_.begin(), comp_flows_.end());
	}

	const size_t nl = comp_links_.size(), nf = comp_flows_.size();
	resid_.assign(nl, 0);
	wsum_.assign(nl, 0);
	rate_.assign(nf, 0.0);
	std::vector<double> &rate = rate_;
	// Unfrozen flows in ascending order (the order of every sum below).
	live_.resize(nf);
	for (size_t j = 0; j < nf; j++)
		live_[j] = (uint32_t)j;
	// Local index of each link in the component.
	for (size_t i = 0; i < nl; i++) {
		Link &l = links_[comp_links_[i]];
		touch(l, now);
		resid_[i] = l.cap;
		links_[comp_links_[i]].mark = (uint32_t)i;  // reuse as index
	}
	// Each unfrozen flow's rate rises at its share's pace (1 for plain
	// max-min fairness).
	for (size_t j = 0; j < nf; j++)
		for (const Crossing &c : flows_[comp_flows_[j]].links)
			wsum_[links_[c.link].mark] += c.weight * flows_[comp_flows_[j]].share;

	while (!live_.empty()) {
		double delta = std::numeric_limits<double>::infinity();
		for (size_t i = 0; i < nl; i++)
			if (wsum_[i] > 0)
				delta = std::min(delta, std::max(0.0, resid_[i]) / wsum_[i]);
		for (uint32_t j : live_) {
			const Flow &f = flows_[comp_flows_[j]];
			delta = std::min(delta, (f.cap - rate[j]) / f.share);
		}
		if (!(delta >= 0))
			delta = 0;
		for (uint32_t j : live_) {
			const Flow &f = flows_[comp_flows_[j]];
			const double sh = f.share;
			rate[j] += delta * sh;
			for (const Crossing &c : f.links)
				resid_[links_[c.link].mark] -= c.weight * delta * sh;
		}
		// Freeze flows at their cap or on a full link.
		size_t keep = 0;
		for (uint32_t j : live_) {
			const Flow &f = flows_[comp_flows_[j]];
			bool freeze = rate[j] >= f.cap * (1 - kNetTol);
			for (const Crossing &c : f.links) {
				size_t i = links_[c.link].mark;
				if (resid_[i] <= links_[c.link].cap * kNetTol)
					freeze = true;
			}
			if (freeze) {
				for (const Crossing &c : f.links)
					wsum_[links_[c.link].mark] -= c.weight * f.share;
			} else {
				live_[keep++] = j;
			}
		}
		if (keep == live_.size())  // cannot happen; guards an endless loop
			break;
		live_.resize(keep);
	}

	for (size_t i = 0; i < nl; i++)
		links_[comp_links_[i]].carried = 0;
	for (size_t j = 0; j < nf; j++) {
		Flow &f = flows_[comp_flows_[j]];
		if (f.rate > 0)
			f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last));
		f.last = now;
		for (const Crossing &c : f.links)
			links_[c.link].carried += c.weight * rate[j];
		if (rate[j] != f.rate) {
			f.rate = rate[j];
			f.version++;
			changed_.push_back(comp_flows_[j]);
		}
	}
	// Restore marks so they are not mistaken for this epoch next time.
	for (size_t i = 0; i < nl; i++)
		links_[comp_links_[i]].mark = 0;
}

}  // namespace sim
