// C API: cluster state (running jobs, shifts) and its state file.
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "api/guard.hpp"
#include "api/handles.hpp"

using orrery::fail;

namespace {

const uint32_t kMaxCandidatesLimit = 100000;

}  // namespace

extern "C" {

void orrery_cluster_opts_default(orrery_cluster_opts_t *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof *o);
	orrery_circle_opts_default(&o->circle);
	o->max_candidates = 64;
	o->rank_spread = ORRERY_RANK_SPREAD_DEFAULT;
}

int orrery_cluster_new(const orrery_topology_t *t, const orrery_cluster_opts_t *opts,
		       orrery_cluster_t **out, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!t || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_new: NULL topology or out");
		*out = nullptr;
		orrery::fault_point("cluster_new");
		orrery_cluster_opts_t o;
		if (opts)
			o = *opts;
		else
			orrery_cluster_opts_default(&o);
		if (!t->t.finalized())
			fail(ORRERY_ESTATE, "topology is not finalized (call orrery_topology_finalize first)");
		if (o.max_candidates < 1 || o.max_candidates > kMaxCandidatesLimit)
			fail(ORRERY_ERANGE, "max_candidates " + std::to_string(o.max_candidates) +
			     " outside [1, " + std::to_string(kMaxCandidatesLimit) + "]");
		if (o.rank_spread > ORRERY_RANK_SPREAD_MAX)
			fail(ORRERY_ERANGE, "rank_spread " + std::to_string(o.rank_spread) +
			     " outside [0, " + std::to_string(ORRERY_RANK_SPREAD_MAX) + "]");
		orrery::CircleOpts co = orrery::CircleOpts::from_c(&o.circle);
		auto h = std::make_unique<orrery_cluster>();
		h->c = std::make_unique<orrery::Cluster>(t->t, co, o.max_candidates);
		h->c->set_rank_spread(o.rank_spread);
		h->topo_view.t = t->t;
		*out = h.release();
	});
}

void orrery_cluster_free(orrery_cluster_t *c) { delete c; }

const orrery_topology_t *orrery_cluster_topology(const orrery_cluster_t *c)
{
	return c ? &c->topo_view : nullptr;
}

int64_t orrery_cluster_epoch_us(const orrery_cluster_t *c)
{
	return c ? c->c->epoch_us() : 0;
}

void orrery_cluster_set_epoch_us(orrery_cluster_t *c, int64_t epoch_us)
{
	if (c)
		c->c->set_epoch_us(epoch_us);
}

uint64_t orrery_cluster_version(const orrery_cluster_t *c)
{
	return c ? c->c->version() : 0;
}

int orrery_cluster_add_job(orrery_cluster_t *c, uint32_t job_id, const uint32_t *nodes,
			   size_t n_nodes, const orrery_profile_t *profile, int64_t shift_us,
			   orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("cluster_add");
		if (!c || !profile || (!nodes && n_nodes))
			fail(ORRERY_EINVAL, "orrery_cluster_add_job: NULL cluster, nodes or profile");
		if (profile->p.is_model())
			fail(ORRERY_ESTATE, "job " + std::to_string(job_id) + ": profile '" +
			     profile->p.model->name +
			     "' is a catalogue model; resolve it for the job's shape first (orrery_profile_resolve)");
		if (n_nodes > c->c->topology().nodes.size())
			fail(ORRERY_ELIMIT, "job " + std::to_string(job_id) + " lists " +
			     std::to_string(n_nodes) + " nodes; the topology has " +
			     std::to_string(c->c->topology().nodes.size()));
		orrery_profile copy;
		copy.p.pattern = profile->p.pattern;
		// Make room first so that nothing can fail after add_job.
		auto slot = c->profiles.emplace(job_id, std::move(copy));
		try {
			c->c->add_job(job_id, std::vector<uint32_t>(nodes, nodes + n_nodes),
				      profile->p.pattern, shift_us);
		} catch (...) {
			if (slot.second)
				c->profiles.erase(slot.first);
			throw;
		}
	});
}

int orrery_cluster_remove_job(orrery_cluster_t *c, uint32_t job_id)
{
	if (!c)
		return ORRERY_EINVAL;
	if (!c->c->remove_job(job_id))
		return ORRERY_ENOENT;
	c->profiles.erase(job_id);
	return ORRERY_OK;
}

size_t orrery_cluster_job_count(const orrery_cluster_t *c)
{
	return c ? c->c->jobs().size() : 0;
}

uint32_t orrery_cluster_job_id(const orrery_cluster_t *c, size_t i)
{
	// Ascending ids; profiles mirrors the job map, and std::map iteration
	// is ordered, but a linear walk is still O(i): callers iterate, so
	// this is O(n^2) for a full walk of a huge cluster.  Acceptable for
	// the tools; the plugin keeps its own index.
	if (!c || i >= c->c->jobs().size())
		return 0;
	auto it = c->c->jobs().begin();
	std::advance(it, (long)i);
	return it->first;
}

int orrery_cluster_job_shift_us(const orrery_cluster_t *c, uint32_t job_id, int64_t *shift_us,
				int64_t *period_us)
{
	if (!c)
		return ORRERY_EINVAL;
	const orrery::RunningJob *j = c->c->job(job_id);
	if (!j)
		return ORRERY_ENOENT;
	if (shift_us)
		*shift_us = j->shift_us;
	if (period_us)
		*period_us = j->gate_period_us;
	return ORRERY_OK;
}

const orrery_profile_t *orrery_cluster_job_profile(const orrery_cluster_t *c, uint32_t job_id)
{
	if (!c)
		return nullptr;
	auto it = c->profiles.find(job_id);
	return it == c->profiles.end() ? nullptr : &it->second;
}

int orrery_cluster_job_measured(orrery_cluster_t *c, uint32_t job_id, int64_t iteration_us,
				double tolerance, int *changed, orrery_error_t *err)
{
	if (changed)
		*changed = 0;
	return orrery::guard(err, [&] {
		if (!c)
			fail(ORRERY_EINVAL, "orrery_cluster_job_measured: NULL cluster");
		const std::string who = "job " + std::to_string(job_id);
		const orrery::RunningJob *j = c->c->job(job_id);
		auto given = c->profiles.find(job_id);
		if (!j || given == c->profiles.end())
			fail(ORRERY_ENOENT, who + " is not recorded");
		if (!(tolerance >= 0 && tolerance <= 0.5))
			fail(ORRERY_ERANGE, who + ": tolerance " + std::to_string(tolerance) +
			     " outside [0, 0.5]");
		// Always from the profile the job was given, so that errors of
		// successive measurements do not compound.
		const orrery::Pattern &p = given->second.p.pattern;
		if (iteration_us < p.period_us / 2 || iteration_us > 2 * p.period_us)
			fail(ORRERY_ERANGE, who + ": measured iteration " +
			     std::to_string(iteration_us) + " us is not within half to twice its profile's period (" +
			     std::to_string(p.period_us) + " us); left as profiled");
		if (c->c->measured(job_id, iteration_us, tolerance, p) && changed)
			*changed = 1;
	});
}

int orrery_measured_off(const int64_t *windows, size_t n, int64_t period_us,
			double tolerance, int64_t *shortest_us)
{
	return orrery::measured_off(windows, n, period_us, tolerance, shortest_us) ? 1 : 0;
}

size_t orrery_cluster_job_nodes(const orrery_cluster_t *c, uint32_t job_id, uint32_t *nodes,
				size_t max)
{
	if (!c)
		return 0;
	const orrery::RunningJob *j = c->c->job(job_id);
	if (!j)
		return 0;
	for (size_t i = 0; nodes && i < j->nodes.size() && i < max; i++)
		nodes[i] = j->nodes[i];
	return j->nodes.size();
}

int orrery_cluster_save(const orrery_cluster_t *c, const char *path, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("state_save");
		if (!c || !path || !*path)
			fail(ORRERY_EINVAL, "orrery_cluster_save: NULL cluster or empty path");
		c->c->save(path);
	});
}

int orrery_cluster_serialise(const orrery_cluster_t *c, char **out, size_t *len,
			     orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		if (!c || !out)
			fail(ORRERY_EINVAL, "orrery_cluster_serialise: NULL cluster or output");
		*out = nullptr;
		std::string data = c->c->serialise();
		char *p = static_cast<char *>(std::malloc(data.size() + 1));
		if (!p)
			throw std::bad_alloc();
		std::memcpy(p, data.data(), data.size() + 1);
		*out = p;
		if (len)
			*len = data.size();
	});
}

int orrery_state_write(const char *path, const char *data, size_t len,
		       orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("state_save");
		if (!path || !*path || (!data && len))
			fail(ORRERY_EINVAL, "orrery_state_write: empty path or NULL data");
		orrery::write_state_file(path, data ? data : "", len);
	});
}

}  // extern "C"

// Both loads: `read` parses against the cluster without changing it; the
// profile handles are built next; only then do both change, where nothing
// can fail (no copy of the cluster needed for all-or-nothing).
template <typename Read>
static void load_into(orrery_cluster_t *c, size_t *dropped, Read read)
{
	orrery::Cluster::Loaded s = read(static_cast<const orrery::Cluster &>(*c->c));
	std::map<uint32_t, orrery_profile> fresh;
	for (const auto &kv : s.jobs) {
		orrery_profile p;
		p.p.pattern = kv.second.pattern;
		fresh.emplace(kv.first, std::move(p));
	}
	size_t d = s.dropped;
	c->c->apply(std::move(s));
	c->profiles.swap(fresh);
	if (dropped)
		*dropped = d;
}

extern "C" {

int orrery_cluster_load(orrery_cluster_t *c, const char *path, size_t *dropped,
			orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("state_load");
		if (!c || !path || !*path)
			fail(ORRERY_EINVAL, "orrery_cluster_load: NULL cluster or empty path");
		load_into(c, dropped,
			  [&](const orrery::Cluster &k) { return k.read_state(path); });
	});
}

int orrery_cluster_load_data(orrery_cluster_t *c, const char *data, size_t len,
			     const char *origin, size_t *dropped, orrery_error_t *err)
{
	return orrery::guard(err, [&] {
		orrery::fault_point("state_load");
		if (!c || (!data && len))
			fail(ORRERY_EINVAL, "orrery_cluster_load_data: NULL cluster or data");
		std::string text(data ? data : "", len);
		std::string name = origin && *origin ? origin : "state data";
		load_into(c, dropped,
			  [&](const orrery::Cluster &k) { return k.parse_state(text, name); });
	});
}

}  // extern "C"
