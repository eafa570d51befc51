// Placement policies that need no liborrery scoring.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine.hpp"

namespace sim {

// Tree best fit, after Slurm's topology/tree: choose the lowest-level
// switch with enough free nodes below it (ties: the one with the fewest
// free nodes, then the lowest switch index); under it, leaf by leaf as
// cons_tres takes them: given the nodes still wanted, a leaf that holds
// them all before one that does not, of two that do the fewest free, of
// two that do not the most free (ties: lowest index); within leaves,
// nodes in index order (Slurm's node order).  The same rule as
// liborrery's best-fit key (lib/placement/candidates.cpp), which ranks
// candidates it enumerated; this one builds the single answer.  Returns
// false if fewer than n nodes are free.
bool tree_best_fit(const Fabric &f,
		   const std::vector<std::vector<uint32_t>> &below,
		   const std::vector<uint8_t> &free, uint32_t n,
		   std::vector<uint32_t> &out);

std::unique_ptr<Policy> make_default_policy(const Fabric &f);
// Placed like default, ungated; the network shares bottlenecks by MLTCP's
// rule (a flow's share grows with its iteration's bytes already sent).
std::unique_ptr<Policy> make_mltcp_policy(const Fabric &f);
// Random free nodes, uniformly, from a seeded generator.
std::unique_ptr<Policy> make_random_policy(const Fabric &f, uint64_t seed);
// No link contention: placed like default, every job at its isolated
// iteration time.
std::unique_ptr<Policy> make_ideal_policy(const Fabric &f);
// default-bound: placed like default, every job's communication spread
// evenly over its iteration (Policy::smooth): what a perfect gate could
// reach on the default's placements.
std::unique_ptr<Policy> make_default_bound_policy(const Fabric &f);
// default-alone: placed like default, each job's flows sharing links only
// with its own (Policy::alone): its contention with itself, none with
// others.
std::unique_ptr<Policy> make_default_alone_policy(const Fabric &f);

// Small deterministic generator (splitmix64), identical on every platform.
// The seed is hashed into the starting state: splitmix64's state only
// advances by a constant, so seeds taken as states (s, s + k * constant)
// give one stream shifted by k draws; seeded that way, the generator's
// workloads for seeds s and s + 4 were the same jobs less the first.
class Rng {
public:
	explicit Rng(uint64_t seed) : s_(seed) { s_ = next(); }
	uint64_t next()
	{
		uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	// Uniform in [0, 1).
	double uniform() { return (double)(next() >> 11) * 0x1.0p-53; }
	// Uniform integer in [0, n), n > 0.
	uint64_t below(uint64_t n) { return (uint64_t)(uniform() * (double)n); }

private:
	uint64_t s_;
};

}  // namespace sim
