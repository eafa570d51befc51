// Running jobs: validation and the uplink -> jobs index.
#include "cluster/cluster.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "core/error.hpp"
#include "profile/profile.hpp"

namespace orrery {

const Crossing *RunningJob::crossing(size_t sw) const
{
	auto it = std::lower_bound(links.begin(), links.end(), sw,
				   [](const Crossing &c, size_t s) { return c.sw < s; });
	return (it != links.end() && it->sw == sw) ? &*it : nullptr;
}

int64_t gate_period(const Pattern &p, const CircleOpts &o)
{
	int64_t q = o.quantum_us > 0 ? o.quantum_us : 1;
	return (p.period_us + q - 1) / q * q;
}

static int64_t now_us()
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

Cluster::Cluster(Topology t, CircleOpts circle, uint32_t max_candidates)
	: topo_(std::move(t)), circle_(circle), max_candidates_(max_candidates)
{
	if (!topo_.finalized())
		fail(ORRERY_ESTATE, "topology is not finalized (call orrery_topology_finalize first)");
	link_jobs_.resize(topo_.switches.size());
	epoch_us_ = now_us();
}

void Cluster::set_epoch_us(int64_t e)
{
	epoch_us_ = e;
	version_++;
}

const std::vector<uint32_t> &Cluster::jobs_on_link(size_t sw) const
{
	return link_jobs_.at(sw);
}

const RunningJob *Cluster::job(uint32_t id) const
{
	auto it = jobs_.find(id);
	return it == jobs_.end() ? nullptr : &it->second;
}

void Cluster::index_job(const RunningJob &j)
{
	for (const Crossing &c : j.links) {
		auto &v = link_jobs_[c.sw];
		v.insert(std::lower_bound(v.begin(), v.end(), j.id), j.id);
	}
}

void Cluster::unindex_job(const RunningJob &j)
{
	for (const Crossing &c : j.links) {
		auto &v = link_jobs_[c.sw];
		auto it = std::lower_bound(v.begin(), v.end(), j.id);
		if (it != v.end() && *it == j.id)
			v.erase(it);
	}
}

void Cluster::add_job(uint32_t id, std::vector<uint32_t> nodes, Pattern p,
		      int64_t shift_us)
{
	std::string who = "job " + std::to_string(id);
	if (jobs_.count(id))
		fail(ORRERY_EINVAL, who + " is already recorded");
	if (jobs_.size() >= kMaxClusterJobs)
		fail(ORRERY_ELIMIT, who + ": cluster already holds " +
		     std::to_string(kMaxClusterJobs) + " jobs");
	if (nodes.empty())
		fail(ORRERY_EINVAL, who + " has no nodes");
	if (p.period_us < ORRERY_MIN_PERIOD_US || p.period_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, who + ": period " + std::to_string(p.period_us) +
		     " us outside [1 ms, 1 h]");
	std::sort(nodes.begin(), nodes.end());
	for (size_t i = 0; i < nodes.size(); i++) {
		if (nodes[i] >= topo_.nodes.size())
			fail(ORRERY_ERANGE, who + ": node index " + std::to_string(nodes[i]) +
			     " out of range (topology has " +
			     std::to_string(topo_.nodes.size()) + " nodes)");
		if (i && nodes[i] == nodes[i - 1])
			fail(ORRERY_EINVAL, who + ": node '" + topo_.nodes[nodes[i]] +
			     "' listed twice");
	}
	RunningJob j;
	j.id = id;
	j.gate_period_us = gate_period(p, circle_);
	// A shift is a delay within one gated period.  The gate period a
	// placement chose may be coarser than the quantum rounding (circle
	// cap), so only the absolute bound is enforced here.
	if (shift_us < 0 || shift_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, who + ": shift " + std::to_string(shift_us) +
		     " us outside [0, 1 h]");
	j.nodes = std::move(nodes);
	j.pattern = std::move(p);
	j.shift_us = shift_us;
	j.links = crossings(topo_, j.nodes, needs_positions(j.pattern));
	auto it = jobs_.emplace(id, std::move(j)).first;
	try {
		index_job(it->second);
	} catch (...) {
		unindex_job(it->second);
		jobs_.erase(it);
		throw;
	}
	version_++;
}

bool Cluster::remove_job(uint32_t id)
{
	auto it = jobs_.find(id);
	if (it == jobs_.end())
		return false;
	unindex_job(it->second);
	jobs_.erase(it);
	version_++;
	return true;
}

void Cluster::set_shift(uint32_t id, int64_t shift_us)
{
	auto it = jobs_.find(id);
	if (it == jobs_.end())
		fail(ORRERY_ENOENT, "job " + std::to_string(id) + " is not recorded");
	if (shift_us < 0 || shift_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, "job " + std::to_string(id) + ": shift " +
		     std::to_string(shift_us) + " us outside [0, 1 h]");
	it->second.shift_us = shift_us;
	version_++;
}

bool Cluster::measured(uint32_t id, int64_t iteration_us, double tolerance,
		       const Pattern &profile)
{
	auto it = jobs_.find(id);
	if (it == jobs_.end())
		fail(ORRERY_ENOENT, "job " + std::to_string(id) + " is not recorded");
	RunningJob &j = it->second;
	// A neighbour's traffic only lengthens an iteration, and a
	// measurement may have met it in every iteration it covers: the
	// shortest of the latest few is the closest to the job's own.
	j.measured[j.n_measured++ % RunningJob::kMeasuredKept] = iteration_us;
	int64_t m = 0;
	if (!measured_off(j.measured, std::min<size_t>(j.n_measured, RunningJob::kMeasuredKept),
			  j.pattern.period_us, tolerance, &m))
		return false;
	retime_job(id, retime_pattern(profile, m));
	return true;
}

bool measured_off(const int64_t *w, size_t n, int64_t period_us, double tolerance,
		  int64_t *shortest)
{
	if (!w || n < 2 || n > RunningJob::kMeasuredKept || period_us <= 0)
		return false;
	int64_t m = w[0];
	for (size_t i = 1; i < n; i++)
		m = std::min(m, w[i]);
	if (shortest)
		*shortest = m;
	return std::llabs(m - period_us) > tolerance * (double)period_us;
}

void Cluster::retime_job(uint32_t id, const Pattern &p)
{
	auto it = jobs_.find(id);
	if (it == jobs_.end())
		fail(ORRERY_ENOENT, "job " + std::to_string(id) + " is not recorded");
	RunningJob &j = it->second;
	if (p.phases.size() != j.pattern.phases.size())
		fail(ORRERY_EINVAL, "job " + std::to_string(id) +
		     ": a retimed pattern keeps the job's phases");
	for (size_t i = 0; i < p.phases.size(); i++)
		if (p.phases[i].coll != j.pattern.phases[i].coll ||
		    p.phases[i].groups != j.pattern.phases[i].groups)
			fail(ORRERY_EINVAL, "job " + std::to_string(id) +
			     ": a retimed pattern keeps the job's collectives");
	// Same collectives: the same crossings, so the link index stands.
	const int64_t gp = gate_period(p, circle_);
	j.pattern = p;
	j.gate_period_us = gp;
	j.shift_us %= gp;
	j.revision++;
	version_++;
}

}  // namespace orrery
