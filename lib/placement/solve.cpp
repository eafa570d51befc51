// Whole-cluster shift solve: every running job on the affinity graph.
#include <unordered_map>

#include "core/error.hpp"
#include "placement/placement.hpp"

namespace orrery {

std::vector<AffinityLink> shared_links(const Cluster &c)
{
	const Topology &t = c.topology();
	std::unordered_map<uint32_t, size_t> index;
	for (const auto &kv : c.jobs())
		index.emplace(kv.first, index.size());
	std::vector<AffinityLink> links;
	for (size_t sw = 0; sw < t.switches.size(); sw++) {
		const std::vector<uint32_t> &ids = c.jobs_on_link(sw);
		uint64_t cap = t.capacity(sw);
		if (ids.size() < 2 || !cap)
			continue;
		AffinityLink l;
		l.id = (uint32_t)sw;
		l.capacity_mbps = cap;
		l.links = t.switches[sw].up_links;
		l.flows = t.flows_per_job;
		for (uint32_t id : ids) {
			const RunningJob *j = c.job(id);
			const Crossing *x = j ? j->crossing(sw) : nullptr;
			if (!x)
				fail(ORRERY_EINTERNAL, "link index out of step with job " +
				     std::to_string(id));
			l.jobs.push_back(index.at(id));
			l.patterns.push_back(pattern_on_link(j->pattern, *x));
		}
		links.push_back(std::move(l));
	}
	return links;
}

ShiftSolution solve_shifts(const Cluster &c)
{
	ShiftSolution out;
	std::vector<int64_t> periods;
	for (const auto &kv : c.jobs()) {
		out.job_ids.push_back(kv.first);
		periods.push_back(kv.second.gate_period_us);
	}
	std::vector<AffinityLink> links = shared_links(c);
	std::unordered_map<uint32_t, uint32_t> jobs_per_link;
	for (const AffinityLink &l : links)
		jobs_per_link[l.id] = (uint32_t)l.jobs.size();
	out.result = solve_affinity(periods, links, c.circle());
	if (out.result.shift_us.size() != periods.size())
		fail(ORRERY_EINTERNAL, "solve_affinity returned " +
		     std::to_string(out.result.shift_us.size()) + " shifts for " +
		     std::to_string(periods.size()) + " jobs");
	for (const auto &l : out.result.links)
		out.link_jobs.push_back(jobs_per_link.count(l.id) ? jobs_per_link[l.id] : 0);
	return out;
}

}  // namespace orrery
