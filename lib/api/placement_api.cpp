// C API: evaluating a node set, ranking placements, solving shifts.
#include <algorithm>

#include "api/guard.hpp"
#include "api/handles.hpp"

using orrery::fail;

namespace {

const orrery::Pattern &explicit_pattern(const orrery_profile_t *p)
{
	if (!p)
		fail(ORRERY_EINVAL, "NULL profile");
	if (p->p.is_model())
		fail(ORRERY_ESTATE, "profile '" + p->p.model->name +
		     "' is a catalogue model; resolve it for the job's shape first (orrery_profile_resolve)");
	return p->p.pattern;
}

}  // namespace

extern "C" {

int orrery_cluster_evaluate(const orrery_cluster_t *c, const uint32_t *nodes, size_t n_nodes,
			    const orrery_profile_t *profile, orrery_eval_t **out,
			    orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("evaluate");
		if (!c || !out || (!nodes && n_nodes))
			fail(ORRERY_EINVAL, "orrery_cluster_evaluate: NULL cluster, nodes or out");
		*out = nullptr;
		const orrery::Pattern &p = explicit_pattern(profile);
		if (n_nodes > c->c->topology().nodes.size())
			fail(ORRERY_ELIMIT, std::to_string(n_nodes) + " nodes given; the topology has " +
			     std::to_string(c->c->topology().nodes.size()));
		auto e = std::make_unique<orrery_eval>();
		e->e = orrery::evaluate(*c->c, std::vector<uint32_t>(nodes, nodes + n_nodes), p);
		*out = e.release();
	});
}

double orrery_eval_score_min(const orrery_eval_t *e) { return e ? e->e.score_min : 0.0; }
double orrery_eval_score_mean(const orrery_eval_t *e) { return e ? e->e.score_mean : 0.0; }
int64_t orrery_eval_shift_us(const orrery_eval_t *e) { return e ? e->e.shift_us : 0; }
int64_t orrery_eval_period_us(const orrery_eval_t *e) { return e ? e->e.gate_period_us : 0; }
size_t orrery_eval_link_count(const orrery_eval_t *e) { return e ? e->e.links.size() : 0; }

int orrery_eval_link(const orrery_eval_t *e, size_t i, orrery_link_eval_t *out)
{
	if (!e || !out)
		return ORRERY_EINVAL;
	if (i >= e->e.links.size())
		return ORRERY_ERANGE;
	const orrery::LinkEval &l = e->e.links[i];
	out->switch_index = (uint32_t)l.sw;
	out->capacity_mbps = l.capacity_mbps;
	out->other_jobs = l.other_jobs;
	out->score = l.outcome.score;
	out->over_fraction = l.outcome.over_fraction;
	out->score_unshifted = l.outcome.score_unshifted;
	return ORRERY_OK;
}

void orrery_eval_free(orrery_eval_t *e) { delete e; }

int orrery_cluster_place(const orrery_cluster_t *c, const uint8_t *free_nodes,
			 uint32_t n_nodes, const orrery_profile_t *profile,
			 orrery_placement_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("place");
		if (!c || !free_nodes || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_place: NULL cluster, free_nodes or out");
		*out = nullptr;
		const orrery::Pattern &p = explicit_pattern(profile);
		size_t n = c->c->topology().nodes.size();
		std::vector<uint8_t> avail(free_nodes, free_nodes + n);
		auto h = std::make_unique<orrery_placement>();
		h->p = orrery::place(*c->c, avail, n_nodes, p);
		// The evaluations live in the handle's orrery_eval array (what
		// orrery_placement_eval returns); move them there.
		h->evals.resize(h->p.ranked.size());
		for (size_t i = 0; i < h->p.ranked.size(); i++)
			h->evals[i].e = std::move(h->p.ranked[i].eval);
		*out = h.release();
	});
}

size_t orrery_placement_count(const orrery_placement_t *p)
{
	return p ? p->p.ranked.size() : 0;
}

size_t orrery_placement_enumerated(const orrery_placement_t *p)
{
	return p ? p->p.enumerated : 0;
}

size_t orrery_placement_nodes(const orrery_placement_t *p, size_t i, uint32_t *nodes, size_t max)
{
	if (!p || i >= p->p.ranked.size())
		return 0;
	const std::vector<uint32_t> &v = p->p.ranked[i].nodes;
	for (size_t k = 0; nodes && k < v.size() && k < max; k++)
		nodes[k] = v[k];
	return v.size();
}

const orrery_eval_t *orrery_placement_eval(const orrery_placement_t *p, size_t i)
{
	if (!p || i >= p->evals.size())
		return nullptr;
	return &p->evals[i];
}

int orrery_placement_lca_level(const orrery_placement_t *p, size_t i)
{
	if (!p || i >= p->p.ranked.size())
		return -1;
	return p->p.ranked[i].lca_level;
}

uint32_t orrery_placement_leaf_count(const orrery_placement_t *p, size_t i)
{
	if (!p || i >= p->p.ranked.size())
		return 0;
	return p->p.ranked[i].leaves;
}

double orrery_placement_cost(const orrery_placement_t *p, size_t i)
{
	if (!p || i >= p->p.ranked.size())
		return -1.0;
	return p->p.ranked[i].cost;
}

double orrery_placement_hold_cost(const orrery_placement_t *p, size_t i)
{
	if (!p || i >= p->p.ranked.size())
		return -1.0;
	const orrery::Candidate &c = p->p.ranked[i];
	return c.cost < 0 ? c.cost : std::max(0.0, c.cost - c.self_cost);
}

int orrery_hold_decide(double cost, double hold_cost, double waited_s,
		       double hold_max_s)
{
	// NaN fails every comparison: never a hold.
	if (!(hold_cost > 0) || !(hold_max_s > 0) || !(waited_s < hold_max_s))
		return 0;
	return cost >= 0 && cost > hold_cost ? 1 : 0;
}

int orrery_placement_hold(const orrery_placement_t *p, size_t i,
			  double hold_cost, double waited_s, double hold_max_s)
{
	if (!p)
		return 0;
	return orrery_hold_decide(orrery_placement_hold_cost(p, i), hold_cost,
				  waited_s, hold_max_s);
}

void orrery_placement_free(orrery_placement_t *p) { delete p; }

int orrery_cluster_solve(orrery_cluster_t *c, int apply, orrery_solve_t **out,
			 orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("solve");
		if (!c || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_solve: NULL cluster or out");
		*out = nullptr;
		orrery::ShiftSolution sol = orrery::solve_shifts(*c->c);
		auto h = std::make_unique<orrery_solve>();
		h->r = std::move(sol.result);
		h->job_ids = std::move(sol.job_ids);
		h->link_jobs = std::move(sol.link_jobs);
		if (apply) {
			// All-or-nothing: validate every shift before the first write.
			for (int64_t s : h->r.shift_us)
				if (s < 0 || s > ORRERY_MAX_PERIOD_US)
					fail(ORRERY_EINTERNAL, "solver produced shift " +
					     std::to_string(s) + " us");
			for (size_t i = 0; i < h->job_ids.size(); i++)
				c->c->set_shift(h->job_ids[i], h->r.shift_us[i]);
		}
		*out = h.release();
	});
}

size_t orrery_solve_link_count(const orrery_solve_t *s) { return s ? s->r.links.size() : 0; }

int orrery_solve_link(const orrery_solve_t *s, size_t i, orrery_solve_link_t *out)
{
	if (!s || !out)
		return ORRERY_EINVAL;
	if (i >= s->r.links.size())
		return ORRERY_ERANGE;
	const auto &l = s->r.links[i];
	out->switch_index = l.id;
	out->jobs = i < s->link_jobs.size() ? s->link_jobs[i] : 0;
	out->score_optimal = l.score_optimal;
	out->score_achieved = l.score_achieved;
	out->loop_closing = l.loop_closing ? 1 : 0;
	return ORRERY_OK;
}

int orrery_solve_loops(const orrery_solve_t *s) { return s ? s->r.loops : 0; }

int orrery_solve_job_shift(const orrery_solve_t *s, uint32_t job_id, int64_t *shift_us)
{
	if (!s)
		return ORRERY_EINVAL;
	// job_ids ascend (the cluster's job map order).
	auto it = std::lower_bound(s->job_ids.begin(), s->job_ids.end(), job_id);
	if (it == s->job_ids.end() || *it != job_id)
		return ORRERY_ENOENT;
	if (shift_us)
		*shift_us = s->r.shift_us[(size_t)(it - s->job_ids.begin())];
	return ORRERY_OK;
}

void orrery_solve_free(orrery_solve_t *s) { delete s; }

}  // extern "C"
