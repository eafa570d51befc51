// Reader for Slurm's topology.conf (topology/tree syntax):
//
//   SwitchName=s0 Switches=s[1-3] LinkSpeed=400
//   SwitchName=s1 Nodes=node[01-08] LinkSpeed=200
//
// Keys are case-insensitive, '#' starts a comment, a trailing '\' joins the
// next line.  A switch listed in another's Switches= is that switch's child.
// LinkSpeed is parsed but ignored by Slurm itself; orrery multiplies it by
// a caller-given unit and uses it as the switch's uplink capacity (both
// directions).  The file is untrusted: every error names file:line and the
// token, and sizes are capped (kTopologyFile*, kTopologyMax*).
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"
#include "topology/slurm_conf.hpp"

namespace orrery {

namespace {

struct SwitchDecl {
	std::string name;
	size_t line = 0;
	std::vector<std::string> children;
	std::vector<std::string> nodes;
	bool has_switches = false, has_nodes = false;
	uint64_t linkspeed = 0;  // as written, 0 = not given
	std::string parent;
	size_t parent_line = 0;  // line of the Switches= naming this switch
};

std::string lower(std::string s)
{
	for (char &c : s)
		c = (char)tolower((unsigned char)c);
	return s;
}

struct Expansion {
	std::vector<std::string> *out;
	size_t limit;
	bool overflow = false;
	bool bad_name = false;
	std::string bad;
};

void emit_host(const char *host, void *ectx)
{
	Expansion *e = static_cast<Expansion *>(ectx);
	if (e->overflow || e->bad_name)
		return;
	if (e->out->size() >= e->limit) {
		e->overflow = true;
		return;
	}
	std::string h = host ? host : "";
	if (!valid_name(h)) {
		e->bad_name = true;
		e->bad = h;
		return;
	}
	e->out->push_back(std::move(h));
}

class Parser {
public:
	Parser(const std::string &name, orrery_hostlist_fn expand, void *ctx,
	       uint64_t unit)
		: name_(name), expand_(expand), ctx_(ctx), unit_(unit) {}

	Topology parse(const std::string &text);

private:
	[[noreturn]] void error(size_t line, orrery_rc code,
				const std::string &msg) const
	{
		fail(code, name_ + ":" + std::to_string(line) + ": " + msg);
	}
	void parse_line(const std::string &text, size_t line);
	std::vector<std::string> expand(const std::string &key,
					const std::string &expr, size_t line,
					size_t limit);
	void check_tree();

	std::string name_;
	orrery_hostlist_fn expand_;
	void *ctx_;
	uint64_t unit_;
	std::vector<SwitchDecl> decls_;
	std::unordered_map<std::string, size_t> by_name_;
	std::unordered_map<std::string, size_t> node_owner_;  // -> decl index
	size_t node_total_ = 0;
};

std::vector<std::string> Parser::expand(const std::string &key,
					const std::string &expr, size_t line,
					size_t limit)
{
	std::vector<std::string> out;
	Expansion e{&out, limit, false, false, {}};
	if (!expand_) {
		// No expander: plain comma-separated names only.
		if (expr.find_first_of("[]") != std::string::npos)
			error(line, ORRERY_EINVAL, key + "=" + expr +
			      ": hostlist expressions need an expander "
			      "(none was given)");
		std::stringstream ss(expr);
		std::string item;
		while (std::getline(ss, item, ','))
			emit_host(item.c_str(), &e);
	} else if (expand_(expr.c_str(), ctx_, emit_host, &e) != 0) {
		error(line, ORRERY_EINVAL, key + "=" + expr +
		      ": not a valid hostlist expression");
	}
	if (e.overflow)
		error(line, ORRERY_ELIMIT, key + "=" + expr + ": more than " +
		      (key == "Nodes" ? std::to_string(kTopologyMaxNodes) + " nodes"
				      : std::to_string(kTopologyMaxSwitches) + " switches") +
		      " in the file (the limit)");
	if (e.bad_name)
		error(line, ORRERY_EINVAL, key + "=" + expr + ": invalid name '" +
		      e.bad + "' (accepted: letters, digits, '.', '_', '-')");
	if (out.empty())
		error(line, ORRERY_EINVAL, key + "=" + expr + ": names no host");
	return out;
}

void Parser::parse_line(const std::string &text, size_t line)
{
	std::stringstream ss(text);
	std::string tok;
	SwitchDecl d;
	d.line = line;
	bool seen[4] = {false, false, false, false};
	static const char *const keys[4] = {"SwitchName", "Switches", "Nodes",
					    "LinkSpeed"};
	std::string values[4];
	while (ss >> tok) {
		size_t eq = tok.find('=');
		if (eq == std::string::npos || eq == 0)
			error(line, ORRERY_EINVAL, "'" + tok +
			      "' is not KEY=VALUE (keys: SwitchName, Switches, Nodes, LinkSpeed)");
		std::string key = lower(tok.substr(0, eq));
		std::string val = tok.substr(eq + 1);
		int k = -1;
		for (int i = 0; i < 4; i++)
			if (key == lower(keys[i]))
				k = i;
		if (k < 0)
			error(line, ORRERY_EINVAL, "unknown key '" + tok.substr(0, eq) +
			      "' (accepted: SwitchName, Switches, Nodes, LinkSpeed)");
		if (seen[k])
			error(line, ORRERY_EINVAL, std::string(keys[k]) +
			      "= given twice on one line");
		if (val.empty())
			error(line, ORRERY_EINVAL, std::string(keys[k]) + "= has no value");
		seen[k] = true;
		values[k] = val;
	}
	if (!seen[0])
		error(line, ORRERY_EINVAL, "line does not start a switch (no SwitchName=)");
	d.name = values[0];
	if (!valid_name(d.name))
		error(line, ORRERY_EINVAL, "invalid switch name '" + d.name +
		      "' (accepted: letters, digits, '.', '_', '-')");
	auto dup = by_name_.find(d.name);
	if (dup != by_name_.end())
		error(line, ORRERY_EINVAL, "duplicate switch '" + d.name +
		      "' (first defined at line " +
		      std::to_string(decls_[dup->second].line) + ")");
	if (decls_.size() >= kTopologyMaxSwitches)
		error(line, ORRERY_ELIMIT, "more than " +
		      std::to_string(kTopologyMaxSwitches) + " switches");
	if (seen[1] && seen[2])
		error(line, ORRERY_EINVAL, "switch '" + d.name +
		      "' has both Switches= and Nodes=; nodes must hang from leaf switches");
	if (seen[1]) {
		d.has_switches = true;
		d.children = expand("Switches", values[1], line, kTopologyMaxSwitches);
	}
	if (seen[2]) {
		d.has_nodes = true;
		d.nodes = expand("Nodes", values[2], line,
				 kTopologyMaxNodes - node_total_);
		node_total_ += d.nodes.size();
		for (const std::string &n : d.nodes) {
			auto it = node_owner_.find(n);
			if (it != node_owner_.end()) {
				const SwitchDecl &o = it->second == decls_.size()
					? d : decls_[it->second];
				error(line, ORRERY_EINVAL, "node '" + n +
				      "' is already under switch '" + o.name +
				      "' (line " + std::to_string(o.line) + ")");
			}
			node_owner_[n] = decls_.size();
		}
	}
	if (seen[3]) {
		const std::string &v = values[3];
		errno = 0;
		char *end = nullptr;
		unsigned long long x = v[0] == '-' ? 0 : strtoull(v.c_str(), &end, 10);
		if (v[0] == '-' || !end || *end || errno || x == 0)
			error(line, ORRERY_ERANGE, "LinkSpeed=" + v +
			      ": not a positive integer");
		if (unit_ && x > kMaxLinkMbps / unit_)
			error(line, ORRERY_ERANGE, "LinkSpeed=" + v + " times unit " +
			      std::to_string(unit_) + " Mb/s exceeds 1 Pb/s");
		d.linkspeed = x;
	}
	by_name_[d.name] = decls_.size();
	decls_.push_back(std::move(d));
}

void Parser::check_tree()
{
	if (decls_.empty())
		fail(ORRERY_EINVAL, name_ + ": no switches (no SwitchName= line)");
	// Parents from Switches= lists.
	for (size_t i = 0; i < decls_.size(); i++) {
		for (const std::string &c : decls_[i].children) {
			auto it = by_name_.find(c);
			if (it == by_name_.end())
				error(decls_[i].line, ORRERY_EINVAL, "switch '" +
				      decls_[i].name + "' lists unknown switch '" + c +
				      "' in Switches=");
			SwitchDecl &child = decls_[it->second];
			if (it->second == i)
				error(decls_[i].line, ORRERY_EINVAL, "switch '" + c +
				      "' lists itself in Switches=");
			if (!child.parent.empty())
				error(decls_[i].line, ORRERY_EINVAL, "switch '" + c +
				      "' is listed under both '" + child.parent +
				      "' (line " + std::to_string(child.parent_line) +
				      ") and '" + decls_[i].name + "'");
			child.parent = decls_[i].name;
			child.parent_line = decls_[i].line;
		}
	}
	// Cycles: the first switch on one is named (one that only leads into
	// a cycle is reported via a member).
	std::vector<long> parent(decls_.size()), depth;
	std::vector<char> on_cycle;
	for (size_t i = 0; i < decls_.size(); i++)
		parent[i] = decls_[i].parent.empty()
			? -1 : (long)by_name_.at(decls_[i].parent);
	walk_parents(parent, depth, on_cycle);
	for (size_t i = 0; i < decls_.size(); i++) {
		if (on_cycle[i]) {
			std::string path = decls_[i].name;
			size_t p = i;
			do {
				p = by_name_.at(decls_[p].parent);
				path += " -> " + decls_[p].name;
			} while (p != i && path.size() < 200);
			error(decls_[i].line, ORRERY_EINVAL, "switch '" +
			      decls_[i].name + "' is on a cycle of Switches= (" +
			      path + "): the tree has no root");
		}
	}
	long root = -1;
	for (size_t i = 0; i < decls_.size(); i++) {
		if (!decls_[i].parent.empty())
			continue;
		if (root >= 0)
			error(decls_[i].line, ORRERY_EINVAL, "switch '" +
			      decls_[i].name + "' is a second root (no Switches= lists it; '" +
			      decls_[root].name + "' at line " +
			      std::to_string(decls_[root].line) +
			      " is a root too): orrery needs one tree");
		root = (long)i;
	}
	if (root < 0)  // unreachable: no root means a cycle, reported above
		fail(ORRERY_EINVAL, name_ + ": no root switch");
}

Topology Parser::parse(const std::string &text)
{
	// Join continuation lines; remember where each logical line starts.
	std::string logical;
	size_t start = 0, lineno = 0;
	std::stringstream in(text);
	std::string raw;
	bool cont = false;
	while (std::getline(in, raw)) {
		lineno++;
		if (!raw.empty() && raw.back() == '\r')
			raw.pop_back();
		size_t hash = raw.find('#');
		if (hash != std::string::npos)
			raw.erase(hash);
		if (!cont) {
			logical.clear();
			start = lineno;
		}
		size_t end = raw.find_last_not_of(" \t");
		cont = end != std::string::npos && raw[end] == '\\';
		if (cont)
			raw.erase(end);
		logical += raw;
		logical += ' ';
		if (cont)
			continue;
		if (logical.find_first_not_of(" \t") != std::string::npos)
			parse_line(logical, start);
	}
	if (cont && logical.find_first_not_of(" \t") != std::string::npos)
		parse_line(logical, start);
	check_tree();

	Topology t;
	for (const SwitchDecl &d : decls_) {
		t.add_switch(d.name, d.parent);
		for (const std::string &n : d.nodes)
			t.add_node(n, d.name);
	}
	t.finalize();
	for (size_t i = 0; i < decls_.size(); i++) {
		if (!decls_[i].linkspeed || !unit_)
			continue;
		if (decls_[i].parent.empty())
			continue;  // the root has no uplink: LinkSpeed is ignored
		size_t sw = (size_t)t.switch_index(decls_[i].name);
		t.switches[sw].up_mbps = t.switches[sw].down_mbps =
			decls_[i].linkspeed * unit_;
	}
	t.origin = "read from " + name_;
	return t;
}

}  // namespace

bool valid_name(const std::string &s)
{
	if (s.empty() || s.size() > 255)
		return false;
	for (char c : s)
		if (!isalnum((unsigned char)c) && c != '.' && c != '_' && c != '-')
			return false;
	return true;
}

Topology parse_slurm_topology(const std::string &text, const std::string &name,
			      orrery_hostlist_fn expand, void *expand_ctx,
			      uint64_t linkspeed_unit_mbps)
{
	if (text.size() > kTopologyFileMax)
		fail(ORRERY_ELIMIT, name + ": larger than " +
		     std::to_string(kTopologyFileMax >> 20) + " MiB");
	if (text.find('\0') != std::string::npos)
		fail(ORRERY_EINVAL, name + ": contains a NUL byte (not a text file)");
	return Parser(name, expand, expand_ctx, linkspeed_unit_mbps).parse(text);
}

Topology read_slurm_topology(const std::string &path, orrery_hostlist_fn expand,
			     void *expand_ctx, uint64_t linkspeed_unit_mbps)
{
	std::ifstream f(path, std::ios::binary);
	if (!f) {
		int e = errno;
		fail(e == ENOENT ? ORRERY_ENOENT : ORRERY_EIO,
		     path + ": cannot open: " + strerror(e));
	}
	struct stat st;
	if (stat(path.c_str(), &st) != 0)
		fail(ORRERY_EIO, path + ": cannot stat: " + strerror(errno));
	if (!S_ISREG(st.st_mode))
		fail(ORRERY_EIO, path + ": not a regular file");
	if ((unsigned long long)st.st_size > kTopologyFileMax)
		fail(ORRERY_ELIMIT, path + ": larger than " +
		     std::to_string(kTopologyFileMax >> 20) + " MiB");
	// Read at most one byte past the limit, in case the file grew.
	std::string text((size_t)st.st_size + 1, '\0');
	f.read(&text[0], (std::streamsize)text.size());
	if (f.bad())
		fail(ORRERY_EIO, path + ": read error");
	text.resize((size_t)f.gcount());
	return parse_slurm_topology(text, path, expand, expand_ctx,
				    linkspeed_unit_mbps);
}

}  // namespace orrery
