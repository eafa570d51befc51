// Units of the --comm-profile grammar: times (us, ms, s) and bandwidths
// (Mbps, Gbps, Tbps, in bits).  Parsing is exact integer arithmetic, so a
// value either lands on a whole microsecond / Mbit/s or is rejected; nothing
// is rounded behind the user's back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace orrery {
namespace units {

enum class Parsed {
	Ok,
	NotNumber,   // no digits, sign, stray characters
	NoUnit,      // "250"
	BadUnit,     // "250min"
	Inexact,     // "1.5us": not a whole microsecond / Mbit/s
	Overflow,    // does not fit in 63 bits
};

// "250ms" -> 250000.  On failure *unit holds the unit text seen.
Parsed parse_time_us(std::string_view s, int64_t *out);
// "45Gbps" -> 45000.
Parsed parse_rate_mbps(std::string_view s, uint64_t *out);

// Largest of s/ms/us (Tbps/Gbps/Mbps) that prints the value exactly as an
// integer: 250000 -> "250ms", 1500 -> "1500us", 0 -> "0s".
std::string format_time_us(int64_t us);
std::string format_rate_mbps(uint64_t mbps);

// Message text for a failed parse of `what` ("time", "demand").
std::string explain(Parsed r, std::string_view text, bool is_time);

}  // namespace units
}  // namespace orrery
