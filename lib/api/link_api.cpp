// C API: unified circle and the compatibility score of one link.
#include <cmath>
#include <string>

#include "api/guard.hpp"
#include "api/handles.hpp"
#include "writers/svg.hpp"

using orrery::fail;

namespace orrery {

// Most jobs accepted on one link by orrery_link_score (search cost and
// the SVG's rings grow with it).
constexpr size_t kMaxLinkJobs = 64;

}  // namespace orrery

extern "C" {

void orrery_circle_opts_default(orrery_circle_opts_t *o)
{
	if (!o)
		return;
	orrery::CircleOpts d;
	o->bins = d.bins;
	o->quantum_us = d.quantum_us;
	o->cap_us = d.cap_us;
	o->exact_budget = d.exact_budget;
}

int orrery_link_score(const orrery_profile_t *const *profiles, size_t n,
		      uint64_t capacity_mbps, const int64_t *fixed_shift_us,
		      const orrery_circle_opts_t *opts,
		      orrery_link_result_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!out)
			fail(ORRERY_EINVAL, "orrery_link_score: out is NULL");
		*out = nullptr;
		orrery::fault_point("link_score");
		if (n == 0 || !profiles)
			fail(ORRERY_EINVAL, "orrery_link_score: no profiles (n must be >= 1)");
		if (n > orrery::kMaxLinkJobs)
			fail(ORRERY_ELIMIT, "orrery_link_score: " + std::to_string(n) +
				" jobs on one link (at most " +
				std::to_string(orrery::kMaxLinkJobs) + ")");
		orrery::CircleOpts o = orrery::CircleOpts::from_c(opts);
		auto r = std::make_unique<orrery_link_result>();
		r->capacity_mbps = capacity_mbps;
		for (size_t i = 0; i < n; i++) {
			const orrery_profile_t *p = profiles[i];
			if (!p)
				fail(ORRERY_EINVAL, "orrery_link_score: profile " +
					std::to_string(i) + " is NULL");
			if (p->p.is_model())
				fail(ORRERY_ESTATE, "orrery_link_score: profile " +
					std::to_string(i) + " is the catalogue model '" +
					p->p.model->name + "'; resolve it for the job's "
					"shape with orrery_profile_resolve() first");
			const orrery::Pattern &pat = p->p.pattern;
			if (pat.period_us < ORRERY_MIN_PERIOD_US ||
			    pat.period_us > ORRERY_MAX_PERIOD_US)
				fail(ORRERY_ERANGE, "orrery_link_score: profile " +
					std::to_string(i) + " has period " +
					std::to_string(pat.period_us) + " us (accepted: " +
					std::to_string(ORRERY_MIN_PERIOD_US) + ".." +
					std::to_string(ORRERY_MAX_PERIOD_US) + ")");
			orrery::LinkJob j{pat, std::nullopt};
			if (fixed_shift_us && fixed_shift_us[i] >= 0)
				j.fixed_shift_us = fixed_shift_us[i];
			r->jobs.push_back(std::move(j));
		}
		r->s = orrery::best_rotations(r->jobs, capacity_mbps, o);
		*out = r.release();
	});
}

double orrery_link_result_score(const orrery_link_result_t *r)
{
	return r ? r->s.score : NAN;
}

double orrery_link_result_score_unshifted(const orrery_link_result_t *r)
{
	return r ? r->s.score_unshifted : NAN;
}

double orrery_link_result_over_fraction(const orrery_link_result_t *r)
{
	return r ? r->s.over_fraction : NAN;
}

double orrery_link_result_over_fraction_unshifted(const orrery_link_result_t *r)
{
	return r ? r->s.over_fraction_unshifted : NAN;
}

int64_t orrery_link_result_perimeter_us(const orrery_link_result_t *r)
{
	return r ? r->s.circle.perimeter_us : 0;
}

size_t orrery_link_result_job_count(const orrery_link_result_t *r)
{
	return r ? r->jobs.size() : 0;
}

int64_t orrery_link_result_shift_us(const orrery_link_result_t *r, size_t i)
{
	return r && i < r->s.shift_us.size() ? r->s.shift_us[i] : -1;
}

int64_t orrery_link_result_gate_period_us(const orrery_link_result_t *r,
					  size_t i)
{
	return r && i < r->s.circle.gate_period_us.size()
		? r->s.circle.gate_period_us[i] : -1;
}

int orrery_link_result_exact(const orrery_link_result_t *r)
{
	return r && r->s.exact ? 1 : 0;
}

int orrery_link_result_smeared(const orrery_link_result_t *r)
{
	return r && r->s.circle.smeared ? 1 : 0;
}

int orrery_link_result_write_svg(const orrery_link_result_t *r,
				 const char *const *labels, const char *title,
				 FILE *out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!r || !out)
			fail(ORRERY_EINVAL, "orrery_link_result_write_svg: "
				"result and out must not be NULL");
		orrery::write_link_svg(r->s, r->jobs, r->capacity_mbps, labels,
				       title, out);
	});
}

void orrery_link_result_free(orrery_link_result_t *r)
{
	delete r;
}

}  // extern "C"

double orrery_ecmp_excess(uint64_t capacity_mbps, uint32_t links,
			  uint32_t flows, double total_mbps)
{
	if (links < 1 || links > orrery::kMaxLinks || !(total_mbps >= 0))
		return 0.0;
	orrery::EcmpExcess m(orrery::LinkCap(capacity_mbps, links, flows));
	return m(total_mbps, flows);
}
