// Explicit patterns: period=T;up=OFFSET+DURATION@DEMAND[/ring|/a2a|/ppS|/railR];...
// Grammar, limits and canonical form: doc/orrery-profile.7.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "profile/internal.hpp"
#include "profile/profile.hpp"
#include "profile/units.hpp"

namespace orrery {

namespace {

const std::string kPeriodRange =
	units::format_time_us(ORRERY_MIN_PERIOD_US) + ".." +
	units::format_time_us(ORRERY_MAX_PERIOD_US);
const std::string kDemandRange =
	units::format_rate_mbps(ORRERY_MIN_DEMAND_MBPS) + ".." +
	units::format_rate_mbps(ORRERY_MAX_DEMAND_MBPS);

int64_t parse_time(std::string_view text, const std::string &token)
{
	int64_t v = 0;
	units::Parsed r = units::parse_time_us(text, &v);
	if (r == units::Parsed::Overflow)
		fail(ORRERY_ERANGE, "'" + token + "': " +
				    units::explain(r, text, true));
	if (r != units::Parsed::Ok)
		fail(ORRERY_EINVAL, "'" + token + "': " +
				    units::explain(r, text, true));
	return v;
}

const char kPhaseSyntax[] = "expected up=OFFSET+DURATION@DEMAND"
			    "[/ring|/a2a|/ppS|/railR], "
			    "e.g. up=0ms+80ms@45Gbps";

Phase parse_phase(std::string_view body, const std::string &token)
{
	Phase ph;
	size_t plus = body.find('+');
	size_t at = body.find('@');
	if (plus == std::string_view::npos || at == std::string_view::npos ||
	    at < plus)
		fail(ORRERY_EINVAL, "malformed phase '" + token + "' (" +
				    kPhaseSyntax + ")");
	std::string_view off = body.substr(0, plus);
	std::string_view dur = body.substr(plus + 1, at - plus - 1);
	std::string_view rest = body.substr(at + 1);
	std::string_view dem = rest, coll;
	size_t slash = rest.find('/');
	if (slash != std::string_view::npos) {
		dem = rest.substr(0, slash);
		coll = rest.substr(slash + 1);
		std::string bad = parse_collective(coll, ph);
		if (!bad.empty())
			fail(ORRERY_EINVAL, "'" + token + "': " + bad);
	}
	ph.offset_us = parse_time(off, token);
	ph.duration_us = parse_time(dur, token);
	units::Parsed r = units::parse_rate_mbps(dem, &ph.demand_mbps);
	if (r == units::Parsed::Overflow)
		fail(ORRERY_ERANGE, "'" + token + "': demand '" +
				    std::string(dem) + "' out of range (" +
				    kDemandRange + ")");
	if (r != units::Parsed::Ok)
		fail(ORRERY_EINVAL, "'" + token + "': " +
				    units::explain(r, dem, false));
	return ph;
}

void check_phase(const Phase &ph, int64_t period, const std::string &what)
{
	if (ph.offset_us < 0)
		fail(ORRERY_ERANGE, what + ": offset must be >= 0");
	if (ph.duration_us <= 0)
		fail(ORRERY_ERANGE, what + ": duration must be > 0");
	if (ph.demand_mbps < ORRERY_MIN_DEMAND_MBPS ||
	    ph.demand_mbps > ORRERY_MAX_DEMAND_MBPS)
		fail(ORRERY_ERANGE, what + ": demand " +
			(ph.demand_mbps ? units::format_rate_mbps(ph.demand_mbps)
					: std::string("0Mbps")) +
			" out of range (" + kDemandRange + ")");
	if (ph.coll != Collective::Ring && ph.coll != Collective::AllToAll &&
	    ph.coll != Collective::Pipeline && ph.coll != Collective::Rail)
		fail(ORRERY_EINVAL, what + ": unknown collective " +
				    std::to_string((int)ph.coll) +
				    " (accepted: " + kCollectivesAccepted + ")");
	if (ph.coll == Collective::Pipeline &&
	    (ph.groups < 2 || ph.groups > ORRERY_MAX_STAGES))
		fail(ORRERY_ERANGE, what + ": " + std::to_string(ph.groups) +
			" pipeline stages out of range (2.." +
			std::to_string(ORRERY_MAX_STAGES) + ")");
	if (ph.coll == Collective::Rail &&
	    (ph.groups < 1 || ph.groups > ORRERY_MAX_RAILS))
		fail(ORRERY_ERANGE, what + ": " + std::to_string(ph.groups) +
			" rails out of range (1.." +
			std::to_string(ORRERY_MAX_RAILS) + ")");
	if ((ph.coll == Collective::Ring || ph.coll == Collective::AllToAll) &&
	    ph.groups != 0)
		fail(ORRERY_EINVAL, what + ": a " + collective_name(ph) +
			" phase takes no stage or rail count (" +
			std::to_string(ph.groups) + " given)");
	// offset <= period and duration <= period here, so no overflow.
	if (ph.offset_us > period || ph.duration_us > period - ph.offset_us)
		fail(ORRERY_ERANGE, what + ": offset " +
			units::format_time_us(ph.offset_us) + " + duration " +
			units::format_time_us(ph.duration_us) +
			" exceeds the period (" + units::format_time_us(period) +
			"); phases must fit inside one period");
}

}  // namespace

const char kCollectivesAccepted[] =
	"ring, a2a, ppS for S pipeline stages (2..1024), "
	"railR for R rails (1..64)";
static_assert(ORRERY_MAX_STAGES == 1024 && ORRERY_MAX_RAILS == 64,
	      "kCollectivesAccepted names the limits");

std::string parse_collective(std::string_view text, Phase &ph)
{
	const std::string shown(text.substr(0, 32));
	ph.groups = 0;
	if (text == "ring") {
		ph.coll = Collective::Ring;
		return "";
	}
	if (text == "a2a") {
		ph.coll = Collective::AllToAll;
		return "";
	}
	const bool pp = text.rfind("pp", 0) == 0;
	if (!pp && text.rfind("rail", 0) != 0)
		return "unknown collective '" + shown + "' (accepted: " +
		       kCollectivesAccepted + ")";
	const std::string_view digits = text.substr(pp ? 2 : 4);
	const uint32_t lo = pp ? 2 : 1;
	const uint32_t hi = pp ? ORRERY_MAX_STAGES : ORRERY_MAX_RAILS;
	const std::string what = pp ? "pipeline stages" : "rails";
	if (digits.empty())
		return "collective '" + shown + "' needs its number of " + what +
		       (pp ? ", e.g. pp4" : ", e.g. rail8");
	if (digits.find_first_not_of("0123456789") != std::string_view::npos ||
	    (digits[0] == '0' && digits.size() > 1))
		return "collective '" + shown + "': the number of " + what +
		       " must be a plain whole number (accepted: " +
		       kCollectivesAccepted + ")";
	uint32_t v = 0;
	if (digits.size() <= 6)
		for (char c : digits)
			v = v * 10 + (uint32_t)(c - '0');
	else
		v = hi + 1;
	if (v < lo || v > hi)
		return "collective '" + shown + "': " + what +
		       " out of range (" + std::to_string(lo) + ".." +
		       std::to_string(hi) + ")";
	ph.coll = pp ? Collective::Pipeline : Collective::Rail;
	ph.groups = v;
	return "";
}

std::string collective_name(const Phase &ph)
{
	switch (ph.coll) {
	case Collective::AllToAll:
		return "a2a";
	case Collective::Pipeline:
		return "pp" + std::to_string(ph.groups);
	case Collective::Rail:
		return "rail" + std::to_string(ph.groups);
	default:
		return "ring";
	}
}

Pattern normalise_pattern(Pattern p)
{
	if (p.period_us < ORRERY_MIN_PERIOD_US ||
	    p.period_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, "period=" +
			units::format_time_us(p.period_us) +
			" out of range (" + kPeriodRange + ")");
	if (p.phases.size() > ORRERY_MAX_PHASES)
		fail(ORRERY_ELIMIT, std::to_string(p.phases.size()) +
			" phases, more than the limit of " +
			std::to_string(ORRERY_MAX_PHASES));
	for (size_t i = 0; i < p.phases.size(); i++)
		check_phase(p.phases[i], p.period_us,
			    "phase " + std::to_string(i));
	std::sort(p.phases.begin(), p.phases.end());
	return p;
}

Pattern retime_pattern(const Pattern &p, int64_t period_us)
{
	if (period_us < ORRERY_MIN_PERIOD_US || period_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, "period=" + units::format_time_us(period_us) +
			" out of range (" + kPeriodRange + ")");
	// Compute before each phase (phases sorted by offset; overlapping
	// ones have none between them), and in all.
	std::vector<int64_t> before(p.phases.size());
	int64_t end = 0, compute = 0;
	for (size_t i = 0; i < p.phases.size(); i++) {
		const Phase &ph = p.phases[i];
		compute += std::max<int64_t>(0, ph.offset_us - end);
		before[i] = compute;
		end = std::max(end, ph.offset_us + ph.duration_us);
	}
	compute += std::max<int64_t>(0, p.period_us - end);
	const int64_t up = p.period_us - compute;
	if (compute <= 0)
		fail(ORRERY_ERANGE, "the pattern has no compute to retime (Up all of its " +
			units::format_time_us(p.period_us) + ")");
	if (period_us <= up)
		fail(ORRERY_ERANGE, "period=" + units::format_time_us(period_us) +
			" leaves no compute: the Up phases take " +
			units::format_time_us(up));
	const double f = (double)(period_us - up) / (double)compute;
	Pattern out = p;
	out.period_us = period_us;
	for (size_t i = 0; i < out.phases.size(); i++) {
		Phase &ph = out.phases[i];
		int64_t o = p.phases[i].offset_us - before[i] +
			    (int64_t)std::llround(f * (double)before[i]);
		// Rounding must not push a phase past the period.
		ph.offset_us = std::clamp<int64_t>(o, 0, period_us - ph.duration_us);
	}
	return normalise_pattern(std::move(out));
}

Pattern parse_pattern(std::string_view spec)
{
	Pattern p;
	bool have_period = false;
	std::vector<std::string> phase_tokens;
	size_t pos = 0, index = 0;

	for (;;) {
		size_t semi = spec.find(';', pos);
		std::string_view raw = spec.substr(pos, semi == std::string_view::npos
							      ? std::string_view::npos
							      : semi - pos);
		std::string_view tok = trim(raw);
		index++;
		if (tok.empty())
			fail(ORRERY_EINVAL, "empty token " + std::to_string(index) +
				" (a stray ';'?); tokens are period=T and "
				"up=OFFSET+DURATION@DEMAND");
		std::string token(tok);
		size_t eq = tok.find('=');
		std::string key(trim(tok.substr(0, eq)));
		std::string_view val = eq == std::string_view::npos
					       ? std::string_view()
					       : trim(tok.substr(eq + 1));
		if (eq == std::string_view::npos)
			fail(ORRERY_EINVAL, "token '" + token +
				"' is not key=value (accepted keys: period, up)");
		if (key == "period") {
			if (have_period)
				fail(ORRERY_EINVAL, "duplicate 'period=' ('" +
					token + "'); exactly one is allowed");
			have_period = true;
			units::Parsed r = units::parse_time_us(val, &p.period_us);
			if (r != units::Parsed::Ok &&
			    r != units::Parsed::Overflow)
				fail(ORRERY_EINVAL, "'" + token + "': " +
					units::explain(r, val, true));
			if (r == units::Parsed::Overflow ||
			    p.period_us < ORRERY_MIN_PERIOD_US ||
			    p.period_us > ORRERY_MAX_PERIOD_US)
				fail(ORRERY_ERANGE, "'" + token +
					"' out of range (" + kPeriodRange + ")");
		} else if (key == "up") {
			if (p.phases.size() >= ORRERY_MAX_PHASES)
				fail(ORRERY_ELIMIT, "more than " +
					std::to_string(ORRERY_MAX_PHASES) +
					" 'up=' phases");
			p.phases.push_back(parse_phase(val, token));
			phase_tokens.push_back(token);
		} else {
			fail(ORRERY_EINVAL, "unknown key '" + key +
				"' in '" + token + "' (accepted: period, up)");
		}
		if (semi == std::string_view::npos)
			break;
		pos = semi + 1;
	}
	if (!have_period)
		fail(ORRERY_EINVAL, "missing 'period=' (e.g. period=250ms;"
				    "up=0ms+80ms@45Gbps)");
	// Check phases against the period with the user's own text.
	for (size_t i = 0; i < p.phases.size(); i++)
		check_phase(p.phases[i], p.period_us, "'" + phase_tokens[i] + "'");
	return normalise_pattern(std::move(p));
}

std::string canonical(const Pattern &p)
{
	std::string s = "period=" + units::format_time_us(p.period_us);
	for (const Phase &ph : p.phases) {
		s += ";up=" + units::format_time_us(ph.offset_us) + "+" +
		     units::format_time_us(ph.duration_us) + "@" +
		     units::format_rate_mbps(ph.demand_mbps);
		if (ph.coll != Collective::Ring)
			s += "/" + collective_name(ph);
	}
	return s;
}

}  // namespace orrery
