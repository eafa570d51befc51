// Unifying periods onto one circle and discretising demand on it.
#include "circle/circle.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"

namespace orrery {

CircleOpts CircleOpts::from_c(const orrery_circle_opts_t *o)
{
	CircleOpts c;
	if (o) {
		c.bins = o->bins;
		c.quantum_us = o->quantum_us;
		c.cap_us = o->cap_us;
		c.exact_budget = o->exact_budget;
	}
	c.validate();
	return c;
}

void CircleOpts::validate() const
{
	if (bins < kMinBins || bins > kMaxBins)
		fail(ORRERY_ERANGE, "circle bins " + std::to_string(bins) +
			" out of range (accepted: " + std::to_string(kMinBins) +
			".." + std::to_string(kMaxBins) + ")");
	if (quantum_us < 1 || quantum_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, "circle quantum_us " +
			std::to_string(quantum_us) + " out of range (accepted: 1.." +
			std::to_string(ORRERY_MAX_PERIOD_US) + ")");
	if (cap_us < ORRERY_MIN_PERIOD_US || cap_us > kMaxCapUs)
		fail(ORRERY_ERANGE, "circle cap_us " + std::to_string(cap_us) +
			" out of range (accepted: " +
			std::to_string(ORRERY_MIN_PERIOD_US) + ".." +
			std::to_string(kMaxCapUs) + ")");
	if (exact_budget > kMaxExactBudget)
		fail(ORRERY_ERANGE, "circle exact_budget " +
			std::to_string(exact_budget) + " out of range (accepted: 0.." +
			std::to_string(kMaxExactBudget) + ")");
}

uint32_t Circle::rotations(size_t j) const
{
	if (spread[j] || perimeter_us <= 0)
		return 1;
	// ceil(G * A / P) without overflow: the k * bin_width < G.
	__int128 num = (__int128)gate_period_us[j] * bins;
	__int128 r = (num + perimeter_us - 1) / perimeter_us;
	if (r < 1)
		r = 1;
	if (r > bins)
		r = bins;
	return (uint32_t)r;
}

namespace {

int64_t round_up(int64_t p, int64_t q)
{
	__int128 g = ((__int128)p + q - 1) / q * q;
	if (g > INT64_MAX)
		fail(ORRERY_ERANGE, "period " + std::to_string(p) +
			" us cannot be rounded to quantum " + std::to_string(q));
	return (int64_t)g;
}

// LCM of the values, or -1 once it exceeds limit (never overflows).
int64_t bounded_lcm(const std::vector<int64_t> &v, int64_t limit)
{
	__int128 l = 1;
	for (int64_t x : v) {
		int64_t g = std::gcd((int64_t)l, x);
		l = l / g * x;
		if (l > limit)
			return -1;
	}
	return (int64_t)l;
}

// Quantum multipliers tried when the LCM is over the cap: 1, 2, 5, 10,
// 20, 50, ... (a 1-2-5 series, so the rounding stays predictable).
int64_t multiplier(int i)
{
	static const int64_t step[3] = {1, 2, 5};
	int64_t m = step[i % 3];
	for (int k = 0; k < i / 3; k++)
		m *= 10;
	return m;
}

}  // namespace

Circle unify(const std::vector<int64_t> &periods, const CircleOpts &o)
{
	if (periods.empty())
		fail(ORRERY_EINVAL, "unify: no periods");
	for (int64_t p : periods)
		if (p <= 0)
			fail(ORRERY_EINVAL, "unify: period " + std::to_string(p) +
				" us is not positive");
	int64_t min_p = *std::min_element(periods.begin(), periods.end());

	Circle c;
	c.bins = o.bins;
	c.spread.assign(periods.size(), 0);
	std::vector<int64_t> gates(periods.size());

	// Coarser quanta are allowed only while they stay within 5% of the
	// shortest period: beyond that the rounding would waste more than
	// the interleaving can win back.
	for (int i = 0; i < 40; i++) {
		__int128 q128 = (__int128)o.quantum_us * multiplier(i);
		if (q128 > INT64_MAX)
			break;
		int64_t q = (int64_t)q128;
		if (i > 0 && (__int128)q * 20 > min_p)
			break;
		for (size_t j = 0; j < periods.size(); j++)
			gates[j] = round_up(periods[j], q);
		int64_t maxg = *std::max_element(gates.begin(), gates.end());
		int64_t lcm = bounded_lcm(gates, std::max(o.cap_us, maxg));
		if (lcm > 0) {
			c.perimeter_us = lcm;
			c.gate_period_us = gates;
			c.quantum_used_us = q;
			return c;
		}
	}

	// Smeared: no common circle under the cap.
	for (size_t j = 0; j < periods.size(); j++)
		gates[j] = round_up(periods[j], o.quantum_us);
	c.perimeter_us = *std::max_element(gates.begin(), gates.end());
	c.gate_period_us = gates;
	c.quantum_used_us = o.quantum_us;
	for (size_t j = 0; j < gates.size(); j++) {
		c.spread[j] = (c.perimeter_us % gates[j]) != 0;
		c.smeared = c.smeared || c.spread[j];
	}
	return c;
}

namespace {

// Integral of one gate period of the pattern from 0 to x (0 <= x <= G),
// in Mbit/s x us.
double integral_in_period(const Pattern &p, double x)
{
	double s = 0.0;
	for (const Phase &ph : p.phases) {
		double a = x - (double)ph.offset_us;
		if (a <= 0.0)
			continue;
		s += (double)ph.demand_mbps *
		     std::min(a, (double)ph.duration_us);
	}
	return s;
}

// Integral of the G-periodic pattern over [x0, x1) (any reals, x0 <= x1).
// The whole periods in between are counted as an integer so that large
// circles do not lose precision.
double integral(const Pattern &p, double G, double E, double x0, double x1)
{
	double k0 = std::floor(x0 / G), k1 = std::floor(x1 / G);
	double r0 = x0 - k0 * G, r1 = x1 - k1 * G;
	r0 = std::clamp(r0, 0.0, G);
	r1 = std::clamp(r1, 0.0, G);
	return (k1 - k0) * E + integral_in_period(p, r1) -
	       integral_in_period(p, r0);
}

void check_job(const Circle &c, size_t j)
{
	if (j >= c.gate_period_us.size() || c.bins == 0 || c.perimeter_us <= 0)
		fail(ORRERY_EINTERNAL, "discretise: job " + std::to_string(j) +
			" is not on this circle");
}

}  // namespace

std::vector<double> discretise(const Pattern &p, double scale,
			       const Circle &c, size_t j, int64_t shift_us)
{
	check_job(c, j);
	const uint32_t A = c.bins;
	std::vector<double> d(A, 0.0);
	double G = (double)c.gate_period_us[j];
	double E = 0.0;
	for (const Phase &ph : p.phases)
		E += (double)ph.demand_mbps * (double)ph.duration_us;
	if (c.spread[j]) {
		std::fill(d.begin(), d.end(), scale * E / G);
		return d;
	}
	double w = c.bin_width_us();
	// Shift modulo the gate period keeps x small; the pattern repeats
	// every G, so this changes nothing.
	double s = (double)(((shift_us % c.gate_period_us[j]) +
			     c.gate_period_us[j]) % c.gate_period_us[j]);
	for (uint32_t b = 0; b < A; b++) {
		double t0 = (double)b * w, t1 = (double)(b + 1) * w;
		if (b + 1 == A)
			t1 = (double)c.perimeter_us;
		d[b] = scale * integral(p, G, E, t0 - s, t1 - s) / (t1 - t0);
	}
	return d;
}

void discretise_sparse(const Pattern &p, double scale, const Circle &c,
		       size_t j, double shift_us,
		       std::vector<std::pair<uint32_t, double>> &out)
{
	check_job(c, j);
	out.clear();
	const uint32_t A = c.bins;
	const double P = (double)c.perimeter_us;
	const double G = (double)c.gate_period_us[j];
	const int64_t reps = c.spread[j] ? 0 : c.perimeter_us / c.gate_period_us[j];
	// Many short repetitions: walking the bins is cheaper than walking
	// the intervals.
	if (c.spread[j] || (uint64_t)reps * p.phases.size() > A) {
		double s = std::fmod(shift_us, G);
		if (s < 0)
			s += G;
		double E = 0.0;
		for (const Phase &ph : p.phases)
			E += (double)ph.demand_mbps * (double)ph.duration_us;
		double w = c.bin_width_us();
		for (uint32_t b = 0; b < A; b++) {
			double t0 = (double)b * w;
			double t1 = b + 1 == A ? P : (double)(b + 1) * w;
			double v = c.spread[j]
				? E / G
				: integral(p, G, E, t0 - s, t1 - s) / (t1 - t0);
			if (v != 0.0)
				out.emplace_back(b, scale * v);
		}
		return;
	}
	const double w = c.bin_width_us();
	auto add = [&](double a, double e, double dem) {
		// [a, e) inside [0, P).
		uint32_t b = (uint32_t)std::min<double>(std::floor(a / w), A - 1);
		for (; b < A; b++) {
			double lo = (double)b * w;
			double hi = b + 1 == A ? P : (double)(b + 1) * w;
			if (lo >= e)
				break;
			double ov = std::min(e, hi) - std::max(a, lo);
			if (ov > 0.0)
				out.emplace_back(b, dem * ov / (hi - lo));
		}
	};
	for (int64_t r = 0; r < reps; r++) {
		for (const Phase &ph : p.phases) {
			double a = std::fmod((double)r * G + (double)ph.offset_us +
					     shift_us, P);
			if (a < 0)
				a += P;
			double e = a + (double)ph.duration_us;
			double dem = scale * (double)ph.demand_mbps;
			if (e <= P) {
				add(a, e, dem);
			} else {
				add(a, P, dem);
				add(0.0, e - P, dem);
			}
		}
	}
}

}  // namespace orrery
