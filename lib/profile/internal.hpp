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
// Trim spaces and tabs.
std::string_view trim(std::string_view s);

}  // namespace orrery
