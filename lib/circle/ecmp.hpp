// Parallel uplinks with ECMP: the collision model of the score.
//
// A switch's uplink may be k parallel links of c = C/k each (orrery.conf
// uplink=KxRATE).  A job's traffic across it is F flows (NCCL channels x
// queue pairs per connection; doc/orrery-score.7 "ECMP"), and ECMP hashes
// each flow onto one of the k links, uniformly and independently.  Flows
// are pinned: a flow cannot use a second link when its own is full, so k
// links can be over capacity even when the bin's total D is below C.
//
// Model (expected case): in one bin of the circle the F flows of the jobs
// Up there share the bin's demand D equally (D/F each); the number n of
// them hashed onto one given link is Binomial(F, 1/k); the excess of the
// bin is the expected sum over the k links of max(0, n D/F - c):
//
//   excess(D, F) = k * sum_{n=1..F} P[Bin(F,1/k) = n] * max(0, n D/F - c)
//
// k = 1 gives max(0, D - C), the single-pipe score.  Two flows of c on two
// links: excess = 2 * (1/4) * (2c - c) = c/2 (they collide half of the time).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace orrery {

// Default flows a job sends across one uplink (doc/orrery-score.7).
constexpr uint32_t kDefaultFlows = 2;
constexpr uint32_t kMaxFlows = 4096;   // per job per link, after all-to-all
constexpr uint32_t kMaxLinks = 1024;   // parallel links of one uplink

// A link's capacity as the score sees it.  Implicit from a rate: one link,
// the default flows (the single-pipe model).
struct LinkCap {
	uint64_t mbps = 0;      // aggregate of the parallel links
	uint32_t links = 1;     // parallel links (ECMP), >= 1
	uint32_t flows = kDefaultFlows;  // flows of a job that says none
	LinkCap() = default;
	LinkCap(uint64_t m) : mbps(m) {}  // NOLINT: implicit on purpose
	LinkCap(uint64_t m, uint32_t k, uint32_t f) : mbps(m), links(k ? k : 1),
		flows(f ? f : kDefaultFlows) {}
	bool ecmp() const { return links > 1; }
	double per_link() const { return (double)mbps / (double)links; }
};

// Flows of a job on a link (its own count or the link's default, times
// the all-to-all multiplier), at most kMaxFlows.
inline uint32_t job_flows(uint32_t own, uint32_t mult, const LinkCap &c)
{
	uint64_t f = (uint64_t)(own ? own : c.flows) * (mult ? mult : 1);
	return f > kMaxFlows ? kMaxFlows : (uint32_t)f;
}

// The expected excess of a bin; tables per flow count built on first use
// (not thread-safe: one instance per search).
class EcmpExcess {
public:
	explicit EcmpExcess(const LinkCap &c) : cap_(c) {}
	double operator()(double total, uint32_t flows) const;
	const LinkCap &cap() const { return cap_; }

private:
	struct Term {
		double n;      // flows on the link
		double kp;     // k * P[Bin(F, 1/k) = n]
	};
	const std::vector<Term> &terms(uint32_t flows) const;
	LinkCap cap_;
	mutable std::unordered_map<uint32_t, std::vector<Term>> tab_;
};

}  // namespace orrery
