// SVG drawing of one link's unified circle (doc/orrery-score.7).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "circle/score.hpp"

namespace orrery {

// One ring per job (Up arcs before rotation faded, after rotation solid)
// and an outer ring of total demand over capacity (red where over).
// Self-contained SVG 1.1; the same input gives the same bytes.  labels
// may be NULL, or hold NULL entries ("job N" is used).  Throws Error
// (ORRERY_EIO) when writing fails.
void write_link_svg(const LinkScore &s, const std::vector<LinkJob> &jobs,
		    uint64_t capacity_mbps, const char *const *labels,
		    const char *title, FILE *out);

// Text made safe for XML character data and attribute values: markup
// characters escaped, control characters and invalid UTF-8 replaced by
// '?', cut (at a character boundary) after max_bytes of input.
std::string xml_escape(std::string_view s, size_t max_bytes);

}  // namespace orrery
