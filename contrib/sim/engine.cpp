#include "engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <cstdio>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include <unistd.h>

#include <orrery.h>

#include "cruise.hpp"
#include "network.hpp"
#include "policies.hpp"

namespace sim {

double Pattern::iteration_time() const
{
	double t = 0;
	for (const Phase &p : phases)
		t = std::max(t, p.offset) + p.duration;
	return std::max(t, period);
}

namespace {

// A placement's gate replaced by a policy's change.
void take_gate(Placement &pl, const GateChange &c)
{
	pl.gated = c.gated;
	pl.shift = c.shift;
	pl.gate_period = c.period;
}

enum EvType : uint8_t {
	EV_ARRIVE,    // a = job
	EV_DOWN_END,  // a = job: compute gap over, next Up phase ready
	EV_GATE,      // a = job: the phase's slot has come
	EV_UP_END,    // a = job, b = flow id, v = flow version
	EV_UP_FIXED,  // a = job: Up phase on no constrained link ended
	EV_JOB_END,   // a = job
	EV_SHARE,     // a = job, v = share sequence: mltcp share update
	EV_BACKFILL,  // a sched/backfill pass (slurm queue)
	EV_CRUISE_END,  // a = job, v = cruise sequence: a cruising job ends
	EV_LEARN,     // the policy took a measured iteration: its gate changes
};

// mltcp's rule: share = 1 + kMltcpSlope * (fraction of this iteration's
// bytes already sent), updated every 1/kMltcpSteps of a phase's bytes.
constexpr double kMltcpSlope = 2.0;
constexpr int kMltcpSteps = 10;

struct Event {
	double t;
	uint64_t seq;
	uint64_t v;
	uint32_t a, b;
	EvType type;
};

struct Later {
	bool operator()(const Event &x, const Event &y) const
	{
		if (x.t != y.t)
			return x.t > y.t;
		return x.seq > y.seq;
	}
};

struct GateDeleter {
	void operator()(orrery_gate_t *g) const { orrery_gate_free(g); }
};

struct Running {
	Placement pl;
	// liborrery's gate policy (the one the job-side runtime applies).
	std::unique_ptr<orrery_gate_t, GateDeleter> gate;
	std::vector<std::vector<Crossing>> cross;  // per phase of the pattern
	size_t phase = 0;
	uint64_t iter = 0;
	uint32_t flow = 0;
	bool in_net = false;
	double iter_sent = 0;     // mltcp: Mbit per node sent in earlier phases
	double up_bits = 0;       // Mbit per node the current Up phase carries
	uint64_t share_seq = 0;   // mltcp: the EV_SHARE event that counts
	bool stepped = false;     // iterations simulated (not one fixed event)
	bool pending = false;     // a gate change waits for a boundary
	double pending_after = 0;
	GateChange change;
	uint64_t windows_seen = 0;  // the gate's measurement windows reported
	orrery_gate_stats_t acc{};  // counters of gates already replaced
	// Fast-forward (cruise.hpp): iterations cruise_iter0.. at isolated
	// timing, iteration cruise_iter0 starting at cruise_t0.
	Cycle cycle;
	bool cruising = false;
	uint64_t cruise_seq = 0;  // the EV_CRUISE_END event that counts
	uint64_t cruise_iter0 = 0;
	double cruise_t0 = 0;
};

}  // namespace

// Slots epoch + shift + k * period are where the job's iteration starts on
// the circle; its first Up phase belongs at offset_0 after that, so the
// gate's grid is moved by offset_0, the profile's (the job-side gate knows
// the profile, not the job's real compute).
static orrery_gate_t *make_gate(const Placement &pl, const JobSpec &job, double epoch,
				double late_tolerance, uint32_t margin_ppm)
{
	const Pattern &pat = job.pattern;
	orrery_gate_params_t p;
	orrery_gate_params_default(&p);
	p.period_us = (int64_t)std::llround(pl.gate_period * 1e6);
	p.epoch_us = (int64_t)std::llround(epoch * 1e6);
	int64_t off = (int64_t)std::llround(
		(job.gate_offset >= 0 ? job.gate_offset : pat.phases[0].offset) * 1e6);
	int64_t sh = (int64_t)std::llround(pl.shift * 1e6) + off;
	p.shift_us = p.period_us > 0 ? ((sh % p.period_us) + p.period_us) % p.period_us : 0;
	p.margin_ppm = margin_ppm;
	if (late_tolerance > 0)
		p.late_tolerance_us = std::min<int64_t>(
			p.period_us - 1,
			(int64_t)std::llround(late_tolerance * (double)p.period_us));
	orrery_gate_t *g = nullptr;
	orrery_error_t err{};
	if (orrery_gate_new(&p, &g, &err) != ORRERY_OK)
		throw std::runtime_error(std::string("gate: ") + err.message);
	return g;
}

// The factor of one compute gap under --iteration-jitter (EngineOptions):
// uniform in [1 - jitter, 1 + jitter], the same for the same (seed, job,
// iteration, phase) whatever the policy, so that policies are compared on
// the same noise.
static double jitter_factor(double jitter, uint64_t seed, uint32_t job_id,
			    uint64_t iter, size_t phase)
{
	if (jitter <= 0)
		return 1;
	Rng rng(seed * 0x9e3779b97f4a7c15ULL ^ (uint64_t)job_id * 0xd1b54a32d192ed03ULL ^
		iter * 0x8cb92ba72f3d8dd7ULL ^ (uint64_t)phase * 0xa0761d6478bd642fULL);
	return 1 - jitter + 2 * jitter * rng.uniform();
}

// Up phases draw apart from the compute gaps of the same (job, iteration,
// phase): the phase index with its top bit set.
constexpr size_t kTransferDraw = (size_t)1 << (sizeof(size_t) * 8 - 1);

// The bound policies' job: one Up phase over the whole isolated
// iteration at the mean rate, crossing each link with the bytes-weighted
// mean of its phases' crossings, so that its mean load on every link is
// what the phases put there.  No compute gap is left, so a link whose
// jobs' mean loads fit never slows them: what a perfect gate would reach.
static void smooth_job(Pattern &pat, std::vector<std::vector<Crossing>> &cross)
{
	const double T = pat.iteration_time();
	double bits = 0;
	for (const Phase &ph : pat.phases)
		bits += ph.demand * ph.duration;
	if (!(T > 0) || !(bits > 0))
		return;
	std::map<uint32_t, Crossing> merged;
	for (size_t i = 0; i < pat.phases.size(); i++) {
		const double share = pat.phases[i].demand * pat.phases[i].duration / bits;
		for (const Crossing &c : cross[i]) {
			Crossing &m = merged.emplace(c.link, Crossing{c.link, 0, 0}).first->second;
			m.weight += share * c.weight;
			m.conns = std::max(m.conns, c.conns);
		}
	}
	Phase one = pat.phases[0];
	one.offset = 0;
	one.duration = T;
	one.demand = bits / T;
	pat.period = T;
	pat.phases.assign(1, one);
	cross.assign(1, {});
	for (const auto &kv : merged)
		cross[0].push_back(kv.second);
}

Engine::Engine(const Fabric &f, Policy &p, EngineOptions o)
	: fabric_(f), policy_(p), opt_(std::move(o))
{
}

std::vector<JobResult> Engine::run(std::vector<JobSpec> jobs, SimStats &st)
{
	using clock = std::chrono::steady_clock;
	const auto t0 = clock::now();
	std::stable_sort(jobs.begin(), jobs.end(),
			 [](const JobSpec &a, const JobSpec &b) {
				 if (a.arrival != b.arrival)
					 return a.arrival < b.arrival;
				 return a.id < b.id;
			 });
	const size_t nj = jobs.size();
	for (const JobSpec &j : jobs)
		if (j.nodes == 0 || j.nodes > fabric_.nodes())
			throw std::runtime_error(
				"job " + std::to_string(j.id) + " asks for " +
				std::to_string(j.nodes) + " nodes; the fabric has " +
				std::to_string(fabric_.nodes()));

	// alone(): one copy of the links per job, job j's at j * n_links.
	const bool alone = policy_.alone();
	const std::vector<double> base_caps = fabric_.network_caps();
	const size_t n_links = base_caps.size();
	std::vector<double> caps = base_caps;
	if (alone) {
		caps.reserve(n_links * nj);
		for (uint32_t j = 1; j < nj; j++)
			caps.insert(caps.end(), base_caps.begin(), base_caps.end());
	}
	Network net(caps);
	std::priority_queue<Event, std::vector<Event>, Later> pq;
	uint64_t seq = 0;
	auto push = [&](double t, EvType ty, uint32_t a, uint32_t b = 0,
			uint64_t v = 0) {
		pq.push(Event{t, seq++, v, a, b, ty});
	};
	std::vector<JobResult> res(nj);
	std::vector<Running> run(nj);
	std::vector<uint32_t> flow_job;
	std::vector<uint8_t> free(fabric_.nodes(), 1);
	size_t n_free = fabric_.nodes();
	const bool ideal = policy_.ideal();
	size_t done = 0;

	for (uint32_t i = 0; i < nj; i++) {
		res[i].id = jobs[i].id;
		res[i].nodes = jobs[i].nodes;
		res[i].arrival = jobs[i].arrival;
		res[i].isolated = (double)jobs[i].iterations *
				  jobs[i].pattern.iteration_time();
		push(jobs[i].arrival, EV_ARRIVE, i);
	}

	const bool mltcp = policy_.mltcp();
	std::vector<double> iter_bits(nj, 0.0);  // Mbit per node per iteration
	for (uint32_t i = 0; i < nj; i++)
		for (const Phase &ph : jobs[i].pattern.phases)
			iter_bits[i] += ph.demand * ph.duration;
	// mltcp: the next time the job's flow crosses a 1/kMltcpSteps mark
	// of its phase's bytes, at its current rate.
	auto schedule_share = [&](uint32_t j, double now) {
		Running &r = run[j];
		const Flow &f = net.flow(r.flow);
		const double total = r.up_bits;
		double sent = total - net.remaining_at(r.flow, now);
		double step = total / kMltcpSteps;
		double next = (std::floor(sent / step + 1e-9) + 1) * step;
		r.share_seq++;
		if (f.rate <= 0)
			return;
		// A mark closer than the clock's resolution at `now` is taken as
		// reached (late in a long run, now + a tiny delay == now).
		while (next < total * (1 - 1e-9) && now + (next - sent) / f.rate <= now)
			next += step;
		if (next >= total * (1 - 1e-9))
			return;
		push(now + (next - sent) / f.rate, EV_SHARE, j, 0, r.share_seq);
	};
	auto reschedule = [&](double now) {
		for (uint32_t fid : net.changed()) {
			const Flow &f = net.flow(fid);
			if (!f.active)
				continue;
			push(net.finish_time(fid), EV_UP_END, flow_job[fid], fid,
			     f.version);
			if (mltcp)
				schedule_share(flow_job[fid], now);
		}
	};

	// The current phase's flow on the network, with `bits` to send.
	auto add_flow = [&](uint32_t j, double now, double bits) {
		Running &r = run[j];
		uint32_t fid = net.add(now, r.cross[r.phase],
				       jobs[j].pattern.phases[r.phase].demand, bits);
		if (flow_job.size() <= fid)
			flow_job.resize(fid + 1);
		flow_job[fid] = j;
		r.flow = fid;
		r.in_net = true;
		reschedule(now);
	};

	auto start_up = [&](uint32_t j, double now) {
		Running &r = run[j];
		const Phase &ph = jobs[j].pattern.phases[r.phase];
		const std::vector<Crossing> &cr = r.cross[r.phase];
		if (cr.empty()) {
			push(now + ph.duration, EV_UP_FIXED, j);
			return;
		}
		r.up_bits = ph.demand * ph.duration *
			    jitter_factor(opt_.transfer_jitter, opt_.jitter_seed, jobs[j].id,
					  r.iter, r.phase | kTransferDraw);
		add_flow(j, now, r.up_bits);
		if (mltcp && r.iter_sent > 0) {
			// A later phase of the iteration starts with the share its
			// earlier phases earned.
			net.set_share(now, r.flow, 1 + kMltcpSlope * r.iter_sent / iter_bits[j]);
			reschedule(now);
		}
	};

	// The gate is asked once per iteration, before the first Up phase;
	// its grid is moved by that phase's offset (see make_gate), so the
	// phase starts where the circle rotation put it.  Later Up phases of
	// the iteration follow at their offsets.
	auto phase_ready = [&](uint32_t j, double now) {
		Running &r = run[j];
		if (r.gate && r.phase == 0) {
			int64_t now_us = (int64_t)std::llround(now * 1e6);
			int64_t rel = orrery_gate_release_at(r.gate.get(), now_us);
			// A window of the gate's measurement completed: its
			// shortest work goes to the policy.
			orrery_gate_stats_t gs;
			orrery_gate_stats(r.gate.get(), &gs);
			if (gs.windows != r.windows_seen) {
				r.windows_seen = gs.windows;
				if (gs.min_work_us > 0 &&
				    policy_.measured(jobs[j], gs.min_work_us)) {
					res[j].learned++;
					push(now, EV_LEARN, j);
				}
			}
			if (rel > now_us) {
				push((double)rel / 1e6, EV_GATE, j);
				return;
			}
		}
		start_up(j, now);
	};

	// Fast-forward (cruise.hpp).  A job cruises from an iteration
	// boundary while it is ungated, has no gate change waiting and every
	// link it crosses is safe: its end is one event.  resume() puts it
	// back into stepping exactly where its isolated timing has it.
	const bool ff = opt_.fast_forward && !ideal;
	Headroom room(ff ? caps : std::vector<double>{});
	std::vector<uint32_t> unsafe;
	auto can_cruise = [&](uint32_t j) {
		const Running &r = run[j];
		return ff && !r.gate && !r.pending && r.cycle.length > 0 &&
		       room.safe(j);
	};
	// Iteration r.iter (not the last one done) starts at t.
	auto begin_cruise = [&](uint32_t j, double t) {
		Running &r = run[j];
		r.cruising = true;
		r.cruise_seq++;
		r.cruise_t0 = t;
		r.cruise_iter0 = r.iter;
		r.phase = 0;
		r.iter_sent = 0;
		push(t + (double)(jobs[j].iterations - r.iter) * r.cycle.length,
		     EV_CRUISE_END, j, 0, r.cruise_seq);
	};
	// Mid-Up-phase: the flow with the bits not yet sent (and mltcp's
	// share as of the last 1/kMltcpSteps mark it passed).
	auto resume_up = [&](uint32_t j, double now, double sent, double end) {
		Running &r = run[j];
		const Phase &ph = jobs[j].pattern.phases[r.phase];
		const std::vector<Crossing> &cr = r.cross[r.phase];
		if (cr.empty()) {
			push(std::max(now, end), EV_UP_FIXED, j);
			return;
		}
		const double total = ph.demand * ph.duration;
		r.up_bits = total;
		add_flow(j, now, std::max(0.0, total - sent));
		if (mltcp) {
			double step = total / kMltcpSteps;
			double mark = step > 0 ? std::floor(sent / step + 1e-9) * step : 0;
			double got = r.iter_sent + std::min(mark, total);
			if (got > 0) {
				net.set_share(now, r.flow, 1 + kMltcpSlope * got / iter_bits[j]);
				reschedule(now);
			}
		}
	};
	auto resume = [&](uint32_t j, double now) {
		Running &r = run[j];
		if (!r.cruising)
			return;
		const Pattern &pat = jobs[j].pattern;
		const double len = r.cycle.length;
		double k = std::floor((now - r.cruise_t0) / len);
		if (!(k >= 0))
			k = 0;
		const uint64_t it = r.cruise_iter0 + (uint64_t)k;
		if (it >= jobs[j].iterations)
			return;  // all sent: only its end is left
		const double b = r.cruise_t0 + k * len;
		const double pos = now - b;
		double sent = 0;  // Mbit per node in earlier phases
		for (size_t i = 0; i < pat.phases.size(); i++) {
			const Phase &ph = pat.phases[i];
			const double s = r.cycle.at[i], up = r.cycle.up[i];
			if (pos <= s || pos < s + up) {
				r.cruising = false;
				r.iter = it;
				r.phase = i;
				r.iter_sent = sent;
				if (pos <= s)  // Down before phase i (a gate decides)
					push(std::max(now, b + s), EV_DOWN_END, j);
				else
					resume_up(j, now, (pos - s) * ph.demand,
						  b + s + up);
				return;
			}
			sent += ph.demand * ph.duration;
		}
		if (it + 1 >= jobs[j].iterations)
			return;  // the tail of its last iteration
		r.cruising = false;
		r.iter = it + 1;
		r.phase = 0;
		r.iter_sent = 0;
		push(std::max(now, b + len + r.cycle.at[0]), EV_DOWN_END, j);
	};

	// A gate replaced: its counters carried as the runtime carries them
	// (orrery_gate_stats_carry), the newest gate's state kept.
	auto add_stats = [](orrery_gate_stats_t &acc, const orrery_gate_t *g) {
		orrery_gate_stats_t gs;
		orrery_gate_stats(g, &gs);
		orrery_gate_stats_carry(&gs, &acc);
		acc = gs;
	};
	auto jitter = [&](uint32_t j, uint64_t iter, size_t phase) {
		return jitter_factor(opt_.iteration_jitter, opt_.jitter_seed, jobs[j].id,
				     iter, phase);
	};
	// A gate change at an iteration boundary: a fresh gate on the new
	// grid (liborrery's, as the job-side runtime would build it).
	auto apply_change = [&](uint32_t j, bool at_launch) {
		Running &r = run[j];
		if (r.gate)
			add_stats(r.acc, r.gate.get());
		r.acc.disabled = 0;
		take_gate(r.pl, r.change);
		if (r.pl.gated && r.pl.gate_period > 0)
			r.gate.reset(make_gate(r.pl, jobs[j], opt_.epoch, opt_.gate_late_tolerance,
					    opt_.gate_margin_ppm));
		else
			r.gate.reset();
		r.pending = false;
		r.windows_seen = 0;
		if (!at_launch)
			res[j].realigned++;
		res[j].ever_gated |= r.pl.gated;
		res[j].gated = r.pl.gated;
		res[j].shift = r.pl.shift;
		res[j].gate_period = r.pl.gate_period;
	};

	auto after_up = [&](uint32_t j, double now) {
		Running &r = run[j];
		const Pattern &pat = jobs[j].pattern;
		const Phase &ph = pat.phases[r.phase];
		double end = ph.offset + ph.duration;
		r.iter_sent += ph.demand * ph.duration;
		if (r.phase + 1 < pat.phases.size()) {
			r.phase++;
			push(now + std::max(0.0, pat.phases[r.phase].offset - end) *
					   jitter(j, r.iter, r.phase),
			     EV_DOWN_END, j);
			return;
		}
		double tail = std::max(0.0, pat.period - end);
		if (++r.iter >= jobs[j].iterations) {
			if (ff)
				room.leave(j);  // sends no more
			push(now + tail, EV_JOB_END, j);
			return;
		}
		r.phase = 0;
		r.iter_sent = 0;
		if (r.pending && now + tail >= r.pending_after)
			apply_change(j, false);
		if (can_cruise(j)) {
			begin_cruise(j, now + tail);
			return;
		}
		push(now + (tail + pat.phases[0].offset) * jitter(j, r.iter, 0), EV_DOWN_END, j);
	};

	std::unordered_map<uint32_t, uint32_t> by_id;
	for (uint32_t i = 0; i < nj; i++)
		by_id[jobs[i].id] = i;
	std::vector<GateChange> changes;
	bool newcomer_change = false;
	// Gate changes from the policy: running jobs' later, the newcomer's
	// with theirs (newcomer_with_group, as select/orrery does; at-start:
	// now).
	auto take_changes = [&](double now, long started) {
		bool deferred = false;  // a running job's change waits
		bool at_launch = false; // one took its change at its launch
		changes.clear();
		policy_.gate_changes(changes);
		{
			size_t had = st.groups.size();
			policy_.group_decisions(st.groups);
			for (size_t g = had; g < st.groups.size(); g++)
				st.groups[g].time = now;
		}
		for (const GateChange &c : changes) {
			auto it = by_id.find(c.job_id);
			if (it == by_id.end())
				continue;
			uint32_t k = it->second;
			if ((long)k == started && opt_.newcomer_with_group &&
			    opt_.realign_delay > 0 && c.gated) {
				// with-group (select/orrery's channel): the newcomer
				// keeps its placement's gate (shifted against the
				// running jobs as they run now) and takes the group's
				// new one when they do.  A gate turned off holds from
				// its start (the channel gives it no lead).
				run[k].change = c;
				newcomer_change = true;
				continue;
			}
			if ((long)k == started) {
				take_gate(run[k].pl, c);
				continue;
			}
			if (!run[k].stepped)
				continue;  // not running, or one fixed event
			run[k].change = c;
			resume(k, now);  // steps to its next boundary
			if (res[k].start == now && run[k].iter == 0 && !run[k].pending) {
				// Started in this same instant: it has not asked its
				// gate yet and takes the latest parameters at launch.
				apply_change(k, true);
				at_launch = true;
				continue;
			}
			run[k].pending = true;
			run[k].pending_after = now + opt_.realign_delay;
			deferred = true;
		}
		if (started >= 0 && newcomer_change && at_launch && !deferred) {
			// Its changed neighbours all started in this instant and
			// take theirs at launch: so does the newcomer.
			Running &r = run[(size_t)started];
			take_gate(r.pl, r.change);
			newcomer_change = false;
		}
	};

	auto start_job = [&](uint32_t j, double now, Placement &&pl) {
		Running &r = run[j];
		for (uint32_t n : pl.nodes) {
			free[n] = 0;
			n_free--;
		}
		r.pl = std::move(pl);
		res[j].start = now;
		policy_.started(jobs[j], r.pl, now);
		newcomer_change = false;
		take_changes(now, (long)j);
		res[j].gated = r.pl.gated;
		res[j].shift = r.pl.shift;
		res[j].gate_period = r.pl.gate_period;
		const Pattern &pat = jobs[j].pattern;
		bool any = false;
		r.cross.assign(pat.phases.size(), {});
		size_t links = 0;
		if (!ideal) {
			// One crossing per (collective, groups) the phases use.
			for (size_t i = 0; i < pat.phases.size(); i++) {
				const Phase &ph = pat.phases[i];
				size_t same = 0;
				while (same < i && (pat.phases[same].coll != ph.coll ||
						    pat.phases[same].groups != ph.groups))
					same++;
				if (same < i)
					r.cross[i] = r.cross[same];
				else
					r.cross[i] = hash_flows(fabric_,
						crossings(fabric_, r.pl.nodes, ph.coll, ph.groups),
						ph.coll, ph.groups,
						jobs[j].flows ? jobs[j].flows : fabric_.flows,
						opt_.ecmp_seed, jobs[j].id);
				any |= !r.cross[i].empty();
				links = std::max(links, r.cross[i].size());
			}
			if (alone)
				for (std::vector<Crossing> &cr : r.cross)
					for (Crossing &c : cr)
						c.link = (uint32_t)(c.link + j * n_links);
		}
		if (any && policy_.smooth())
			smooth_job(jobs[j].pattern, r.cross);
		res[j].links = (uint32_t)links;
		// A job that crosses no constrained link cannot be slowed down and
		// needs no gate: one event for its whole run.
		if (!any || pat.phases.empty() || jobs[j].iterations == 0) {
			r.pl.gated = false;
			res[j].gated = false;
			push(now + res[j].isolated, EV_JOB_END, j);
			return;
		}
		if (r.pl.gated)
			r.gate.reset(make_gate(r.pl, jobs[j], opt_.epoch, opt_.gate_late_tolerance,
					    opt_.gate_margin_ppm));
		res[j].ever_gated = r.pl.gated;
		r.stepped = true;
		r.phase = 0;
		r.iter = 0;
		if (newcomer_change) {
			r.pending = true;
			r.pending_after = now + opt_.realign_delay;
		}
		if (ff) {
			// Jobs cruising on a link this one makes unsafe step
			// again from where they are.
			r.cycle = isolated_cycle(pat, r.cross);
			room.join(j, r.cross, pat, unsafe);
			for (uint32_t l : unsafe)
				for (uint32_t k : room.jobs_on(l))
					if (k != j)
						resume(k, now);
			if (can_cruise(j)) {
				begin_cruise(j, now);
				return;
			}
		}
		push(now + pat.phases[0].offset * jitter(j, 0, 0), EV_DOWN_END, j);
	};

	// The policy's placement on the nodes of avail at time t, within the
	// job's --switches while it waits (judged at t).
	std::vector<uint8_t> leaf_seen(fabric_.switches(), 0);
	auto place = [&](uint32_t j, const std::vector<uint8_t> &avail, double t,
			 Placement &pl) {
		const JobSpec &job = jobs[j];
		if (!job.at.empty()) {
			for (uint32_t n : job.at) {
				if (n >= avail.size())
					throw std::runtime_error(
						"job " + std::to_string(j + 1) +
						": node " + std::to_string(n) +
						" of its 'at' field is not in the fabric (" +
						std::to_string(avail.size()) + " nodes)");
				if (!avail[n])
					return false;
			}
			policy_.place_at(job, t, pl);
			return true;
		}
		uint32_t limit = job.switches && t < job.arrival + job.switch_wait
					 ? job.switches : 0;
		policy_.leaf_limit = limit;
		bool ok = policy_.place(avail, job, t, pl);
		policy_.leaf_limit = 0;
		if (!ok)
			return false;
		if (pl.nodes.size() != job.nodes)
			throw std::runtime_error(std::string("policy ") + policy_.name() +
						 " returned a wrong node count");
		for (uint32_t n : pl.nodes)
			if (n >= avail.size() || !avail[n])
				throw std::runtime_error(std::string("policy ") + policy_.name() +
							 " placed on a busy node");
		if (limit) {
			uint32_t leaves = 0;
			for (uint32_t n : pl.nodes)
				if (!leaf_seen[fabric_.node_leaf[n]]) {
					leaf_seen[fabric_.node_leaf[n]] = 1;
					leaves++;
				}
			for (uint32_t n : pl.nodes)
				leaf_seen[fabric_.node_leaf[n]] = 0;
			if (leaves > limit)
				return false;  // waits for a placement within N leaves
		}
		return true;
	};
	std::vector<double> limits(nj);
	for (uint32_t i = 0; i < nj; i++) {
		limits[i] = job_time_limit(jobs[i], res[i].isolated, opt_.queue);
		if (jobs[i].switches)
			jobs[i].switch_wait = jobs[i].switch_wait < 0
				? opt_.queue.max_switch_wait
				: std::min(jobs[i].switch_wait, opt_.queue.max_switch_wait);
	}
	JobQueue queue(opt_.queue, jobs, std::move(limits), place,
		       [&](uint32_t j, double now, Placement &&pl) {
			       start_job(j, now, std::move(pl));
		       });
	double bf_due = -1;  // the pending EV_BACKFILL's time
	auto schedule = [&](double now) {
		queue.schedule(now, free, n_free);
		double t = queue.next_backfill(now);
		if (t >= 0 && bf_due < 0) {
			bf_due = t;
			push(t, EV_BACKFILL, 0);
		}
	};

	uint64_t events = 0;
	double now = 0;
	double first = nj ? jobs[0].arrival : 0;
	auto last_progress = clock::now();
	const bool tty = isatty(2);
	while (!pq.empty()) {
		Event e = pq.top();
		pq.pop();
		now = e.t;
		events++;
		switch (e.type) {
		case EV_ARRIVE:
			queue.arrive(e.a);
			schedule(now);
			break;
		case EV_BACKFILL:
			bf_due = -1;
			queue.backfill(now, free);
			schedule(now);
			break;
		case EV_DOWN_END:
			phase_ready(e.a, now);
			break;
		case EV_GATE:
			start_up(e.a, now);
			break;
		case EV_UP_END: {
			Running &r = run[e.a];
			if (!r.in_net || r.flow != e.b ||
			    net.flow(e.b).version != e.v)
				break;  // superseded by a rate change
			net.remove(now, e.b);
			r.in_net = false;
			reschedule(now);
			after_up(e.a, now);
			break;
		}
		case EV_UP_FIXED:
			after_up(e.a, now);
			break;
		case EV_SHARE: {
			Running &r = run[e.a];
			if (!r.in_net || e.v != r.share_seq)
				break;  // superseded
			double sent = r.up_bits - net.remaining_at(r.flow, now);
			net.set_share(now, r.flow, 1 + kMltcpSlope * (r.iter_sent + sent) /
						   iter_bits[e.a]);
			reschedule(now);
			schedule_share(e.a, now);
			break;
		}
		case EV_LEARN:
			take_changes(now, -1);
			break;
		case EV_CRUISE_END:
			if (!run[e.a].cruising || e.v != run[e.a].cruise_seq)
				break;  // resumed since
			run[e.a].cruising = false;
			room.leave(e.a);
			[[fallthrough]];
		case EV_JOB_END:
			res[e.a].finish = now;
			{
				orrery_gate_stats_t &acc = run[e.a].acc;
				if (run[e.a].gate)
					add_stats(acc, run[e.a].gate.get());
				res[e.a].gate_missed = acc.missed;
				res[e.a].gate_disabled = acc.disabled != 0;
				res[e.a].gate_wait = (double)acc.total_wait_us / 1e6;
				res[e.a].gate_reanchored = acc.reanchored;
				res[e.a].gate_rearmed = acc.rearmed;
				res[e.a].gate_disables = acc.disables;
				res[e.a].iter_min = (double)acc.min_work_us / 1e6;
				res[e.a].iter_range = (double)acc.range_us / 1e6;
			}
			for (uint32_t n : run[e.a].pl.nodes) {
				free[n] = 1;
				n_free++;
			}
			policy_.ended(jobs[e.a]);
			queue.ended(e.a);
			run[e.a] = Running{};
			take_changes(now, -1);
			done++;
			schedule(now);
			break;
		}
		if (opt_.progress && (events & 0xffff) == 0) {
			// On a terminal: one line rewritten every second; in a
			// log file: a line every 30 s.
			auto c = clock::now();
			if (c - last_progress > std::chrono::seconds(tty ? 1 : 30)) {
				last_progress = c;
				double w = std::chrono::duration<double>(c - t0).count();
				std::fprintf(stderr,
					     "%s%s: sim %.0f s, %zu/%zu jobs done, "
					     "%.0f sim-s/s, %.2g events/s%s",
					     tty ? "\r" : "", opt_.label.c_str(),
					     now - first, done, nj, (now - first) / w,
					     events / w, tty ? "   " : "\n");
			}
		}
	}
	if (done != nj)
		throw std::runtime_error("simulation ended with jobs unfinished");
	net.settle(now);
	st.makespan = nj ? now - first : 0;
	st.sim_s = st.makespan;
	st.over_link_s = net.over_link_seconds();
	st.link_over_s.assign(n_links, 0.0);
	for (uint32_t l = 0; l < net.links(); l++)
		st.link_over_s[l % n_links] += net.over_seconds(l);
	st.over_bytes = net.over_mbit() * 1e6 / 8;
	st.events = events;
	st.solves = net.solves();
	st.backfilled = queue.backfilled();
	st.reservations = queue.reservations();
	st.wall_s = std::chrono::duration<double>(clock::now() - t0).count();
	if (opt_.progress)
		std::fprintf(stderr, "%s%s: done, %zu jobs, %.3g events in %.2f s "
			     "(%.3g events/s, %.3g sim-s/s)          \n",
			     tty ? "\r" : "", opt_.label.c_str(), nj,
			     (double)events, st.wall_s,
			     events / std::max(st.wall_s, 1e-9),
			     st.sim_s / std::max(st.wall_s, 1e-9));
	// Results in the order the caller gave (sorted by id).
	std::sort(res.begin(), res.end(),
		  [](const JobResult &a, const JobResult &b) { return a.id < b.id; });
	return res;
}

}  // namespace sim
