// The cluster state file (doc/orrery-state.5): text, versioned, checksummed,
// written atomically.
//
//   orrery-state 1
//   epoch_us 1764460800000000
//   job 1234 shift_us=50000 nodes=node001,node002 profile=period=100ms;...
//   end jobs=1 sha256=<hex of every byte before this line>
//
// Nodes are stored by name so that the file survives a topology change: a
// job naming a node the topology no longer has is dropped (and counted).
// Loading is all-or-nothing; the version is checked before the checksum so
// that a file from a newer orrery says so instead of "corrupt".
#include <fcntl.h>
#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "cluster/cluster.hpp"
#include "core/error.hpp"
#include "profile/profile.hpp"

namespace orrery {

static const char kMagic[] = "orrery-state ";
static const int kVersion = 1;

static std::string sha256_hex(const char *data, size_t len)
{
	std::unique_ptr<GChecksum, void (*)(GChecksum *)> ck(
		g_checksum_new(G_CHECKSUM_SHA256), g_checksum_free);
	if (!ck)
		fail(ORRERY_ENOMEM, "cannot create a SHA-256 checksum");
	g_checksum_update(ck.get(), (const guchar *)data, (gssize)len);
	return g_checksum_get_string(ck.get());
}

std::string Cluster::serialise() const
{
	std::string out = std::string(kMagic) + std::to_string(kVersion) + "\n";
	out += "epoch_us " + std::to_string(epoch_us_) + "\n";
	for (const auto &kv : jobs_) {
		const RunningJob &j = kv.second;
		out += "job " + std::to_string(j.id) + " shift_us=" +
		       std::to_string(j.shift_us) + " nodes=";
		for (size_t i = 0; i < j.nodes.size(); i++) {
			const std::string &name = topo_.nodes[j.nodes[i]];
			if (name.find_first_of(", \t\r\n=") != std::string::npos)
				fail(ORRERY_EINVAL, "node name '" + name +
				     "' cannot be stored in a state file (contains a separator)");
			if (i)
				out += ',';
			out += name;
		}
		out += " profile=" + canonical(j.pattern) + "\n";
	}
	std::string sum = sha256_hex(out.data(), out.size());
	out += "end jobs=" + std::to_string(jobs_.size()) + " sha256=" + sum + "\n";
	return out;
}

[[noreturn]] static void io_fail(const std::string &what, const std::string &path, int e)
{
	fail(ORRERY_EIO, what + " '" + path + "': " + std::strerror(e));
}

// Atomic (temporary file + rename) and durable (fsync of the file and
// of the directory): a crash leaves the old file or the new one.
void write_state_file(const std::string &path, const char *data, size_t len)
{
	std::string tmpl = path + ".XXXXXX";
	std::vector<char> tmp(tmpl.begin(), tmpl.end());
	tmp.push_back('\0');
	int fd = mkostemp(tmp.data(), O_CLOEXEC);  // mode 0600
	if (fd < 0)
		io_fail("cannot create a temporary file beside", path, errno);
	auto abandon = [&](const char *what) {
		int e = errno;
		close(fd);
		unlink(tmp.data());
		io_fail(what, path, e);
	};
	if (fchmod(fd, 0600) < 0)
		abandon("cannot set mode 0600 on the temporary file for");
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			abandon("cannot write state for");
		}
		off += (size_t)w;
	}
	if (fsync(fd) < 0)
		abandon("cannot fsync state for");
	if (close(fd) < 0) {
		int e = errno;
		unlink(tmp.data());
		io_fail("cannot close state for", path, e);
	}
	if (rename(tmp.data(), path.c_str()) < 0) {
		int e = errno;
		unlink(tmp.data());
		io_fail("cannot rename the temporary state file onto", path, e);
	}
	// Make the rename itself durable.
	std::string dir = path;
	size_t slash = dir.rfind('/');
	dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : dir.substr(0, slash));
	int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

void Cluster::save(const std::string &path) const
{
	std::string data = serialise();
	write_state_file(path, data.data(), data.size());
}

size_t Cluster::load(const std::string &path)
{
	Loaded s = read_state(path);
	size_t dropped = s.dropped;
	apply(std::move(s));
	return dropped;
}

size_t Cluster::load_data(const std::string &data, const std::string &origin)
{
	Loaded s = parse_state(data, origin);
	size_t dropped = s.dropped;
	apply(std::move(s));
	return dropped;
}

void Cluster::apply(Loaded &&s) noexcept
{
	jobs_.swap(s.jobs);
	link_jobs_.swap(s.link_jobs);
	epoch_us_ = s.epoch_us;
	version_++;
}

Cluster::Loaded Cluster::read_state(const std::string &path) const
{
	// O_NONBLOCK: a FIFO planted as the state file must not hang
	// slurmctld in open(); fstat() below refuses it.
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT)
			fail(ORRERY_ENOENT, "state file '" + path + "' does not exist");
		io_fail("cannot open state file", path, e);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		io_fail("cannot stat state file", path, e);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		fail(ORRERY_EIO, "state file '" + path + "' is not a regular file");
	}
	if ((uint64_t)st.st_size > kStateFileMax) {
		close(fd);
		fail(ORRERY_ELIMIT, "state file '" + path + "' is " +
		     std::to_string((long long)st.st_size) + " bytes; the limit is " +
		     std::to_string(kStateFileMax));
	}
	std::string data;
	char buf[65536];
	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			io_fail("cannot read state file", path, e);
		}
		if (r == 0)
			break;
		data.append(buf, (size_t)r);
		if (data.size() > kStateFileMax) {  // grew while we read it
			close(fd);
			fail(ORRERY_ELIMIT, "state file '" + path + "' exceeds " +
			     std::to_string(kStateFileMax) + " bytes");
		}
	}
	close(fd);
	return parse_state(data, path);
}

static bool parse_u64(const std::string &s, uint64_t max, uint64_t *out)
{
	if (s.empty() || s.size() > 20)
		return false;
	uint64_t v = 0;
	for (char ch : s) {
		if (ch < '0' || ch > '9')
			return false;
		uint64_t d = (uint64_t)(ch - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool parse_i64(const std::string &s, int64_t *out)
{
	bool neg = !s.empty() && s[0] == '-';
	uint64_t v;
	if (!parse_u64(neg ? s.substr(1) : s, (uint64_t)INT64_MAX, &v))
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

Cluster::Loaded Cluster::parse_state(const std::string &data,
				     const std::string &origin) const
{
	auto corrupt = [&](const std::string &why) {
		fail(ORRERY_ECORRUPT, "state file '" + origin + "': " + why);
	};
	if (data.size() > kStateFileMax)
		fail(ORRERY_ELIMIT, "state file '" + origin + "' exceeds " +
		     std::to_string(kStateFileMax) + " bytes");
	if (data.empty())
		corrupt("empty file");
	if (data.compare(0, sizeof kMagic - 1, kMagic) != 0)
		corrupt("not an orrery state file (no 'orrery-state' header)");

	// Split into lines, bounding their length before anything else.
	std::vector<std::pair<size_t, size_t>> lines;  // offset, length
	for (size_t off = 0; off < data.size();) {
		size_t nl = data.find('\n', off);
		size_t end = nl == std::string::npos ? data.size() : nl;
		if (end - off > kStateLineMax)
			fail(ORRERY_ELIMIT, "state file '" + origin + "': line " +
			     std::to_string(lines.size() + 1) + " is longer than " +
			     std::to_string(kStateLineMax) + " bytes");
		lines.emplace_back(off, end - off);
		if (nl == std::string::npos)
			break;
		off = nl + 1;
	}
	auto line = [&](size_t i) { return data.substr(lines[i].first, lines[i].second); };

	std::string header = line(0);
	uint64_t version = 0;
	if (!parse_u64(header.substr(sizeof kMagic - 1), 1000000, &version))
		corrupt("line 1: bad header '" + header.substr(0, 64) + "'");
	if (version != (uint64_t)kVersion)
		fail(ORRERY_EVERSION, "state file '" + origin + "' has format version " +
		     std::to_string(version) + "; this orrery reads version " +
		     std::to_string(kVersion));

	// The last line must be the end line, complete with its newline.
	if (data.back() != '\n' || lines.size() < 3)
		corrupt("truncated (no complete 'end' line)");
	size_t last = lines.size() - 1;
	std::string end = line(last);
	if (end.compare(0, 9, "end jobs=") != 0)
		corrupt("truncated (no complete 'end' line)");
	size_t sp = end.find(" sha256=");
	if (sp == std::string::npos)
		corrupt("line " + std::to_string(last + 1) + ": end line lacks sha256=");
	uint64_t declared_jobs = 0;
	if (!parse_u64(end.substr(9, sp - 9), kMaxClusterJobs, &declared_jobs))
		corrupt("line " + std::to_string(last + 1) + ": bad job count");
	std::string sum = sha256_hex(data.data(), lines[last].first);
	if (end.substr(sp + 8) != sum)
		corrupt("checksum mismatch (file damaged or edited by hand)");

	// The content is what we wrote; still parse defensively.
	std::map<uint32_t, RunningJob> jobs;
	std::vector<std::vector<uint32_t>> link_jobs(topo_.switches.size());
	int64_t epoch = 0;
	bool have_epoch = false;
	size_t seen_jobs = 0, dropped = 0;
	std::set<uint32_t> ids;
	for (size_t i = 1; i < last; i++) {
		std::string l = line(i);
		std::string where = "line " + std::to_string(i + 1) + ": ";
		if (l.compare(0, 9, "epoch_us ") == 0) {
			if (have_epoch)
				corrupt(where + "second epoch_us line");
			if (!parse_i64(l.substr(9), &epoch))
				corrupt(where + "bad epoch_us value");
			have_epoch = true;
			continue;
		}
		if (l.compare(0, 4, "job ") != 0)
			corrupt(where + "expected 'job' or 'epoch_us'");
		// job ID shift_us=S nodes=A,B profile=TEXT (profile last: its
		// text is the rest of the line)
		size_t p1 = l.find(" shift_us=", 4);
		size_t p2 = p1 == std::string::npos ? p1 : l.find(" nodes=", p1 + 1);
		size_t p3 = p2 == std::string::npos ? p2 : l.find(" profile=", p2 + 1);
		if (p3 == std::string::npos)
			corrupt(where + "expected 'job ID shift_us=S nodes=LIST profile=TEXT'");
		uint64_t id;
		int64_t shift;
		if (!parse_u64(l.substr(4, p1 - 4), UINT32_MAX, &id))
			corrupt(where + "bad job id");
		if (!parse_i64(l.substr(p1 + 10, p2 - p1 - 10), &shift) || shift < 0 ||
		    shift > ORRERY_MAX_PERIOD_US)
			corrupt(where + "bad shift_us");
		if (++seen_jobs > kMaxClusterJobs)
			fail(ORRERY_ELIMIT, "state file '" + origin + "' holds more than " +
			     std::to_string(kMaxClusterJobs) + " jobs");
		Profile prof;
		try {
			prof = parse_profile(l.substr(p3 + 9));
		} catch (const Error &e) {
			corrupt(where + "bad profile: " + e.what());
		}
		if (prof.is_model())
			corrupt(where + "profile is a model reference, not an explicit pattern");
		std::string list = l.substr(p2 + 7, p3 - p2 - 7);
		std::vector<uint32_t> nodes;
		bool unknown = false;
		for (size_t a = 0; a <= list.size();) {
			size_t b = list.find(',', a);
			if (b == std::string::npos)
				b = list.size();
			std::string name = list.substr(a, b - a);
			if (name.empty())
				corrupt(where + "empty node name");
			long idx = topo_.node_index(name);
			if (idx < 0)
				unknown = true;
			else
				nodes.push_back((uint32_t)idx);
			a = b + 1;
		}
		if (!ids.insert((uint32_t)id).second)
			corrupt(where + "job " + std::to_string(id) + " appears twice");
		if (unknown) {
			dropped++;
			continue;
		}
		std::sort(nodes.begin(), nodes.end());
		if (std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end())
			corrupt(where + "a node is listed twice");
		RunningJob j;
		j.id = (uint32_t)id;
		j.pattern = prof.pattern;
		j.gate_period_us = gate_period(j.pattern, circle_);
		j.shift_us = shift;
		j.nodes = std::move(nodes);
		j.links = crossings(topo_, j.nodes, needs_positions(j.pattern));
		for (const Crossing &c : j.links)
			link_jobs[c.sw].push_back(j.id);  // ids ascend: file is sorted
		jobs.emplace(j.id, std::move(j));
	}
	if (!have_epoch)
		corrupt("no epoch_us line");
	if (seen_jobs != declared_jobs)
		corrupt("end line counts " + std::to_string(declared_jobs) +
			" jobs but the file holds " + std::to_string(seen_jobs));
	for (auto &v : link_jobs)
		std::sort(v.begin(), v.end());
	Loaded out;
	out.jobs.swap(jobs);
	out.link_jobs.swap(link_jobs);
	out.epoch_us = epoch;
	out.dropped = dropped;
	return out;
}

}  // namespace orrery
