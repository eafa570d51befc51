// The fluid model of one link group: each Up phase is a flow whose
// per-node rate is capped by the phase demand and loads each group link
// with (demand on that link / node demand) times that rate; rates are
// max-min fair (progressive filling), re-solved whenever a flow starts or
// ends.  Compute gaps keep their length; Up phases stretch.  This is the
// rule contrib/sim's network applies, restricted to the group's links.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/error.hpp"
#include "gate/gate.h"
#include "tdiv/tdiv.hpp"

namespace orrery {

int64_t isolated_iteration_us(const Pattern &p)
{
	int64_t t = 0;
	for (const Phase &ph : p.phases)
		t = std::max(t, ph.offset_us) + ph.duration_us;
	return std::max(t, p.period_us);
}

namespace {

// Iterations skipped before measuring, and measured.
constexpr int kWarmup = 4;
constexpr int kMeasured = 12;
// Work bound: a group that needs more events than this is measured on
// the iterations it completed.
constexpr uint64_t kMaxEvents = 400000;
constexpr double kTol = 1e-9;

struct GateFree {
	void operator()(orrery_gate_t *g) const { orrery_gate_free(g); }
};

enum class St { Ready, Up, Fixed, Wait };

struct JobRun {
	const Pattern *p = nullptr;
	// Per phase: (link, weight) pairs on the group's links.
	std::vector<std::vector<std::pair<size_t, double>>> w;
	std::unique_ptr<orrery_gate_t, GateFree> gate;
	St st = St::Ready;
	size_t phase = 0;
	double until = 0;       // Ready/Fixed/Wait: when the state ends
	double remaining = 0;   // Up: bits per node still to send (Mbit*us)
	double rate = 0;        // Up: Mbit/s per node
	std::vector<double> ends;  // iteration ends
};

}  // namespace

std::vector<double> predict_iterations(const std::vector<Pattern> &jobs,
				       const std::vector<DivLink> &links,
				       const std::vector<FluidGate> &gates)
{
	const size_t n = jobs.size();
	if (gates.size() != n)
		fail(ORRERY_EINTERNAL, "predict_iterations: one gate per job expected");
	std::vector<JobRun> run(n);
	for (size_t j = 0; j < n; j++) {
		run[j].p = &jobs[j];
		run[j].w.resize(jobs[j].phases.size());
	}
	for (size_t l = 0; l < links.size(); l++) {
		const DivLink &L = links[l];
		for (size_t m = 0; m < L.jobs.size(); m++) {
			size_t j = L.jobs[m];
			if (j >= n || L.patterns[m].phases.size() != jobs[j].phases.size())
				fail(ORRERY_EINTERNAL, "predict_iterations: link " +
				     std::to_string(L.id) + " out of step with its jobs");
			for (size_t ph = 0; ph < jobs[j].phases.size(); ph++) {
				double d = (double)jobs[j].phases[ph].demand_mbps;
				double dl = (double)L.patterns[m].phases[ph].demand_mbps;
				if (d > 0 && dl > 0)
					run[j].w[ph].emplace_back(l, dl / d);
			}
		}
	}
	std::vector<double> result(n, 0.0);
	for (size_t j = 0; j < n; j++) {
		JobRun &r = run[j];
		if (r.p->phases.empty()) {
			result[j] = (double)isolated_iteration_us(*r.p);
			r.st = St::Wait;
			r.until = std::numeric_limits<double>::infinity();
			r.ends.assign(kWarmup + kMeasured + 1, 0.0);
			continue;
		}
		if (gates[j].period_us > 0) {
			orrery_gate_params_t gp;
			orrery_gate_params_default(&gp);
			gp.period_us = gates[j].period_us;
			gp.epoch_us = 0;
			int64_t sh = gates[j].shift_us + r.p->phases[0].offset_us;
			gp.shift_us = ((sh % gp.period_us) + gp.period_us) % gp.period_us;
			// The gate's own policy, defaults included (a gate that
			// misses its slots behaves in the prediction as it would
			// behind the job).
			orrery_gate_t *g = nullptr;
			orrery_error_t err{};
			if (orrery_gate_new(&gp, &g, &err) != ORRERY_OK)
				fail(ORRERY_EINTERNAL, std::string("predict_iterations: ") +
				     err.message);
			r.gate.reset(g);
		}
		r.st = St::Ready;
		r.until = (double)r.p->phases[0].offset_us;
	}

	std::vector<double> resid(links.size()), wsum(links.size());
	std::vector<uint8_t> frozen(n);
	auto solve_rates = [&]() {
		for (size_t l = 0; l < links.size(); l++)
			resid[l] = links[l].effective_mbps();
		for (size_t j = 0; j < n; j++) {
			run[j].rate = 0;
			frozen[j] = run[j].st != St::Up;
		}
		for (;;) {
			std::fill(wsum.begin(), wsum.end(), 0.0);
			double delta = std::numeric_limits<double>::infinity();
			bool any = false;
			for (size_t j = 0; j < n; j++) {
				if (frozen[j])
					continue;
				any = true;
				const Phase &ph = run[j].p->phases[run[j].phase];
				delta = std::min(delta, (double)ph.demand_mbps - run[j].rate);
				for (const auto &[l, w] : run[j].w[run[j].phase])
					wsum[l] += w;
			}
			if (!any)
				break;
			for (size_t l = 0; l < links.size(); l++)
				if (wsum[l] > 0)
					delta = std::min(delta, std::max(0.0, resid[l]) / wsum[l]);
			for (size_t l = 0; l < links.size(); l++)
				resid[l] -= wsum[l] * delta;
			for (size_t j = 0; j < n; j++) {
				if (frozen[j])
					continue;
				JobRun &r = run[j];
				r.rate += delta;
				const Phase &ph = r.p->phases[r.phase];
				bool fr = r.rate >= (double)ph.demand_mbps * (1 - kTol);
				for (const auto &[l, w] : r.w[r.phase])
					fr |= resid[l] <= links[l].effective_mbps() * kTol;
				frozen[j] = fr;
			}
		}
	};

	// Start phase `phase` of job j now; true if it became a flow.
	auto begin = [&](size_t j, double now) -> bool {
		JobRun &r = run[j];
		const Phase &ph = r.p->phases[r.phase];
		if (r.w[r.phase].empty()) {
			r.st = St::Fixed;
			r.until = now + (double)ph.duration_us;
			return false;
		}
		r.st = St::Up;
		r.remaining = (double)ph.demand_mbps * (double)ph.duration_us;
		return true;
	};
	// Phase `phase` of job j is ready at `now`: the first phase of an
	// iteration asks the gate, and waits for the release it gives.
	auto ready = [&](size_t j, double now) -> bool {
		JobRun &r = run[j];
		if (r.gate && r.phase == 0) {
			int64_t now_us = (int64_t)std::llround(now);
			int64_t rel = orrery_gate_release_at(r.gate.get(), now_us);
			if (rel > now_us) {
				r.st = St::Wait;
				r.until = (double)rel;
				return false;
			}
		}
		return begin(j, now);
	};
	auto after_phase = [&](size_t j, double now) {
		JobRun &r = run[j];
		const Pattern &p = *r.p;
		const Phase &ph = p.phases[r.phase];
		double end = (double)(ph.offset_us + ph.duration_us);
		r.st = St::Ready;
		if (r.phase + 1 < p.phases.size()) {
			r.phase++;
			r.until = now + std::max(0.0, (double)p.phases[r.phase].offset_us - end);
			return;
		}
		double tail = std::max(0.0, (double)p.period_us - end);
		r.ends.push_back(now + tail);
		r.phase = 0;
		r.until = now + tail + (double)p.phases[0].offset_us;
	};

	double now = 0;
	uint64_t events = 0;
	auto done = [&]() {
		for (const JobRun &r : run)
			if (r.ends.size() < (size_t)(kWarmup + kMeasured + 1))
				return false;
		return true;
	};
	bool rates_dirty = true;
	while (!done() && events < kMaxEvents) {
		if (rates_dirty) {
			solve_rates();
			rates_dirty = false;
		}
		// Next event.
		double t = std::numeric_limits<double>::infinity();
		for (const JobRun &r : run) {
			if (r.st == St::Up) {
				if (r.rate > 0)
					t = std::min(t, now + r.remaining / r.rate);
			} else {
				t = std::min(t, r.until);
			}
		}
		if (!std::isfinite(t))
			break;  // nothing can progress (cannot happen with C > 0)
		double dt = t - now;
		for (JobRun &r : run)
			if (r.st == St::Up)
				r.remaining -= r.rate * dt;
		now = t;
		events++;
		for (size_t j = 0; j < n; j++) {
			JobRun &r = run[j];
			if (r.st == St::Up) {
				double scale = (double)r.p->phases[r.phase].demand_mbps *
					       (double)r.p->phases[r.phase].duration_us;
				if (r.remaining <= scale * 1e-9 ||
				    (r.rate > 0 && r.remaining / r.rate <= 1e-6)) {
					after_phase(j, now);
					rates_dirty = true;
				}
			} else if (r.st == St::Fixed && r.until <= now) {
				after_phase(j, now);
			}
		}
		for (size_t j = 0; j < n; j++) {
			JobRun &r = run[j];
			if (r.until > now)
				continue;
			if (r.st == St::Ready)
				rates_dirty |= ready(j, now);
			else if (r.st == St::Wait)
				rates_dirty |= begin(j, now);
		}
	}
	for (size_t j = 0; j < n; j++) {
		const std::vector<double> &e = run[j].ends;
		if (run[j].p->phases.empty())
			continue;
		if (e.size() >= 2) {
			size_t from = e.size() > (size_t)kWarmup + 1 ? kWarmup : 0;
			result[j] = (e.back() - e[from]) / (double)(e.size() - 1 - from);
		} else {
			result[j] = std::numeric_limits<double>::infinity();
		}
	}
	return result;
}

}  // namespace orrery
