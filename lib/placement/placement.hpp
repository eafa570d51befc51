// Evaluating node sets and ranking candidate placements.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/cluster.hpp"

namespace orrery {

struct LinkEval {
	size_t sw;
	uint64_t capacity_mbps;
	uint32_t other_jobs;
	LinkOutcome outcome;
};

struct Evaluation {
	std::vector<LinkEval> links;
	int64_t shift_us = 0;
	int64_t gate_period_us = 0;
	double score_min = 1.0;
	double score_mean = 1.0;
};

Evaluation evaluate(const Cluster &c, const std::vector<uint32_t> &nodes,
		    const Pattern &p);

struct Candidate {
	std::vector<uint32_t> nodes;
	int lca_level = 0;
	uint32_t leaves = 0;
	Evaluation eval;
};

struct Placement {
	std::vector<Candidate> ranked;
	size_t enumerated = 0;
};

Placement place(const Cluster &c, const std::vector<uint8_t> &free_nodes,
		uint32_t n_nodes, const Pattern &p);

}  // namespace orrery
