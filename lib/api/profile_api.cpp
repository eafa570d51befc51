// C API of the profile module (orrery.h, "Communication profiles").
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/handles.hpp"

using namespace orrery;

namespace {

orrery_profile_t *wrap(Profile p)
{
	auto *h = new orrery_profile;
	h->p = std::move(p);
	if (h->p.is_model())
		h->model_name = h->p.model->name;
	return h;
}

void need(const void *p, const char *what)
{
	if (!p)
		fail(ORRERY_EINVAL, std::string(what) + " is NULL");
}

char *dup_string(const std::string &s)
{
	char *r = (char *)malloc(s.size() + 1);
	if (r)
		memcpy(r, s.c_str(), s.size() + 1);
	return r;
}

}  // namespace

extern "C" {

int orrery_profile_parse(const char *spec, orrery_profile_t **out,
			 orrery_error_t *err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		orrery::fault_point("profile_parse");
		need(spec, "profile string");
		// strnlen: do not scan an unterminated giant string.
		size_t len = strnlen(spec, ORRERY_SPEC_MAX_LEN + 1);
		*out = wrap(parse_profile(std::string_view(spec, len)));
	});
}

int orrery_profile_load_file(const char *path, orrery_profile_t **out,
			     orrery_error_t *err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		need(path, "path");
		*out = wrap(load_profile_file(path));
	});
}

int orrery_profile_load_data(const char *data, size_t len,
			     orrery_profile_t **out, orrery_error_t *err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		if (!data && len)
			fail(ORRERY_EINVAL, "data is NULL");
		*out = wrap(load_profile_data(
			std::string_view(data ? data : "", len), "profile data"));
	});
}

int orrery_profile_save_file(const orrery_profile_t *p, const char *path,
			     const char *comment, orrery_error_t *err)
{
	return guard(err, [&] {
		need(p, "profile");
		need(path, "path");
		if (p->p.is_model())
			fail(ORRERY_ESTATE, "model profile '" + p->model_name +
				"' must be resolved before it is saved");
		save_profile_file(p->p.pattern, path, comment ? comment : "");
	});
}

int orrery_profile_new(int64_t period_us, const orrery_phase_t *phases,
		       size_t n_phases, orrery_profile_t **out,
		       orrery_error_t *err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		if (n_phases && !phases)
			fail(ORRERY_EINVAL, "phases is NULL");
		if (n_phases > ORRERY_MAX_PHASES)
			fail(ORRERY_ELIMIT, std::to_string(n_phases) +
				" phases, more than the limit of " +
				std::to_string(ORRERY_MAX_PHASES));
		Profile p;
		p.pattern.period_us = period_us;
		for (size_t i = 0; i < n_phases; i++) {
			Phase ph;
			ph.offset_us = phases[i].offset_us;
			ph.duration_us = phases[i].duration_us;
			ph.demand_mbps = phases[i].demand_mbps;
			if (phases[i].collective < ORRERY_COLL_RING ||
			    phases[i].collective > ORRERY_COLL_RAIL)
				fail(ORRERY_EINVAL, "phase " + std::to_string(i) +
					": unknown collective " +
					std::to_string(phases[i].collective) +
					" (accepted: ORRERY_COLL_RING, "
					"ORRERY_COLL_ALLTOALL, ORRERY_COLL_PIPELINE, "
					"ORRERY_COLL_RAIL)");
			ph.coll = (Collective)phases[i].collective;
			ph.groups = phases[i].groups;
			p.pattern.phases.push_back(ph);
		}
		p.pattern = normalise_pattern(std::move(p.pattern));
		*out = wrap(std::move(p));
	});
}

int orrery_profile_resolve(const orrery_profile_t *p,
			   const orrery_shape_t *shape,
			   orrery_profile_t **out, orrery_error_t *err)
{
	return guard(err, [&] {
		need(out, "out");
		*out = nullptr;
		orrery::fault_point("profile_resolve");
		need(p, "profile");
		Shape s;
		if (shape) {
			s.nodes = shape->nodes;
			s.gpus_per_node = shape->gpus_per_node;
			s.link_mbps = shape->link_mbps;
		}
		Profile r;
		r.pattern = resolve(p->p, s);
		*out = wrap(std::move(r));
	});
}

orrery_profile_t *orrery_profile_copy(const orrery_profile_t *p)
{
	if (!p)
		return nullptr;
	try {
		return new orrery_profile(*p);
	} catch (...) {
		return nullptr;
	}
}

void orrery_profile_free(orrery_profile_t *p) { delete p; }

char *orrery_profile_canonical(const orrery_profile_t *p)
{
	if (!p)
		return nullptr;
	try {
		return dup_string(canonical(p->p));
	} catch (...) {
		return nullptr;
	}
}

int orrery_profile_equal(const orrery_profile_t *a, const orrery_profile_t *b)
{
	if (!a || !b)
		return a == b;
	return a->p == b->p;
}

int orrery_profile_is_model(const orrery_profile_t *p)
{
	return p && p->p.is_model();
}

const char *orrery_profile_model(const orrery_profile_t *p)
{
	return p && p->p.is_model() ? p->model_name.c_str() : nullptr;
}

int64_t orrery_profile_period_us(const orrery_profile_t *p)
{
	return p && !p->p.is_model() ? p->p.pattern.period_us : 0;
}

size_t orrery_profile_phase_count(const orrery_profile_t *p)
{
	return p && !p->p.is_model() ? p->p.pattern.phases.size() : 0;
}

int orrery_profile_phase(const orrery_profile_t *p, size_t i,
			 orrery_phase_t *out)
{
	if (!p || !out)
		return ORRERY_EINVAL;
	if (p->p.is_model())
		return ORRERY_ESTATE;
	if (i >= p->p.pattern.phases.size())
		return ORRERY_ERANGE;
	const Phase &ph = p->p.pattern.phases[i];
	out->offset_us = ph.offset_us;
	out->duration_us = ph.duration_us;
	out->demand_mbps = ph.demand_mbps;
	out->collective = (int)ph.coll;
	out->groups = ph.groups;
	return ORRERY_OK;
}

double orrery_profile_mean_demand_mbps(const orrery_profile_t *p)
{
	return p && !p->p.is_model() ? p->p.pattern.mean_demand_mbps() : 0.0;
}

double orrery_profile_duty_cycle(const orrery_profile_t *p)
{
	return p && !p->p.is_model() ? p->p.pattern.duty_cycle() : 0.0;
}

size_t orrery_catalogue_count(void) { return catalogue_size(); }

const char *orrery_catalogue_name(size_t i)
{
	return i < catalogue_size() ? catalogue_name(i).c_str() : nullptr;
}

const char *orrery_catalogue_summary(size_t i)
{
	return i < catalogue_size() ? catalogue_summary(i).c_str() : nullptr;
}

}  // extern "C"
