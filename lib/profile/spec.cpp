// --comm-profile strings: a catalogue model or an explicit pattern.
#include <cctype>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "profile/internal.hpp"
#include "profile/profile.hpp"

namespace orrery {

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
		s.remove_suffix(1);
	return s;
}

void check_spec_chars(std::string_view spec, const char *what)
{
	for (size_t i = 0; i < spec.size(); i++) {
		unsigned char c = (unsigned char)spec[i];
		char hex[8];
		snprintf(hex, sizeof(hex), "0x%02x", c);
		if (c >= 0x80)
			fail(ORRERY_EINVAL, std::string(what) +
				": non-ASCII byte " + hex + " at offset " +
				std::to_string(i) + " (profiles are plain ASCII)");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			fail(ORRERY_EINVAL, std::string(what) +
				": control character " + hex + " at offset " +
				std::to_string(i));
	}
}

ModelRef parse_model_spec(std::string_view spec)
{
	ModelRef m;
	size_t colon = spec.find(':');
	std::string_view name = trim(spec.substr(0, colon));
	for (char c : name)
		m.name += (char)tolower((unsigned char)c);
	if (m.name.empty())
		fail(ORRERY_EINVAL, "missing model name before ':' in '" +
				    std::string(spec) + "'");
	if (colon == std::string_view::npos)
		return m;
	std::string_view rest = spec.substr(colon + 1);
	if (trim(rest).empty())
		fail(ORRERY_EINVAL, "no parameters after '" + m.name +
			":' (write the model name alone, or name:key=value,...)");
	size_t pos = 0;
	for (;;) {
		size_t comma = rest.find(',', pos);
		std::string_view item = trim(rest.substr(
			pos, comma == std::string_view::npos ? comma : comma - pos));
		size_t eq = item.find('=');
		if (item.empty())
			fail(ORRERY_EINVAL, "empty parameter in '" +
				std::string(trim(spec)) + "' (a stray ','?)");
		if (eq == std::string_view::npos)
			fail(ORRERY_EINVAL, "parameter '" + std::string(item) +
				"' for model '" + m.name +
				"' is not key=value");
		std::string key, val(trim(item.substr(eq + 1)));
		for (char c : trim(item.substr(0, eq)))
			key += (char)tolower((unsigned char)c);
		if (key.empty() || val.empty())
			fail(ORRERY_EINVAL, "parameter '" + std::string(item) +
				"' for model '" + m.name +
				"' needs a key and a value");
		if (!m.params.emplace(key, val).second)
			fail(ORRERY_EINVAL, "duplicate parameter '" + key +
				"' for model '" + m.name + "'");
		if (comma == std::string_view::npos)
			break;
		pos = comma + 1;
	}
	return m;
}

Profile parse_profile(std::string_view spec)
{
	if (spec.size() > ORRERY_SPEC_MAX_LEN)
		fail(ORRERY_ELIMIT, "profile longer than the limit of " +
			std::to_string(ORRERY_SPEC_MAX_LEN) + " bytes");
	check_spec_chars(spec, "profile");
	std::string_view t = trim(spec);
	if (t.empty())
		fail(ORRERY_EINVAL, "empty profile (give a model, e.g. resnet50, "
			"or a pattern, e.g. period=250ms;up=0ms+80ms@45Gbps)");
	if (t[0] == '@' || t.substr(0, 5) == "file:")
		fail(ORRERY_EINVAL, "'" + std::string(t.substr(0, 64)) +
			"': profile files are read at submission by "
			"--comm-profile=@PATH, not by this parser");

	Profile p;
	// A model name never contains '=', a pattern's first token always
	// does; so "perod=250ms" is reported as an unknown key, not as an
	// unknown model.
	size_t colon = t.find(':');
	if (t.find(';') != std::string_view::npos ||
	    t.substr(0, colon).find('=') != std::string_view::npos) {
		p.pattern = parse_pattern(t);
		return p;
	}
	ModelRef raw = parse_model_spec(t);
	p.model = normalise_model(raw.name, raw.params);
	return p;
}

std::string canonical(const Profile &p)
{
	if (!p.is_model())
		return canonical(p.pattern);
	std::string s = p.model->name;
	char sep = ':';
	for (const auto &kv : p.model->params) {
		s += sep + kv.first + "=" + kv.second;
		sep = ',';
	}
	return s;
}

}  // namespace orrery
