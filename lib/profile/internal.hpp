// Pieces of the profile module shared between its files; not for other
// modules (they use profile.hpp).
#pragma once

#include <string>
#include <string_view>

#include "core/types.hpp"

namespace orrery {

// "period=...;up=..." (already checked for length and characters).
Pattern parse_pattern(std::string_view spec);
// "name" or "name:key=value,...".
ModelRef parse_model_spec(std::string_view spec);
// Checks every byte: printable ASCII only (space and tab allowed).
void check_spec_chars(std::string_view spec, const char *what);
// A phase's collective as spelt after '/' in a pattern and in a profile
// file's collective= key: ring, a2a, ppS (S pipeline stages), railR (R
// rails).  Sets ph.coll and ph.groups; on a bad spelling returns what is
// wrong and what is accepted (no throw), else "".
std::string parse_collective(std::string_view text, Phase &ph);
// The spelling parse_collective reads back ("ring" for a ring).
std::string collective_name(const Phase &ph);
// What every message about a collective lists as accepted.
extern const char kCollectivesAccepted[];
// Trim spaces and tabs.
std::string_view trim(std::string_view s);

}  // namespace orrery
