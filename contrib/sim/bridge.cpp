#include "bridge.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim {

void check(int rc, const orrery_error_t &err, const std::string &what)
{
	if (rc != ORRERY_OK)
		throw std::runtime_error(what + ": " +
					 (err.message[0] ? err.message
							 : orrery_strerror(rc)));
}

TopologyPtr generate_topology(const orrery_fabric_t &f)
{
	orrery_topology_t *t = nullptr;
	orrery_error_t err{};
	check(orrery_topology_generate(&f, &t, &err), err, "fabric");
	return TopologyPtr(t);
}

Fabric fabric_from_topology(const orrery_topology_t *t)
{
	Fabric f;
	const size_t ns = orrery_topology_switch_count(t);
	for (size_t s = 0; s < ns; s++) {
		f.parent.push_back(orrery_topology_switch_parent(t, s));
		f.level.push_back(orrery_topology_switch_level(t, s));
		f.cap_mbps.push_back((double)orrery_topology_uplink_mbps(t, s));
		f.name.push_back(orrery_topology_switch_name(t, s));
	}
	const size_t nn = orrery_topology_node_count(t);
	for (size_t n = 0; n < nn; n++)
		f.node_leaf.push_back((uint32_t)orrery_topology_node_leaf(t, n));
	f.node_link_mbps = (double)orrery_topology_node_link(t);
	return f;
}

Pattern pattern_from_profile(const orrery_profile_t *p)
{
	Pattern pat;
	pat.period = (double)orrery_profile_period_us(p) / 1e6;
	const size_t n = orrery_profile_phase_count(p);
	for (size_t i = 0; i < n; i++) {
		orrery_phase_t ph;
		if (orrery_profile_phase(p, i, &ph) != ORRERY_OK)
			throw std::runtime_error("profile phase unreadable");
		pat.phases.push_back(Phase{(double)ph.offset_us / 1e6,
					   (double)ph.duration_us / 1e6,
					   (double)ph.demand_mbps,
					   ph.collective == ORRERY_COLL_ALLTOALL
						   ? Coll::AllToAll
						   : Coll::Ring});
	}
	std::stable_sort(pat.phases.begin(), pat.phases.end(),
			 [](const Phase &a, const Phase &b) {
				 return a.offset < b.offset;
			 });
	return pat;
}

ProfileTable::~ProfileTable()
{
	for (orrery_profile_t *p : resolved_)
		orrery_profile_free(p);
}

uint32_t ProfileTable::resolve(const std::string &spec, uint32_t nodes)
{
	auto key = std::make_pair(spec, nodes);
	auto it = index_.find(key);
	if (it != index_.end())
		return it->second;
	orrery_error_t err{};
	orrery_profile_t *p = nullptr, *r = nullptr;
	check(orrery_profile_parse(spec.c_str(), &p, &err), err,
	      "profile '" + spec + "'");
	orrery_shape_t shape{nodes, gpn_, link_};
	int rc = orrery_profile_resolve(p, &shape, &r, &err);
	orrery_profile_free(p);
	check(rc, err, "profile '" + spec + "' for " + std::to_string(nodes) +
			       " nodes");
	uint32_t i = (uint32_t)resolved_.size();
	resolved_.push_back(r);
	patterns_.push_back(pattern_from_profile(r));
	index_.emplace(key, i);
	return i;
}

namespace {

class OrreryPolicy : public Policy {
public:
	OrreryPolicy(const orrery_topology_t *t, const ProfileTable &pt,
		     bool shifts)
		: profiles_(pt), shifts_(shifts)
	{
		orrery_error_t err{};
		orrery_cluster_opts_t o;
		orrery_cluster_opts_default(&o);
		check(orrery_cluster_new(t, &o, &c_, &err), err, "cluster");
		orrery_cluster_set_epoch_us(c_, 0);
	}
	~OrreryPolicy() override { orrery_cluster_free(c_); }
	const char *name() const override
	{
		return shifts_ ? "orrery" : "orrery-place";
	}

	bool place(const std::vector<uint8_t> &free, const JobSpec &job, double,
		   Placement &out) override
	{
		orrery_error_t err{};
		orrery_placement_t *pl = nullptr;
		check(orrery_cluster_place(c_, free.data(), job.nodes,
					   profiles_.get(job.profile_index), &pl,
					   &err),
		      err, "orrery_cluster_place for job " + std::to_string(job.id));
		bool ok = orrery_placement_count(pl) > 0;
		if (ok) {
			out.nodes.resize(job.nodes);
			size_t k = orrery_placement_nodes(pl, 0, out.nodes.data(),
							  job.nodes);
			out.nodes.resize(k);
			const orrery_eval_t *e = orrery_placement_eval(pl, 0);
			shift_us_ = orrery_eval_shift_us(e);
			period_us_ = orrery_eval_period_us(e);
			if (shifts_ && period_us_ > 0) {
				out.gated = true;
				out.shift = (double)shift_us_ / 1e6;
				out.gate_period = (double)period_us_ / 1e6;
			}
		}
		orrery_placement_free(pl);
		return ok;
	}

	void started(const JobSpec &job, const Placement &pl, double now) override
	{
		int64_t shift = shift_us_;
		if (!shifts_) {
			// Ungated: the job's iterations begin where they happen to
			// start; record that phase so later placements score
			// against it (it drifts once the job is slowed down).
			int64_t per = std::max<int64_t>(1, period_us_);
			shift = (int64_t)std::llround(now * 1e6) % per;
		}
		orrery_error_t err{};
		check(orrery_cluster_add_job(c_, job.id, pl.nodes.data(),
					     pl.nodes.size(),
					     profiles_.get(job.profile_index),
					     shift, &err),
		      err, "orrery_cluster_add_job for job " + std::to_string(job.id));
	}

	void ended(const JobSpec &job) override
	{
		orrery_cluster_remove_job(c_, job.id);
	}

private:
	const ProfileTable &profiles_;
	bool shifts_;
	orrery_cluster_t *c_ = nullptr;
	int64_t shift_us_ = 0, period_us_ = 0;
};

}  // namespace

std::unique_ptr<Policy> make_orrery_policy(const orrery_topology_t *t,
					   const ProfileTable &profiles,
					   bool shifts)
{
	return std::make_unique<OrreryPolicy>(t, profiles, shifts);
}

}  // namespace sim
