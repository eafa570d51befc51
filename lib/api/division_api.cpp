// C API: time division of link groups (orrery.h, "Time division").
#include <algorithm>

#include "api/guard.hpp"
#include "api/handles.hpp"

using orrery::fail;

namespace {

void fill_job(const orrery_division_t *d, size_t i, orrery_division_job_t *out)
{
	const orrery::JobGate &j = d->d.jobs[i];
	out->job_id = d->d.job_ids[i];
	out->group = j.group;
	out->gated = j.gated ? 1 : 0;
	out->period_us = j.gated ? j.period_us : 0;
	out->shift_us = j.gated ? j.shift_us : 0;
	out->isolated_us = j.isolated_us;
	out->iter_rotate_us = out->iter_divide_us = out->iter_share_us = -1;
	out->divide_shift_us = 0;
	out->divide_period_us = 0;
	out->changed = j.changed ? 1 : 0;
	if (j.group < 0)
		return;
	const orrery::GroupDecision &g = d->d.groups[(size_t)j.group];
	auto it = std::lower_bound(g.jobs.begin(), g.jobs.end(), i);
	if (it == g.jobs.end() || *it != i)
		return;
	size_t k = (size_t)(it - g.jobs.begin());
	out->iter_rotate_us = g.iter_rotate_us[k];
	out->iter_divide_us = g.iter_divide_us[k];
	out->iter_share_us = g.iter_share_us[k];
	out->divide_shift_us = g.period_us ? g.divide_shift_us[k] : 0;
	out->divide_period_us = g.period_us ? g.divide_period_us[k] : 0;
}

}  // namespace

extern "C" {

const char *orrery_group_mode_name(int mode)
{
	if (mode < 0 || mode > 2)
		return "unknown";
	return orrery::group_mode_name((orrery::GroupMode)mode);
}

int orrery_cluster_realign(orrery_cluster_t *c, const orrery_division_t *prev,
			   int apply, orrery_division_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!c || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_realign: NULL cluster or out");
		*out = nullptr;
		orrery::fault_point("divide");
		auto h = std::make_unique<orrery_division>();
		h->d = orrery::divide_cluster(*c->c, prev ? &prev->d : nullptr);
		if (apply) {
			// Rotated jobs keep their own period: record the shift they
			// are given, so that later placements score against it.
			for (size_t i = 0; i < h->d.jobs.size(); i++) {
				const orrery::JobGate &j = h->d.jobs[i];
				if (j.group < 0 || !j.gated)
					continue;
				const orrery::GroupDecision &g = h->d.groups[(size_t)j.group];
				if (g.mode == orrery::GroupMode::Rotate)
					c->c->set_shift(h->d.job_ids[i], j.shift_us);
			}
		}
		*out = h.release();
	});
}

int orrery_cluster_divide(const orrery_cluster_t *c, orrery_division_t **out,
			  orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!c || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_divide: NULL cluster or out");
		*out = nullptr;
		orrery::fault_point("divide");
		auto h = std::make_unique<orrery_division>();
		h->d = orrery::divide_cluster(*c->c, nullptr);
		*out = h.release();
	});
}

int orrery_link_divide(const orrery_profile_t *const *profiles, size_t n,
		       uint64_t capacity_mbps, const orrery_circle_opts_t *opts,
		       orrery_division_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!out)
			fail(ORRERY_EINVAL, "orrery_link_divide: out is NULL");
		*out = nullptr;
		orrery::fault_point("divide");
		if (n == 0 || !profiles)
			fail(ORRERY_EINVAL, "orrery_link_divide: no profiles (n must be >= 1)");
		if (n > orrery::kMaxPredictJobs)
			fail(ORRERY_ELIMIT, "orrery_link_divide: " + std::to_string(n) +
			     " jobs on one link (at most " +
			     std::to_string(orrery::kMaxPredictJobs) + ")");
		if (!capacity_mbps)
			fail(ORRERY_EINVAL, "orrery_link_divide: capacity 0 (unknown) has nothing to divide");
		orrery::CircleOpts o = orrery::CircleOpts::from_c(opts);
		std::vector<orrery::Pattern> pats;
		for (size_t i = 0; i < n; i++) {
			const orrery_profile_t *p = profiles[i];
			if (!p)
				fail(ORRERY_EINVAL, "orrery_link_divide: profile " +
				     std::to_string(i) + " is NULL");
			if (p->p.is_model())
				fail(ORRERY_ESTATE, "orrery_link_divide: profile " +
				     std::to_string(i) + " is the catalogue model '" +
				     p->p.model->name + "'; resolve it first");
			if (p->p.pattern.phases.empty())
				fail(ORRERY_EINVAL, "orrery_link_divide: profile " +
				     std::to_string(i) + " has no Up phase");
			pats.push_back(p->p.pattern);
		}
		auto h = std::make_unique<orrery_division>();
		h->d = orrery::divide_link(pats, capacity_mbps, o);
		*out = h.release();
	});
}

size_t orrery_division_group_count(const orrery_division_t *d)
{
	return d ? d->d.groups.size() : 0;
}

int orrery_division_group(const orrery_division_t *d, size_t i,
			  orrery_division_group_t *out)
{
	if (!d || !out)
		return ORRERY_EINVAL;
	if (i >= d->d.groups.size())
		return ORRERY_ERANGE;
	const orrery::GroupDecision &g = d->d.groups[i];
	out->links = (uint32_t)g.links.size();
	out->jobs = (uint32_t)g.jobs.size();
	out->score = g.score;
	out->mode = (int)g.mode;
	out->period_us = g.period_us;
	out->slowdown_rotate = g.slowdown_rotate;
	out->slowdown_divide = g.slowdown_divide;
	out->slowdown_share = g.slowdown_share;
	out->reason = g.reason.c_str();
	out->reused = g.reused ? 1 : 0;
	return ORRERY_OK;
}

size_t orrery_division_group_links(const orrery_division_t *d, size_t i,
				   uint32_t *switches, size_t max)
{
	if (!d || i >= d->d.groups.size())
		return 0;
	const orrery::GroupDecision &g = d->d.groups[i];
	for (size_t k = 0; switches && k < g.links.size() && k < max; k++)
		switches[k] = d->d.link_ids[g.links[k]];
	return g.links.size();
}

size_t orrery_division_job_count(const orrery_division_t *d)
{
	return d ? d->d.jobs.size() : 0;
}

int orrery_division_job(const orrery_division_t *d, size_t i,
			orrery_division_job_t *out)
{
	if (!d || !out)
		return ORRERY_EINVAL;
	if (i >= d->d.jobs.size())
		return ORRERY_ERANGE;
	fill_job(d, i, out);
	return ORRERY_OK;
}

int orrery_division_find_job(const orrery_division_t *d, uint32_t job_id,
			     orrery_division_job_t *out)
{
	if (!d || !out)
		return ORRERY_EINVAL;
	for (size_t i = 0; i < d->d.job_ids.size(); i++)
		if (d->d.job_ids[i] == job_id) {
			fill_job(d, i, out);
			return ORRERY_OK;
		}
	return ORRERY_ENOENT;
}

int orrery_division_job_gate(const orrery_cluster_t *c,
			     const orrery_division_t *d, size_t i,
			     orrery_division_job_t *out)
{
	int rc = orrery_division_job(d, i, out);
	if (rc != ORRERY_OK)
		return rc;
	if (!c)
		return ORRERY_EINVAL;
	const orrery::RunningJob *j = c->c->job(out->job_id);
	if (!j)
		return ORRERY_ENOENT;
	// Rotation: the running jobs' shifts are the fixed frame a newcomer
	// was placed against; moving them would move every neighbour too.
	if (out->group >= 0 && out->gated &&
	    d->d.groups[(size_t)out->group].mode == orrery::GroupMode::Rotate) {
		out->shift_us = j->shift_us;
		out->period_us = j->gate_period_us;
	}
	// A job retimed to its measured iteration (orrery_cluster_job_measured)
	// has its first Up phase elsewhere in the model than in the profile
	// its gate knows (the gate puts that phase's offset after the slot):
	// the shift carries the difference.
	auto given = c->profiles.find(out->job_id);
	if (out->gated && out->period_us > 0 && given != c->profiles.end() &&
	    !given->second.p.pattern.phases.empty() && !j->pattern.phases.empty()) {
		const int64_t move = j->pattern.phases[0].offset_us -
				     given->second.p.pattern.phases[0].offset_us;
		// Only then: a job never retimed publishes its shift as is.
		if (move)
			out->shift_us = ((out->shift_us + move) % out->period_us +
					 out->period_us) % out->period_us;
	}
	return ORRERY_OK;
}

void orrery_division_free(orrery_division_t *d) { delete d; }

}  // extern "C"
