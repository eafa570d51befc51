// The orrery placement policies: liborrery's cluster state and candidate
// ranking, driven exactly as the select plugin drives them.  The orrery
// policy also re-aligns as select/orrery's channel does: after every start
// and end it asks liborrery for the link groups again
// (orrery_cluster_realign) and hands the engine every job whose gate
// (orrery_division_job_gate: rotated jobs keep their shifts) differs from
// the one it was last given; the engine applies them at the jobs' next
// iteration boundary after the re-alignment delay.  Jobs on no shared
// constrained link, and groups liborrery leaves to free sharing, are not
// gated.
#include "bridge.hpp"
#include "policies.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_map>

namespace sim {

namespace {

class OrreryPolicy : public Policy {
public:
	OrreryPolicy(const orrery_topology_t *t, const Fabric &f,
		     const ProfileTable &pt, OrreryKind kind, int rank_spread,
		     const HoldRule &hold = HoldRule{})
		: fabric_(f), below_(f.nodes_below()), profiles_(pt),
		  shifts_(kind == OrreryKind::Full || kind == OrreryKind::Cassini ||
			  kind == OrreryKind::Hold),
		  cassini_(kind == OrreryKind::Cassini), bound_(kind == OrreryKind::Bound),
		  hold_(kind == OrreryKind::Hold), rule_(hold)
	{
		orrery_error_t err{};
		orrery_cluster_opts_t o;
		orrery_cluster_opts_default(&o);
		if (kind == OrreryKind::Cassini)
			o.rank_spread = 0;  // the host scheduler's locality candidates
		else if (rank_spread >= 0)
			o.rank_spread = (uint32_t)rank_spread;
		check(orrery_cluster_new(t, &o, &c_, &err), err, "cluster");
		orrery_cluster_set_epoch_us(c_, 0);
	}
	~OrreryPolicy() override
	{
		orrery_division_free(div_);
		orrery_cluster_free(c_);
	}
	const char *name() const override
	{
		return cassini_ ? "cassini" : hold_ ? "orrery-hold" : shifts_ ? "orrery"
		       : bound_ ? "bound" : "orrery-place";
	}
	bool smooth() const override { return bound_; }

	bool place(const std::vector<uint8_t> &free, const JobSpec &job, double now,
		   Placement &out) override
	{
		if (job.pattern.phases.empty()) {
			// No inter-node traffic (a one-node job): nothing to
			// score, and liborrery does not take such a profile; place
			// it like default and keep it out of the cluster state.
			silent_ = true;
			return tree_best_fit(fabric_, below_, free, job.nodes,
					     out.nodes);
		}
		silent_ = false;
		orrery_error_t err{};
		orrery_placement_t *pl = nullptr;
		check(orrery_cluster_place(c_, free.data(), job.nodes,
					   profiles_.get(job.profile_index), &pl,
					   &err),
		      err, "orrery_cluster_place for job " + std::to_string(job.id));
		// --switches=N while the job waits: only candidates within N
		// leaf switches, as select/orrery takes cons_tres's answer.
		std::vector<size_t> cands;
		for (size_t i = 0; i < orrery_placement_count(pl); i++)
			if (!leaf_limit || orrery_placement_leaf_count(pl, i) <= leaf_limit)
				cands.push_back(i);
		bool ok = !cands.empty();
		if (ok) {
			// cassini: the candidate with the best score among all the
			// locality candidates (ties: the ranking's order); orrery:
			// the ranking's first (locality first).
			size_t best = cands[0];
			if (cassini_)
				for (size_t i : cands) {
					const orrery_eval_t *a = orrery_placement_eval(pl, i);
					const orrery_eval_t *b = orrery_placement_eval(pl, best);
					if (orrery_eval_score_min(a) > orrery_eval_score_min(b) + 1e-12 ||
					    (orrery_eval_score_min(a) > orrery_eval_score_min(b) - 1e-12 &&
					     orrery_eval_score_mean(a) > orrery_eval_score_mean(b) + 1e-12))
						best = i;
				}
			out.nodes.resize(job.nodes);
			size_t k = orrery_placement_nodes(pl, best, out.nodes.data(),
							  job.nodes);
			out.nodes.resize(k);
			// `now' is the start being planned (a backfill slice may
			// lie ahead): the wait the job would have had by then.
			if (hold_ && orrery_placement_hold(pl, best, rule_.cost,
							   now - job.arrival, rule_.max_s)) {
				out.held = true;
				out.held_until = job.arrival + rule_.max_s;
				orrery_placement_free(pl);
				return false;
			}
			const orrery_eval_t *e = orrery_placement_eval(pl, best);
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

	// Pinned by the trace: the shift select/orrery's job_begin gives the
	// allocated nodes (orrery_cluster_evaluate), as for a job whose
	// nodes Slurm chose (-w).
	void place_at(const JobSpec &job, double, Placement &out) override
	{
		out.nodes = job.at;
		silent_ = job.pattern.phases.empty();
		if (silent_)
			return;
		orrery_error_t err{};
		orrery_eval_t *e = nullptr;
		check(orrery_cluster_evaluate(c_, out.nodes.data(), out.nodes.size(),
					      profiles_.get(job.profile_index), &e, &err),
		      err, "orrery_cluster_evaluate for job " + std::to_string(job.id));
		shift_us_ = orrery_eval_shift_us(e);
		period_us_ = orrery_eval_period_us(e);
		orrery_eval_free(e);
		if (shifts_ && period_us_ > 0) {
			out.gated = true;
			out.shift = (double)shift_us_ / 1e6;
			out.gate_period = (double)period_us_ / 1e6;
		}
	}

	void started(const JobSpec &job, const Placement &pl, double now) override
	{
		if (silent_)
			return;
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
		given_[job.id] = {job.id, pl.gated, pl.gate_period, pl.shift};
		realign();
	}

	void ended(const JobSpec &job) override
	{
		if (!job.pattern.phases.empty()) {
			orrery_cluster_remove_job(c_, job.id);
			given_.erase(job.id);
			realign();
		}
	}

	// --learn-periods: orrery_cluster_job_measured models the job at its
	// measured iteration and the group is re-solved.  A measurement
	// liborrery refuses (outside half to twice the profile's period, or no
	// compute left) leaves the job as it was.  select/orrery does the
	// same with orrery.conf learn=TOL (plugins/select/orrery/learn.c).
	bool measured(const JobSpec &job, int64_t iteration_us) override
	{
		if (!(learn_tolerance >= 0) || !shifts_ || cassini_ ||
		    job.pattern.phases.empty())
			return false;
		orrery_error_t err{};
		int changed = 0;
		if (orrery_cluster_job_measured(c_, job.id, iteration_us, learn_tolerance,
						&changed, &err) != ORRERY_OK || !changed)
			return false;
		realign();
		return true;
	}

	void gate_changes(std::vector<GateChange> &out) override
	{
		out.swap(changes_);
		changes_.clear();
	}

	void group_decisions(std::vector<GroupRecord> &out) override
	{
		for (GroupRecord &r : groups_)
			out.push_back(std::move(r));
		groups_.clear();
	}

private:
	void realign()
	{
		if (!shifts_ || cassini_)
			return;  // cassini: shifts fixed at launch, no groups
		orrery_error_t err{};
		orrery_division_t *d = nullptr;
		// apply 0, as select/orrery: running jobs keep the rotation
		// shifts the cluster state holds.
		check(orrery_cluster_realign(c_, div_, 0, &d, &err), err,
		      "orrery_cluster_realign");
		orrery_division_free(div_);
		div_ = d;
		record_groups(d);
		for (size_t i = 0; i < orrery_division_job_count(d); i++) {
			orrery_division_job_t j;
			if (orrery_division_job_gate(c_, d, i, &j) != ORRERY_OK)
				continue;
			GateChange c;
			c.job_id = j.job_id;
			c.gated = j.gated != 0;
			c.period = c.gated ? (double)j.period_us / 1e6 : 0;
			c.shift = c.gated ? (double)j.shift_us / 1e6 : 0;
			auto it = given_.find(j.job_id);
			if (it != given_.end() && same_gate(it->second, c))
				continue;
			given_[j.job_id] = c;
			changes_.push_back(c);
		}
	}

	// The groups this re-alignment re-solved (a carried-over group's
	// decision was recorded when it was made).
	void record_groups(const orrery_division_t *d)
	{
		for (size_t gi = 0; gi < orrery_division_group_count(d); gi++) {
			orrery_division_group_t g;
			if (orrery_division_group(d, gi, &g) != ORRERY_OK || g.reused)
				continue;
			GroupRecord r;
			for (size_t i = 0; i < orrery_division_job_count(d); i++) {
				orrery_division_job_t j;
				if (orrery_division_job(d, i, &j) == ORRERY_OK &&
				    j.group == (long)gi)
					r.jobs.push_back(j.job_id);
			}
			const double k = r.jobs.empty() ? 1 : (double)r.jobs.size();
			r.links = (uint32_t)orrery_division_group_links(d, gi, nullptr, 0);
			r.mode = orrery_group_mode_name(g.mode);
			r.score = g.score;
			r.rotate = g.slowdown_rotate < 0 ? -1 : g.slowdown_rotate / k;
			r.divide = g.slowdown_divide < 0 ? -1 : g.slowdown_divide / k;
			r.share = g.slowdown_share < 0 ? -1 : g.slowdown_share / k;
			r.period = (double)g.period_us / 1e6;
			r.reason = g.reason ? g.reason : "";
			groups_.push_back(std::move(r));
		}
	}

	// select/orrery's differs(): on/off, and period and shift when on
	// (the API's whole microseconds).
	static bool same_gate(const GateChange &a, const GateChange &b)
	{
		if (a.gated != b.gated)
			return false;
		return !a.gated || (std::llround(a.period * 1e6) == std::llround(b.period * 1e6) &&
				    std::llround(a.shift * 1e6) == std::llround(b.shift * 1e6));
	}

	const Fabric &fabric_;
	std::vector<std::vector<uint32_t>> below_;
	bool silent_ = false;
	const ProfileTable &profiles_;
	bool shifts_;
	bool cassini_;
	bool bound_;   // orrery-place's placement, perfect interleaving
	bool hold_;    // orrery-hold
	HoldRule rule_;
	orrery_cluster_t *c_ = nullptr;
	int64_t shift_us_ = 0, period_us_ = 0;
	orrery_division_t *div_ = nullptr;   // the link groups as last solved
	std::unordered_map<uint32_t, GateChange> given_;  // each job's gate
	std::vector<GateChange> changes_;
	std::vector<GroupRecord> groups_;   // decisions not yet handed over
};

}  // namespace

std::unique_ptr<Policy> make_orrery_policy(const orrery_topology_t *t,
					   const Fabric &f,
					   const ProfileTable &profiles,
					   bool shifts, int rank_spread)
{
	return std::make_unique<OrreryPolicy>(t, f, profiles,
					      shifts ? OrreryKind::Full : OrreryKind::Place,
					      rank_spread);
}

std::unique_ptr<Policy> make_bound_policy(const orrery_topology_t *t,
					  const Fabric &f,
					  const ProfileTable &profiles, int rank_spread)
{
	return std::make_unique<OrreryPolicy>(t, f, profiles, OrreryKind::Bound,
					      rank_spread);
}

std::unique_ptr<Policy> make_cassini_policy(const orrery_topology_t *t,
					    const Fabric &f,
					    const ProfileTable &profiles)
{
	return std::make_unique<OrreryPolicy>(t, f, profiles, OrreryKind::Cassini, 0);
}

std::unique_ptr<Policy> make_hold_policy(const orrery_topology_t *t,
					 const Fabric &f,
					 const ProfileTable &profiles,
					 const HoldRule &rule, int rank_spread)
{
	return std::make_unique<OrreryPolicy>(t, f, profiles, OrreryKind::Hold,
					      rank_spread, rule);
}

}  // namespace sim
