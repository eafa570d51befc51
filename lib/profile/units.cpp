#include "profile/units.hpp"

#include <cctype>
#include <limits>

namespace orrery {
namespace units {

namespace {

struct Unit {
	const char *name;
	uint64_t scale;  // base units (us or Mbit/s) per unit
};

const Unit time_units[] = {{"us", 1}, {"ms", 1000}, {"s", 1000000}};
const Unit rate_units[] = {{"Mbps", 1}, {"Gbps", 1000}, {"Tbps", 1000000}};

constexpr uint64_t kMax = (uint64_t)std::numeric_limits<int64_t>::max();

// digits[.digits]unit -> value * scale, exactly.  Work in unsigned __int128
// so that "99999999999999999999s" is reported as overflow, not wrapped.
template <size_t N>
Parsed parse_scaled(std::string_view s, const Unit (&table)[N], uint64_t *out)
{
	size_t i = 0;
	unsigned __int128 mant = 0, den = 1;
	bool digits = false, too_big = false;

	for (; i < s.size() && isdigit((unsigned char)s[i]); i++) {
		digits = true;
		if (!too_big) {
			mant = mant * 10 + (unsigned)(s[i] - '0');
			if (mant > (unsigned __int128)kMax * 10)
				too_big = true;
		}
	}
	if (!digits)
		return Parsed::NotNumber;
	if (i < s.size() && s[i] == '.') {
		i++;
		bool frac = false;
		for (; i < s.size() && isdigit((unsigned char)s[i]); i++) {
			frac = true;
			// Every scale is at most 10^6, so past six decimals
			// only zeros can still be exact.
			if (den >= 1000000) {
				if (s[i] != '0')
					return too_big ? Parsed::Overflow
						       : Parsed::Inexact;
				continue;
			}
			if (!too_big)
				mant = mant * 10 + (unsigned)(s[i] - '0');
			den *= 10;
		}
		if (!frac)
			return Parsed::NotNumber;
	}
	std::string_view unit = s.substr(i);
	if (unit.empty())
		return Parsed::NoUnit;
	const Unit *u = nullptr;
	for (const Unit &cand : table)
		if (unit == cand.name)
			u = &cand;
	if (!u) {
		// "5.5.5ms", "5ms " : stray characters, not a unit.
		for (char c : unit)
			if (!isalpha((unsigned char)c))
				return Parsed::NotNumber;
		return Parsed::BadUnit;
	}
	if (too_big)
		return Parsed::Overflow;
	unsigned __int128 v = mant * u->scale;
	if (v % den)
		return Parsed::Inexact;
	v /= den;
	if (v > kMax)
		return Parsed::Overflow;
	*out = (uint64_t)v;
	return Parsed::Ok;
}

template <size_t N>
std::string format_scaled(uint64_t v, const Unit (&table)[N])
{
	for (size_t k = N; k-- > 0;)
		if (v % table[k].scale == 0)
			return std::to_string(v / table[k].scale) + table[k].name;
	return std::to_string(v) + table[0].name;  // scale 1 divides all
}

}  // namespace

Parsed parse_time_us(std::string_view s, int64_t *out)
{
	uint64_t v = 0;
	Parsed r = parse_scaled(s, time_units, &v);
	if (r == Parsed::Ok)
		*out = (int64_t)v;
	return r;
}

Parsed parse_rate_mbps(std::string_view s, uint64_t *out)
{
	return parse_scaled(s, rate_units, out);
}

std::string format_time_us(int64_t us)
{
	if (us < 0)
		return "-" + format_scaled((uint64_t)(-(us + 1)) + 1, time_units);
	return format_scaled((uint64_t)us, time_units);
}

std::string format_rate_mbps(uint64_t mbps)
{
	return format_scaled(mbps, rate_units);
}

std::string explain(Parsed r, std::string_view text, bool is_time)
{
	std::string t = "'" + std::string(text) + "'";
	const char *what = is_time ? "time " : "demand ";
	const char *accepted = is_time ? "us, ms, s" : "Mbps, Gbps, Tbps";
	switch (r) {
	case Parsed::Ok:
		return "";
	case Parsed::NotNumber:
		return what + t + " is not a number with a unit (e.g. " +
		       (is_time ? "250ms" : "45Gbps") + ")";
	case Parsed::NoUnit:
		return what + t + " needs a unit (" + accepted + ")";
	case Parsed::BadUnit:
		return what + t + " has an unknown unit (accepted: " +
		       accepted + ")";
	case Parsed::Inexact:
		return what + t + (is_time ? " is not a whole number of microseconds"
					   : " is not a whole number of Mbps");
	case Parsed::Overflow:
		return what + t + " is too large";
	}
	return what + t + " is invalid";
}

}  // namespace units
}  // namespace orrery
