// Captured-profile files: a GLib key-file (doc/orrery-profile.7, FILES).
// Read as the submitting user (never as root): plain open, but only
// regular files, and never more than ORRERY_PROFILE_FILE_MAX bytes.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "core/error.hpp"
#include "profile/internal.hpp"
#include "profile/profile.hpp"
#include "profile/units.hpp"

namespace orrery {

namespace {

struct KeyFile {
	GKeyFile *kf = g_key_file_new();
	~KeyFile() { g_key_file_free(kf); }
};

struct Strv {
	gchar **v;
	explicit Strv(gchar **x) : v(x) {}
	~Strv() { g_strfreev(v); }
};

std::string value(GKeyFile *kf, const char *group, const char *key,
		  const std::string &origin)
{
	gchar *raw = g_key_file_get_value(kf, group, key, nullptr);
	if (!raw)
		fail(ORRERY_EINVAL, origin + ": [" + group + "] lacks '" + key +
			"='");
	std::string v(trim(raw));
	g_free(raw);
	return v;
}

int64_t time_value(GKeyFile *kf, const char *group, const char *key,
		   const std::string &origin)
{
	std::string v = value(kf, group, key, origin);
	int64_t us = 0;
	units::Parsed r = units::parse_time_us(v, &us);
	if (r != units::Parsed::Ok)
		fail(r == units::Parsed::Overflow ? ORRERY_ERANGE : ORRERY_EINVAL,
		     origin + ": [" + group + "] " + key + ": " +
		     units::explain(r, v, true));
	return us;
}

void only_keys(GKeyFile *kf, const char *group,
	       const std::vector<std::string> &allowed,
	       const std::string &origin)
{
	Strv keys(g_key_file_get_keys(kf, group, nullptr, nullptr));
	for (gchar **k = keys.v; k && *k; k++) {
		bool ok = false;
		for (const std::string &a : allowed)
			ok = ok || a == *k;
		if (!ok) {
			std::string acc;
			for (const std::string &a : allowed)
				acc += (acc.empty() ? "" : ", ") + a;
			fail(ORRERY_EINVAL, origin + ": unknown key '" +
				std::string(*k).substr(0, 64) + "' in [" +
				group + "] (accepted: " + acc + ")");
		}
	}
}

// "phase.N" with N a decimal without leading zeros; -1 otherwise.
long phase_index(const char *group)
{
	if (strncmp(group, "phase.", 6) != 0)
		return -1;
	const char *d = group + 6;
	size_t n = strlen(d);
	if (n == 0 || n > 4 || (n > 1 && d[0] == '0'))
		return -1;
	long v = 0;
	for (const char *c = d; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		v = v * 10 + (*c - '0');
	}
	return v;
}

// GKeyFile silently merges repeated groups and keeps the last of repeated
// keys; a profile with two period= lines is a mistake worth reporting.
// Runs after GKeyFile accepted the syntax, so lines are well formed.
void check_duplicates(std::string_view data, const std::string &origin)
{
	std::set<std::string> groups, keys;
	std::string group;
	size_t pos = 0, lineno = 0;
	while (pos < data.size()) {
		size_t nl = data.find('\n', pos);
		std::string_view line = trim(data.substr(
			pos, nl == std::string_view::npos ? nl : nl - pos));
		pos = nl == std::string_view::npos ? data.size() : nl + 1;
		lineno++;
		if (!line.empty() && line.back() == '\r')
			line = trim(line.substr(0, line.size() - 1));
		if (line.empty() || line[0] == '#')
			continue;
		if (line[0] == '[') {
			group = std::string(line.substr(1, line.find(']') - 1));
			if (!groups.insert(group).second)
				fail(ORRERY_EINVAL, origin + ": line " +
					std::to_string(lineno) + ": group [" +
					group.substr(0, 64) + "] appears twice");
			continue;
		}
		if (group == "capture")
			continue;
		std::string key(trim(line.substr(0, line.find('='))));
		if (!keys.insert(group + "\n" + key).second)
			fail(ORRERY_EINVAL, origin + ": line " +
				std::to_string(lineno) + ": key '" +
				key.substr(0, 64) + "' appears twice in [" +
				group.substr(0, 64) + "]");
	}
}

}  // namespace

Profile load_profile_data(std::string_view data, const std::string &origin)
{
	if (data.size() > ORRERY_PROFILE_FILE_MAX)
		fail(ORRERY_ELIMIT, origin + ": " + std::to_string(data.size()) +
			" bytes, larger than the limit of " +
			std::to_string(ORRERY_PROFILE_FILE_MAX));
	// g_utf8_validate() stops at a NUL and would call it bad UTF-8.
	if (const void *nul = memchr(data.data(), '\0', data.size()))
		fail(ORRERY_EINVAL, origin + ": contains a NUL byte at offset " +
			std::to_string((const char *)nul - data.data()) +
			" (not a text file)");
	const gchar *bad = nullptr;
	if (!g_utf8_validate(data.data(), (gssize)data.size(), &bad))
		fail(ORRERY_EINVAL, origin + ": not valid UTF-8 text (byte " +
			std::to_string(bad - data.data()) + ")");

	KeyFile k;
	GError *gerr = nullptr;
	if (!g_key_file_load_from_data(k.kf, data.data(), data.size(),
				       G_KEY_FILE_NONE, &gerr)) {
		std::string msg = gerr ? gerr->message : "unreadable";
		g_clear_error(&gerr);
		fail(ORRERY_EINVAL, origin + ": not a key-file: " + msg);
	}
	check_duplicates(data, origin);
	if (!g_key_file_has_group(k.kf, "profile"))
		fail(ORRERY_EINVAL, origin + ": no [profile] group");

	// The version first: a newer format may have keys we do not know.
	std::string ver = value(k.kf, "profile", "version", origin);
	if (ver != "1") {
		bool digits = !ver.empty() && ver.size() < 10;
		for (char c : ver)
			digits = digits && c >= '0' && c <= '9';
		if (!digits)
			fail(ORRERY_EINVAL, origin + ": version '" +
				ver.substr(0, 32) + "' is not a number");
		fail(ORRERY_EVERSION, origin + ": format version " + ver +
			" not supported (this liborrery reads version 1)");
	}
	only_keys(k.kf, "profile", {"version", "period"}, origin);

	Pattern p;
	p.period_us = time_value(k.kf, "profile", "period", origin);
	if (p.period_us < ORRERY_MIN_PERIOD_US ||
	    p.period_us > ORRERY_MAX_PERIOD_US)
		fail(ORRERY_ERANGE, origin + ": period=" +
			units::format_time_us(p.period_us) + " out of range (" +
			units::format_time_us(ORRERY_MIN_PERIOD_US) + ".." +
			units::format_time_us(ORRERY_MAX_PERIOD_US) + ")");

	gsize n_groups = 0;
	Strv groups(g_key_file_get_groups(k.kf, &n_groups));
	std::vector<bool> seen;
	for (gchar **g = groups.v; g && *g; g++) {
		std::string group(*g);
		if (group == "profile")
			continue;
		if (group == "capture") {
			// Free-form statistics of the capture tool; only the
			// keys liborrery knows are checked.
			if (g_key_file_has_key(k.kf, *g, "period_stddev", nullptr))
				time_value(k.kf, *g, "period_stddev", origin);
			if (g_key_file_has_key(k.kf, *g, "iterations", nullptr)) {
				std::string it = value(k.kf, *g, "iterations", origin);
				bool ok = !it.empty() && it.size() < 19;
				for (char c : it)
					ok = ok && c >= '0' && c <= '9';
				if (!ok)
					fail(ORRERY_EINVAL, origin +
						": [capture] iterations '" +
						it.substr(0, 32) +
						"' is not a whole number");
			}
			continue;
		}
		long idx = phase_index(*g);
		if (idx < 0)
			fail(ORRERY_EINVAL, origin + ": unknown group [" +
				group.substr(0, 64) + "] (accepted: [profile], "
				"[phase.N], [capture])");
		if (idx >= ORRERY_MAX_PHASES)
			fail(ORRERY_ELIMIT, origin + ": [" + group + "]: at most " +
				std::to_string(ORRERY_MAX_PHASES) +
				" phases, numbered 0.." +
				std::to_string(ORRERY_MAX_PHASES - 1));
		if ((size_t)idx >= seen.size())
			seen.resize(idx + 1);
		seen[idx] = true;
	}
	for (size_t i = 0; i < seen.size(); i++) {
		if (!seen[i])
			fail(ORRERY_EINVAL, origin + ": [phase." +
				std::to_string(i) + "] missing; phases are "
				"numbered 0..n-1 without gaps");
		std::string g = "phase." + std::to_string(i);
		const char *gc = g.c_str();
		only_keys(k.kf, gc, {"offset", "duration", "demand", "collective"},
			  origin);
		Phase ph;
		ph.offset_us = time_value(k.kf, gc, "offset", origin);
		ph.duration_us = time_value(k.kf, gc, "duration", origin);
		std::string d = value(k.kf, gc, "demand", origin);
		units::Parsed r = units::parse_rate_mbps(d, &ph.demand_mbps);
		if (r != units::Parsed::Ok)
			fail(r == units::Parsed::Overflow ? ORRERY_ERANGE
							  : ORRERY_EINVAL,
			     origin + ": [" + g + "] demand: " +
			     units::explain(r, d, false));
		if (g_key_file_has_key(k.kf, gc, "collective", nullptr)) {
			std::string c = value(k.kf, gc, "collective", origin);
			std::string bad = parse_collective(c, ph);
			if (!bad.empty())
				fail(ORRERY_EINVAL, origin + ": [" + g +
					"] " + bad);
		}
		p.phases.push_back(ph);
	}

	Profile out;
	try {
		out.pattern = normalise_pattern(std::move(p));
	} catch (const Error &e) {
		fail(e.code(), origin + ": " + e.what());
	}
	return out;
}

Profile load_profile_file(const std::string &path)
{
	// O_NONBLOCK: opening a FIFO must not wait for a writer.
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		fail(e == ENOENT ? ORRERY_ENOENT : ORRERY_EIO,
		     path + ": " + strerror(e));
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		fail(ORRERY_EIO, path + ": " + strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		fail(ORRERY_EINVAL, path + ": not a regular file (" +
			(S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			 S_ISSOCK(st.st_mode) ? "a socket" : "special") +
			"); profile files must be regular files");
	}
	if (st.st_size > ORRERY_PROFILE_FILE_MAX) {
		close(fd);
		fail(ORRERY_ELIMIT, path + ": " + std::to_string(st.st_size) +
			" bytes, larger than the limit of " +
			std::to_string(ORRERY_PROFILE_FILE_MAX));
	}
	// Read at most the limit plus one byte: a file that grows while we
	// read is still caught, and nothing reads without bound.
	std::string buf(ORRERY_PROFILE_FILE_MAX + 1, '\0');
	size_t got = 0;
	while (got < buf.size()) {
		ssize_t r = read(fd, &buf[got], buf.size() - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			fail(ORRERY_EIO, path + ": " + strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf.resize(got);
	return load_profile_data(buf, path);
}

void save_profile_file(const Pattern &pat, const std::string &path,
		       const std::string &comment)
{
	Pattern p = normalise_pattern(pat);
	std::string text;
	if (!comment.empty()) {
		// One '#' line per comment line; control characters become
		// spaces so the comment cannot break the file.
		text += "# ";
		for (size_t i = 0; i < comment.size() && i < 4096; i++) {
			unsigned char c = (unsigned char)comment[i];
			if (c == '\n')
				text += "\n# ";
			else
				text += (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
		}
		text += "\n";
	}
	text += "[profile]\nversion=1\nperiod=" +
		units::format_time_us(p.period_us) + "\n";
	for (size_t i = 0; i < p.phases.size(); i++) {
		const Phase &ph = p.phases[i];
		text += "\n[phase." + std::to_string(i) + "]\noffset=" +
			units::format_time_us(ph.offset_us) + "\nduration=" +
			units::format_time_us(ph.duration_us) + "\ndemand=" +
			units::format_rate_mbps(ph.demand_mbps) +
			"\ncollective=" +
			collective_name(ph) + "\n";
	}
	if (!g_utf8_validate(text.data(), (gssize)text.size(), nullptr))
		fail(ORRERY_EINVAL, path + ": comment is not valid UTF-8");

	// Temp file in the same directory, then rename: readers see the old
	// file or the new one, never half of one.
	std::string tmp = path + ".tmpXXXXXX";
	int fd = mkostemp(&tmp[0], O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		fail(e == ENOENT ? ORRERY_ENOENT : ORRERY_EIO,
		     path + ": cannot create a temporary file: " + strerror(e));
	}
	auto bail = [&](const char *what) {
		int e = errno;
		close(fd);
		unlink(tmp.c_str());
		fail(ORRERY_EIO, path + ": " + what + ": " + strerror(e));
	};
	if (fchmod(fd, 0644) != 0)
		bail("chmod");
	size_t off = 0;
	while (off < text.size()) {
		ssize_t w = write(fd, text.data() + off, text.size() - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			bail("write");
		off += (size_t)w;
	}
	if (fsync(fd) != 0)
		bail("fsync");
	if (close(fd) != 0) {
		int e = errno;
		unlink(tmp.c_str());
		fail(ORRERY_EIO, path + ": close: " + strerror(e));
	}
	if (rename(tmp.c_str(), path.c_str()) != 0) {
		int e = errno;
		unlink(tmp.c_str());
		fail(ORRERY_EIO, path + ": rename: " + strerror(e));
	}
}

}  // namespace orrery
