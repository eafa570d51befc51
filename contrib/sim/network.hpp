// Fluid network: flows share link capacity max-min fairly (weighted by
// each flow's share, 1 unless a policy such as mltcp changes it).
//
// A flow is one job's Up phase.  Its rate r is the per-node sending rate;
// it is capped by the phase demand (at most the NIC rate) and loads each
// crossed link with weight * r.  Rates are max-min fair in r: progressive
// filling raises every unfrozen flow's rate at the same pace and freezes a
// flow when it reaches its cap or one of its links fills.
//
// Rates are re-solved only when a flow starts or ends, and only for the
// connected component of flows that share links with it (flows elsewhere
// keep their rates, which max-min fairness leaves unchanged).  The caller
// learns which flows got a new rate through the changed() list so it can
// reschedule their completion events.
//
// The network also keeps the congestion proxy, per link: the time during
// which the offered load (sum of the caps of the flows on the link, times
// their weights) exceeds capacity, and the bits carried during that time.
// A fluid model has no queues and no ECN marks; this is the proxy.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric.hpp"

namespace sim {

// Relative tolerance: a link counts as full (a bottleneck, over capacity
// beyond it), and a flow as at its cap, within this fraction.  The
// fast-forward's safe links (cruise.hpp) use the same one.
constexpr double kNetTol = 1e-9;

struct Flow {
	std::vector<Crossing> links;
	double cap = 0;        // Mbit/s per node
	double remaining = 0;  // Mbit per node still to send
	double rate = 0;       // current Mbit/s per node
	double last = 0;       // time remaining was last brought up to date
	uint64_t version = 0;  // bumped on every rate change
	double share = 1;      // weight in the fair share (mltcp); 1 = equal
	bool active = false;
};

class Network {
public:
	explicit Network(const std::vector<double> &cap_mbps);

	// Start a flow at time now; returns its id.  Re-solves its component.
	uint32_t add(double now, std::vector<Crossing> links, double cap,
		     double mbit);
	// End a flow (its bytes are sent or the caller gives up on it).
	void remove(double now, uint32_t id);
	// Change a flow's share of the fair allocation (rates are max-min
	// fair in rate / share); re-solves its component.
	void set_share(double now, uint32_t id, double share);
	// Bits per node the flow has still to send at time now.
	double remaining_at(uint32_t id, double now) const;

	const Flow &flow(uint32_t id) const { return flows_[id]; }
	// Time at which flow id finishes at its current rate.
	double finish_time(uint32_t id) const;
	// Flows whose rate changed in the last add/remove (including the new
	// one); the caller reschedules them.
	const std::vector<uint32_t> &changed() const { return changed_; }

	// Bring the congestion counters up to time now.
	void settle(double now);
	double over_link_seconds() const { return over_s_; }
	// The same for one link (call settle first).
	double over_seconds(uint32_t link) const { return links_[link].over_s; }
	size_t links() const { return links_.size(); }
	double over_mbit() const { return over_mbit_; }
	uint64_t solves() const { return solves_; }
	size_t active_flows() const { return n_active_; }

private:
	struct Link {
		double cap = 0;
		std::vector<uint32_t> flows;  // active flows crossing it
		double offered = 0;           // sum weight*cap
		double carried = 0;           // sum weight*rate
		double last = 0;              // congestion counters updated to
		double over_s = 0;            // time offered > capacity
		uint32_t mark = 0;
	};
	void touch(Link &l, double now);
	void resolve(double now, const std::vector<uint32_t> &seed_links);

	std::vector<Link> links_;
	std::vector<Flow> flows_;
	std::vector<uint32_t> free_ids_;
	std::vector<uint32_t> changed_;
	size_t n_active_ = 0;
	uint32_t epoch_ = 0;
	std::vector<uint32_t> flow_mark_;
	double over_s_ = 0, over_mbit_ = 0;
	uint64_t solves_ = 0;
	// scratch
	std::vector<uint32_t> comp_links_, comp_flows_;
	std::vector<double> resid_, wsum_, rate_;
	std::vector<uint32_t> live_;
};

}  // namespace sim
