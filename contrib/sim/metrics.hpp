// Metrics of one run and their aggregation over seeds; the stdout table,
// the CSV files and the gnuplot CDF plots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine.hpp"

namespace sim {

struct RunSummary {
	std::string policy;
	uint64_t seed = 0;
	size_t jobs = 0, multi = 0;   // all jobs, multi-node jobs
	double avg = 0, p50 = 0, p95 = 0, p99 = 0;  // JCT, s, all jobs
	double avg_multi = 0, p99_multi = 0;        // multi-node jobs only
	double makespan = 0;
	double over_link_s = 0, over_bytes = 0;
	double mean_slowdown = 0;
	SimStats stats;
	std::vector<JobResult> results;
};

// Nearest-rank percentile (the smallest value with at least p% of the
// values at or below it).
double percentile(std::vector<double> v, double p);
RunSummary summarize(const std::string &policy, uint64_t seed,
		     std::vector<JobResult> results, const SimStats &st);

// All runs of one scenario: policies x seeds.
struct Report {
	std::string title;
	std::vector<std::string> policies;
	std::vector<uint64_t> seeds;
	std::vector<RunSummary> runs;  // any order
	// Names the links in the over-capacity table (none: no table).
	const Fabric *fabric = nullptr;
	size_t top_links = 10;         // links listed per policy

	const RunSummary *find(const std::string &policy, uint64_t seed) const;
	// The table on stdout: per policy, median over seeds [min-max].
	void print_table(FILE *out) const;
	// Which links were over capacity and for how long, per policy, in
	// the first seed (the top_links longest, then how many in all).
	void print_links(FILE *out) const;
	// jobs-<policy>-s<seed>.csv, summary.csv, ratios.csv, and the
	// gnuplot data, script and SVGs (jct-cdf.svg, slowdown-cdf.svg).
	// Returns false (after a message on stderr) if gnuplot failed.
	bool write_files(const std::string &dir) const;
};

}  // namespace sim
