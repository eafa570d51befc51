// Explicit patterns: period=T;up=OFFSET+DURATION@DEMAND[/ring|/a2a];...
// Grammar, limits and canonical form: doc/orrery-profile.7.
#include <algorithm>
#include <string>

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

const char kPhaseSyntax[] = "expected up=OFFSET+DURATION@DEMAND[/ring|/a2a], "
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
		if (coll == "ring")
			ph.coll = Collective::Ring;
		else if (coll == "a2a")
			ph.coll = Collective::AllToAll;
		else
			fail(ORRERY_EINVAL, "'" + token +
				"': unknown collective '" + std::string(coll) +
				"' (accepted: ring, a2a)");
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
	if (ph.coll != Collective::Ring && ph.coll != Collective::AllToAll)
		fail(ORRERY_EINVAL, what + ": unknown collective " +
				    std::to_string((int)ph.coll) +
				    " (accepted: ring, a2a)");
	// offset <= period and duration <= period here, so no overflow.
	if (ph.offset_us > period || ph.duration_us > period - ph.offset_us)
		fail(ORRERY_ERANGE, what + ": offset " +
			units::format_time_us(ph.offset_us) + " + duration " +
			units::format_time_us(ph.duration_us) +
			" exceeds the period (" + units::format_time_us(period) +
			"); phases must fit inside one period");
}

}  // namespace

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
		if (ph.coll == Collective::AllToAll)
			s += "/a2a";
	}
	return s;
}

}  // namespace orrery
