// What-if inputs: the site's topology.conf + orrery.conf, and its sacct
// history.  See whatif.hpp and doc/orrery-sim.1 (WHAT-IF).
#include "whatif.hpp"
#include "metrics.hpp"
#include "queue.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <istream>
#include <map>
#include <stdexcept>

extern "C" {
#include "admin_record.h"
#include "hostlist_slurm.h"
#include "orrery_conf.h"
}

namespace sim {

namespace {

struct ConfGuard {
	orrery_conf_t c;
	ConfGuard() { orrery_conf_init(&c); }
	~ConfGuard() { orrery_conf_free(&c); }
};

std::string rate(uint64_t mbps)
{
	char b[32];
	if (mbps >= 1000000 && mbps % 100000 == 0)
		std::snprintf(b, sizeof b, "%g Tb/s", (double)mbps / 1e6);
	else
		std::snprintf(b, sizeof b, "%g Gb/s", (double)mbps / 1e3);
	return b;
}

}  // namespace

Site load_site(const SiteOptions &o)
{
	Site s;
	ConfGuard conf;
	if (!o.orrery_conf.empty()) {
		char err[ORRERY_CONF_ERR_MAX] = "";
		int rc = orrery_conf_load(o.orrery_conf.c_str(), &conf.c, err, sizeof err);
		if (rc != 0)
			throw std::runtime_error(rc == 1 ? o.orrery_conf + ": cannot be read"
							 : std::string(err));
	}
	orrery_topology_t *t = nullptr;
	orrery_error_t err{};
	check(orrery_topology_read_slurm(o.topology.c_str(), hostlist_slurm_expand,
					 nullptr, conf.c.linkspeed_unit_mbps, &t, &err),
	      err, "--topology");
	s.topo.reset(t);
	const std::string cf = o.orrery_conf.empty() ? "orrery.conf" : o.orrery_conf;
	// The order of select/orrery (plugins/select/orrery/ctld_cluster.c):
	// LinkSpeed (read above), [uplinks], [switch.NAME], flows, node_link.
	int top = 0;
	for (size_t i = 0; i < orrery_topology_switch_count(t); i++)
		top = std::max(top, orrery_topology_switch_level(t, i));
	for (int l = 0; l < ORRERY_CONF_MAX_LEVELS; l++) {
		uint64_t v = conf.c.level_uplink_mbps[l];
		if (!v)
			continue;
		if (l >= top)
			throw std::runtime_error(cf + ": [uplinks] level" + std::to_string(l) +
						 ": " + o.topology + " has uplinks at levels 0 to " +
						 std::to_string(std::max(0, top - 1)));
		uint32_t k = conf.c.level_uplink_links[l] ? conf.c.level_uplink_links[l] : 1;
		check(orrery_topology_set_level_uplink(t, l, v, v, &err), err,
		      cf + ": [uplinks] level" + std::to_string(l));
		check(orrery_topology_set_level_uplink_links(t, l, k, &err), err,
		      cf + ": [uplinks] level" + std::to_string(l));
	}
	for (size_t i = 0; i < conf.c.n_switches; i++) {
		const orrery_conf_switch_t &w = conf.c.switches[i];
		std::string what = cf + ": [switch." + w.name + "]";
		check(orrery_topology_set_uplink(t, w.name, w.uplink_mbps, w.uplink_mbps, &err),
		      err, what + " (not in " + o.topology + "?)");
		check(orrery_topology_set_uplink_links(t, w.name,
				w.uplink_links ? w.uplink_links : 1, &err), err, what);
	}
	if (conf.c.flows)
		check(orrery_topology_set_flows(t, conf.c.flows, &err), err, cf + ": flows");
	if (conf.c.node_link_mbps)
		orrery_topology_set_node_link(t, conf.c.node_link_mbps);
	s.node_link_mbps = orrery_topology_node_link(t);
	if (!o.orrery_conf.empty())
		s.rank_spread = (int)conf.c.rank_spread;
	s.default_profile = !o.default_profile.empty() ? o.default_profile
			  : conf.c.default_profile ? conf.c.default_profile : "";
	size_t leaves = 0, unknown = 0, ecmp = 0;
	for (size_t i = 0; i < orrery_topology_switch_count(t); i++) {
		leaves += orrery_topology_switch_level(t, i) == 0;
		if (orrery_topology_switch_parent(t, i) < 0)
			continue;
		unknown += orrery_topology_uplink_mbps(t, i) == 0;
		ecmp += orrery_topology_uplink_links(t, i) > 1;
	}
	s.description = o.topology + ": " + std::to_string(orrery_topology_node_count(t)) +
			" nodes, " + std::to_string(orrery_topology_switch_count(t)) +
			" switches (" + std::to_string(leaves) + " leaves), node link " +
			rate(s.node_link_mbps) + ", " + std::to_string(ecmp) +
			" uplinks with parallel links, " + std::to_string(unknown) +
			" without capacity (unconstrained), " +
			std::to_string(orrery_topology_flows(t)) + " flows per job per uplink";
	return s;
}

namespace {

std::vector<std::string> split_bar(const std::string &s)
{
	std::vector<std::string> out;
	size_t a = 0;
	for (;;) {
		size_t b = s.find('|', a);
		out.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
		if (b == std::string::npos)
			return out;
		a = b + 1;
	}
}

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

// sacct's time: YYYY-MM-DDTHH:MM:SS.  Returns false for Unknown/None/
// empty (not a time); throws via bad() on anything else malformed.
bool parse_time(const std::string &v, double &out, bool &malformed)
{
	malformed = false;
	if (v.empty() || v == "Unknown" || v == "None")
		return false;
	int y, mo, d, h, mi, s;
	char tail;
	if (std::sscanf(v.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi,
			&s, &tail) != 6 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h > 23 || mi > 59 || s > 60 || y < 1970 || h < 0 || mi < 0 || s < 0) {
		malformed = true;
		return false;
	}
	out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
		       h * 3600 + mi * 60 + s);
	return true;
}

std::string lower(std::string s)
{
	for (char &c : s)
		c = (char)std::tolower((unsigned char)c);
	return s;
}

}  // namespace

History read_sacct(std::istream &in, const std::string &name,
		   uint32_t fabric_nodes, const std::string &default_profile,
		   ProfileTable &profiles)
{
	History h;
	std::string line;
	size_t ln = 0;
	std::map<std::string, size_t> col;
	size_t ncols = 0;
	auto bad = [&](const std::string &what) {
		throw std::runtime_error(name + ":" + std::to_string(ln) + ": " + what);
	};
	struct Row {
		size_t line;
		std::string id, profile, nodelist;
		double submit, start, end;
		uint32_t nodes;
		bool from_record;
		double priority = 0, time_limit = 0;
	};
	std::vector<Row> rows;
	while (std::getline(in, line)) {
		ln++;
		if (line.size() > 65536)
			bad("line longer than 65536 bytes");
		if (!line.empty() && line.back() == '\r')
			line.pop_back();
		if (line.empty())
			continue;
		std::vector<std::string> f = split_bar(line);
		if (col.empty()) {
			for (size_t i = 0; i < f.size(); i++)
				col[lower(f[i])] = i;
			for (const char *need : {"jobid", "submit", "start", "end", "nnodes"})
				if (!col.count(need))
					bad(std::string("header: no column ") +
					    (need[0] == 'n' ? "NNodes" : need[0] == 'j' ? "JobID"
					     : need[0] == 's' && need[1] == 'u' ? "Submit"
					     : need[0] == 's' ? "Start" : "End") +
					    " (run sacct --parsable2 --format=JobID,Submit,Start,"
					    "End,NNodes,AdminComment; the header line is needed)");
			ncols = f.size();
			continue;
		}
		if (f.size() != ncols)
			bad(std::to_string(f.size()) + " fields, the header has " +
			    std::to_string(ncols));
		auto get = [&](const char *c) -> const std::string & {
			return f[col.at(c)];
		};
		const std::string &id = get("jobid");
		if (id.empty())
			bad("field JobID: empty");
		if (id.find('.') != std::string::npos) {
			h.steps++;  // a job step (123.batch, 123.0): not a job
			continue;
		}
		Row r{ln, id, "", col.count("nodelist") ? get("nodelist") : "", 0, 0, 0, 0, false};
		bool mal;
		if (!parse_time(get("submit"), r.submit, mal))
			bad("field Submit='" + get("submit") + "': " +
			    (mal ? "expected YYYY-MM-DDTHH:MM:SS" : "a job without a submit time"));
		bool started = parse_time(get("start"), r.start, mal);
		if (mal)
			bad("field Start='" + get("start") + "': expected YYYY-MM-DDTHH:MM:SS or Unknown");
		bool ended = parse_time(get("end"), r.end, mal);
		if (mal)
			bad("field End='" + get("end") + "': expected YYYY-MM-DDTHH:MM:SS or Unknown");
		const std::string &nn = get("nnodes");
		char *endp = nullptr;
		unsigned long long n = std::strtoull(nn.c_str(), &endp, 10);
		if (nn.empty() || *endp || !std::isdigit((unsigned char)nn[0]) || n > 1000000)
			bad("field NNodes='" + nn + "': expected a node count");
		r.nodes = (uint32_t)n;
		// The queue's inputs, when the columns are there: Priority
		// (the job's priority when it was recorded) and Timelimit.
		if (col.count("priority")) {
			const std::string &p = get("priority");
			unsigned long long pv = std::strtoull(p.c_str(), &endp, 10);
			if (p.empty() || *endp || !std::isdigit((unsigned char)p[0]) || pv > 4294967295ULL)
				bad("field Priority='" + p + "': expected an integer from 0 to 4294967295");
			r.priority = (double)pv;
		}
		if (col.count("timelimit")) {
			const std::string &tl = get("timelimit");
			if (tl != "Partition_Limit" && !tl.empty()) {
				r.time_limit = parse_slurm_time(tl);
				if (r.time_limit <= 0)
					bad("field Timelimit='" + tl + "': expected [D-]HH:MM:SS, "
					    "UNLIMITED or Partition_Limit");
			}
		}
		auto skip = [&](const std::string &why) {
			h.skipped.push_back(Skipped{ln, id, why});
		};
		if (!started) {
			skip("field Start=" + get("start") + ": never started");
			continue;
		}
		if (!ended) {
			skip("field End=" + get("end") + ": not ended (running?)");
			continue;
		}
		if (r.end < r.start || r.start < r.submit) {
			skip("fields Submit/Start/End: not in order");
			continue;
		}
		if (r.nodes == 0) {
			skip("field NNodes=0: no nodes");
			continue;
		}
		if (r.nodes > fabric_nodes) {
			skip("field NNodes=" + nn + ": larger than the fabric (" +
			     std::to_string(fabric_nodes) + " nodes)");
			continue;
		}
		if (col.count("admincomment")) {
			orrery_admin_record_t rec;
			std::memset(&rec, 0, sizeof rec);
			int prc = orrery_admin_record_parse(get("admincomment").c_str(), &rec);
			if (prc < 0) {
				skip("field AdminComment: malformed ORR1: record");
				continue;
			}
			if (prc == 1) {
				// The profile the job asked for, resolved again for
				// its shape on this fabric; else the resolved one.
				const char *p = rec.requested && *rec.requested ? rec.requested
											: rec.profile;
				if (p && *p) {
					r.profile = p;
					r.from_record = true;
				}
				orrery_admin_record_clear(&rec);
			}
		}
		if (r.profile.empty())
			r.profile = default_profile;
		rows.push_back(std::move(r));
	}
	if (col.empty())
		throw std::runtime_error(name + ": empty (no header line)");
	if (rows.empty())
		throw std::runtime_error(name + ": no job to replay (" +
					 std::to_string(h.skipped.size()) + " skipped, " +
					 std::to_string(h.steps) + " job steps)");
	double t0 = rows[0].submit, t1 = 0;
	for (const Row &r : rows) {
		t0 = std::min(t0, r.submit);
		t1 = std::max(t1, r.end);
	}
	h.span_s = t1 - t0;
	for (const Row &r : rows) {
		JobSpec j;
		j.id = (uint32_t)h.jobs.size();
		j.arrival = r.submit - t0;
		j.nodes = r.nodes;
		j.priority = r.priority;
		j.time_limit = r.time_limit;
		const double run = std::max(1.0, r.end - r.start);
		if (!r.profile.empty()) {
			try {
				j.profile_index = profiles.resolve(r.profile, r.nodes);
			} catch (const std::exception &e) {
				h.skipped.push_back(Skipped{r.line, r.id, std::string(
					r.from_record ? "field AdminComment" : "default profile") +
					": " + e.what()});
				continue;
			}
			j.profile = r.profile;
			j.pattern = profiles.pattern(j.profile_index);
			double it = j.pattern.iteration_time();
			j.iterations = (uint64_t)std::max(1.0, std::round(run / it));
			(r.from_record ? h.with_record : h.with_default)++;
		} else {
			// No profile: the job holds its nodes for its run and
			// sends nothing orrery knows of.
			j.pattern.period = run;
			j.iterations = 1;
			h.no_profile++;
		}
		h.job_ids.push_back(r.id);
		h.start_s.push_back(r.start - t0);
		h.end_s.push_back(r.end - t0);
		h.node_list.push_back(r.nodelist);
		h.jobs.push_back(std::move(j));
	}
	std::sort(h.skipped.begin(), h.skipped.end(),
		  [](const Skipped &a, const Skipped &b) { return a.line < b.line; });
	return h;
}

}  // namespace sim

namespace sim {

namespace {

void add_host(const char *host, void *ctx)
{
	static_cast<std::vector<std::string> *>(ctx)->push_back(host);
}

std::string leaves_of(const orrery_topology_t *t, const std::vector<uint32_t> &nodes)
{
	std::vector<std::string> l;
	for (uint32_t n : nodes)
		l.push_back(orrery_topology_switch_name(t, (size_t)orrery_topology_node_leaf(t, n)));
	std::sort(l.begin(), l.end());
	l.erase(std::unique(l.begin(), l.end()), l.end());
	std::string s;
	for (const std::string &x : l)
		s += (s.empty() ? "" : ",") + x;
	return s;
}

std::string names(const orrery_topology_t *t, const std::vector<uint32_t> &nodes)
{
	std::vector<const char *> v;
	for (uint32_t n : nodes)
		v.push_back(orrery_topology_node_name(t, n));
	char *c = hostlist_slurm_compress(v.data(), v.size());
	std::string s = c ? c : "?";
	free(c);
	return s;
}

}  // namespace

Fidelity placement_fidelity(const std::string &policy, Policy &p,
			    const orrery_topology_t *t, const History &h,
			    const std::string &file, FILE *out)
{
	const size_t nn = orrery_topology_node_count(t);
	std::vector<size_t> order(h.jobs.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		return h.start_s[a] < h.start_s[b];
	});
	std::vector<std::vector<uint32_t>> rec(h.jobs.size());
	for (size_t i = 0; i < h.jobs.size(); i++) {
		std::vector<std::string> hosts;
		if (h.node_list[i].empty() ||
		    hostlist_slurm_expand(h.node_list[i].c_str(), nullptr, add_host, &hosts))
			throw std::runtime_error(file + ": job " + h.job_ids[i] +
						 ": field NodeList='" + h.node_list[i] +
						 "': not a hostlist");
		for (const std::string &x : hosts) {
			long n = orrery_topology_node_index(t, x.c_str());
			if (n < 0)
				throw std::runtime_error(file + ": job " + h.job_ids[i] +
							 ": field NodeList: node '" + x +
							 "' is not in the topology");
			rec[i].push_back((uint32_t)n);
		}
		std::sort(rec[i].begin(), rec[i].end());
	}
	Fidelity f;
	std::vector<uint8_t> free(nn, 1);
	std::vector<size_t> running;
	for (size_t i : order) {
		const double now = h.start_s[i];
		// Jobs that ended by now give their nodes back first (Slurm
		// starts a job in the cycle after the end that made room).
		for (size_t k = 0; k < running.size();) {
			size_t j = running[k];
			if (h.end_s[j] <= now) {
				for (uint32_t n : rec[j])
					free[n] = 1;
				p.ended(h.jobs[j]);
				running[k] = running.back();
				running.pop_back();
			} else {
				k++;
			}
		}
		f.total++;
		bool overlap = false;
		for (uint32_t n : rec[i])
			overlap |= !free[n];
		Placement pl;
		bool placed = p.place(free, h.jobs[i], now, pl);
		std::vector<uint32_t> mine = pl.nodes;
		std::sort(mine.begin(), mine.end());
		if (placed && mine == rec[i]) {
			f.matched++;
		} else {
			std::string cause;
			if (overlap)
				cause = "the recorded nodes were still held by a job whose End is "
					"not before this Start (1 s timestamps)";
			else if (!placed)
				cause = "the policy found no room";
			else if (leaves_of(t, mine) != leaves_of(t, rec[i]))
				cause = "different leaf switches: " + leaves_of(t, rec[i]) +
					" recorded, " + leaves_of(t, mine) + " chosen";
			else
				cause = "same leaf switches (" + leaves_of(t, mine) +
					"), other nodes in them";
			std::fprintf(out, "fidelity: %s: job %s (%u nodes): recorded %s, %s %s: %s\n",
				     policy.c_str(), h.job_ids[i].c_str(), h.jobs[i].nodes,
				     names(t, rec[i]).c_str(), policy.c_str(),
				     placed ? names(t, mine).c_str() : "none", cause.c_str());
		}
		// What ran is what Slurm chose.
		for (uint32_t n : rec[i])
			free[n] = 0;
		Placement real = pl;
		real.nodes = rec[i];
		p.started(h.jobs[i], real, now);
		std::vector<GateChange> ch;
		p.gate_changes(ch);
		running.push_back(i);
	}
	return f;
}

void print_start_fidelity(const Report &rep, const History &h, FILE *out)
{
	if (rep.seeds.empty() || h.start_s.size() != h.jobs.size())
		return;
	std::fprintf(out, "\nstart times against the history, seed %llu: |simulated start - "
		     "recorded start| over %zu jobs\n",
		     (unsigned long long)rep.seeds[0], h.jobs.size());
	// A history that held more nodes at once than the fabric has cannot
	// be this fabric's: no queue model will start its jobs on time.
	std::vector<std::pair<double, long>> ev;
	for (size_t i = 0; i < h.jobs.size(); i++) {
		ev.emplace_back(h.start_s[i], (long)h.jobs[i].nodes);
		ev.emplace_back(h.end_s[i], -(long)h.jobs[i].nodes);
	}
	std::sort(ev.begin(), ev.end());  // ends before starts at one instant
	long busy = 0, peak = 0;
	for (const auto &e : ev)
		peak = std::max(peak, busy += e.second);
	if (rep.fabric && peak > (long)rep.fabric->nodes())
		std::fprintf(out, "note: the history held up to %ld nodes at once, the "
			     "topology has %zu: the replay cannot follow its start times\n",
			     peak, rep.fabric->nodes());
	std::fprintf(out, "%-13s %-10s %-10s %-14s %-14s %s\n", "policy", "median", "p90",
		     "within 10 s", "within 60 s", "same order");
	std::string line = "start fidelity:";
	for (const std::string &p : rep.policies) {
		const RunSummary *r = rep.find(p, rep.seeds[0]);
		if (!r)
			continue;
		std::vector<double> d;
		size_t in10 = 0, in60 = 0;
		for (const JobResult &j : r->results) {
			if (j.id >= h.start_s.size())
				continue;
			double x = std::fabs(j.start - h.start_s[j.id]);
			d.push_back(x);
			in10 += x <= 10;
			in60 += x <= 60;
		}
		if (d.empty())
			continue;
		// Start order: of the job pairs the history started at
		// different times (sacct: 1 s apart or more), the share the
		// replay started in the same order (a tie counts half).  Slurm's
		// latencies shift every start; they do not reorder them.
		std::string order = "-";
		const auto &res = r->results;
		if (res.size() <= 20000) {
			double agree = 0, pairs = 0;
			for (size_t a = 0; a < res.size(); a++) {
				if (res[a].id >= h.start_s.size())
					continue;
				for (size_t b = a + 1; b < res.size(); b++) {
					if (res[b].id >= h.start_s.size())
						continue;
					double rec = h.start_s[res[a].id] - h.start_s[res[b].id];
					if (std::fabs(rec) < 1)
						continue;
					double sim = res[a].start - res[b].start;
					pairs++;
					agree += std::fabs(sim) < 1e-9 ? 0.5 : (sim > 0) == (rec > 0);
				}
			}
			if (pairs > 0) {
				char buf[32];
				std::snprintf(buf, sizeof buf, "%.3f", agree / pairs);
				order = buf;
			}
		}
		std::fprintf(out, "%-13s %-10s %-10s %-14s %-14s %s\n", p.c_str(),
			     (std::to_string((long)std::lround(percentile(d, 50))) + " s").c_str(),
			     (std::to_string((long)std::lround(percentile(d, 90))) + " s").c_str(),
			     (std::to_string(in10) + "/" + std::to_string(d.size())).c_str(),
			     (std::to_string(in60) + "/" + std::to_string(d.size())).c_str(),
			     order.c_str());
		line += (line.size() > 15 ? ", " : " ") + p + " " + std::to_string(in10) + "/" +
			std::to_string(d.size()) + " within 10 s, same order " + order;
	}
	std::fprintf(out, "%s\n", line.c_str());
}

}  // namespace sim
