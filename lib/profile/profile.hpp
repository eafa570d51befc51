// Comm profiles: the --comm-profile grammar, its canonical form, profile
// files and the model catalogue.  Grammar and derivations: doc/orrery-profile.7.
#pragma once

#include <string>
#include <string_view>

#include "core/types.hpp"

namespace orrery {

// Parse a --comm-profile string (model or explicit pattern).  Throws Error
// with a message naming the offending token and what is accepted.
Profile parse_profile(std::string_view spec);

// Canonical text; parse_profile(canonical(p)) == p.
std::string canonical(const Profile &p);
std::string canonical(const Pattern &p);

// Validate an explicit pattern against the hard limits in orrery.h and sort
// its phases.  Throws Error.
Pattern normalise_pattern(Pattern p);

// The same pattern at another period, as a job whose compute took longer
// or shorter than its profile says: the time outside the Up phases (before,
// between and after them) scaled by one factor, the Up phases' durations,
// demands and collectives kept.  Throws ORRERY_ERANGE when period_us leaves
// no compute (at most the Up time), the pattern has none to scale, or
// period_us is outside the accepted range.
Pattern retime_pattern(const Pattern &p, int64_t period_us);

// Captured-profile files (GLib key-file).
Profile load_profile_data(std::string_view data, const std::string &origin);
Profile load_profile_file(const std::string &path);
void save_profile_file(const Pattern &p, const std::string &path,
		       const std::string &comment);

// Catalogue (profile/catalogue.cpp).
struct CatalogueEntry;
size_t catalogue_size();
const std::string &catalogue_name(size_t i);
const std::string &catalogue_summary(size_t i);
// Normalise a model reference: unknown model / parameter / value -> Error
// ("unknown model 'resnet5' (did you mean 'resnet50'?)").
ModelRef normalise_model(const std::string &name,
			 const std::map<std::string, std::string> &params);
// Derive the explicit pattern of a model for a job shape.
Pattern resolve_model(const ModelRef &m, const Shape &shape);

inline Pattern resolve(const Profile &p, const Shape &shape)
{
	return p.is_model() ? resolve_model(*p.model, shape) : p.pattern;
}

}  // namespace orrery
