#include "workload.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <istream>
#include <ostream>
#include <stdexcept>

#include "bridge.hpp"
#include "policies.hpp"
#include "queue.hpp"

namespace sim {

namespace {

std::string trim(const std::string &s)
{
	size_t a = s.find_first_not_of(" \t\r");
	if (a == std::string::npos)
		return "";
	size_t b = s.find_last_not_of(" \t\r");
	return s.substr(a, b - a + 1);
}

std::vector<std::string> split_csv(const std::string &line, bool &ok)
{
	std::vector<std::string> out;
	std::string cur;
	bool q = false;
	ok = true;
	for (size_t i = 0; i < line.size(); i++) {
		char c = line[i];
		if (q) {
			if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
				cur += '"';
				i++;
			} else if (c == '"') {
				q = false;
			} else {
				cur += c;
			}
		} else if (c == '"') {
			q = true;
		} else if (c == ',') {
			out.push_back(trim(cur));
			cur.clear();
		} else {
			cur += c;
		}
	}
	if (q)
		ok = false;
	out.push_back(trim(cur));
	return out;
}

double parse_num(const std::string &s, const std::string &where)
{
	errno = 0;
	char *end = nullptr;
	double v = std::strtod(s.c_str(), &end);
	if (s.empty() || *end || errno || !std::isfinite(v))
		throw std::runtime_error(where + ": '" + s + "' is not a number");
	return v;
}

}  // namespace

std::vector<TraceRow> read_trace(std::istream &in, const std::string &name)
{
	std::vector<TraceRow> rows;
	std::string line;
	size_t lineno = 0;
	bool header_seen = false;
	while (std::getline(in, line)) {
		lineno++;
		const std::string where = name + ":" + std::to_string(lineno);
		if (line.size() > kTraceMaxLine)
			throw std::runtime_error(where + ": line longer than " +
						 std::to_string(kTraceMaxLine) +
						 " bytes");
		std::string t = trim(line);
		if (t.empty() || t[0] == '#')
			continue;
		if (!header_seen && rows.empty() && t.rfind("arrival", 0) == 0) {
			header_seen = true;
			continue;
		}
		bool ok;
		auto f = split_csv(t, ok);
		if (!ok)
			throw std::runtime_error(where + ": unterminated quote");
		if (f.size() < 4 || f.size() > 8)
			throw std::runtime_error(
				where + ": expected 4 to 8 fields (arrival_s,nodes,profile,"
					"iterations[,at[,priority[,time_limit[,switches]]]]), got " +
				std::to_string(f.size()) +
				" (quote a profile that contains commas)");
		TraceRow r;
		r.arrival = parse_num(f[0], where + ": arrival_s");
		if (r.arrival < 0)
			throw std::runtime_error(where + ": arrival_s must be >= 0");
		double n = parse_num(f[1], where + ": nodes");
		if (n < 1 || n > 1e6 || n != std::floor(n))
			throw std::runtime_error(where + ": nodes must be an integer "
							 "in 1..1000000");
		r.nodes = (uint32_t)n;
		if (f[2].empty())
			throw std::runtime_error(where + ": empty profile");
		r.profile = f[2];
		double it = parse_num(f[3], where + ": iterations");
		if (it < 1 || it > (double)kTraceMaxIterations || it != std::floor(it))
			throw std::runtime_error(where + ": iterations must be an "
							 "integer in 1..1e9");
		r.iterations = (uint64_t)it;
		if (f.size() >= 6 && !f[5].empty()) {
			r.priority = parse_num(f[5], where + ": priority");
			if (r.priority < 0 || r.priority > 4294967295.0)
				throw std::runtime_error(where + ": priority must be in 0..4294967295");
		}
		if (f.size() >= 7 && !f[6].empty()) {
			r.time_limit = parse_slurm_time(f[6]);
			if (r.time_limit <= 0)
				throw std::runtime_error(where + ": time_limit: '" + f[6] +
							 "': a Slurm time (minutes, MM:SS, HH:MM:SS, "
							 "D-HH[:MM[:SS]]) above 0, or UNLIMITED");
		}
		if (f.size() >= 8 && !f[7].empty())
			parse_switches(f[7], where, r.switches, r.switch_wait);
		if (f.size() >= 5 && !trim(f[4]).empty()) {
			// at: the job's nodes, 0-based fabric indices joined by
			// '+' (0+3); the policy then only sets the gate.
			std::string a = trim(f[4]);
			size_t pos = 0;
			while (pos <= a.size()) {
				size_t e = a.find('+', pos);
				if (e == std::string::npos)
					e = a.size();
				double v = parse_num(a.substr(pos, e - pos), where + ": at");
				if (v < 0 || v > 1e6 || v != std::floor(v))
					throw std::runtime_error(where + ": at: '" + a +
								 "': node indices (0-based) joined by '+'");
				r.at.push_back((uint32_t)v);
				pos = e + 1;
			}
			std::sort(r.at.begin(), r.at.end());
			if (r.at.size() != r.nodes ||
			    std::adjacent_find(r.at.begin(), r.at.end()) != r.at.end())
				throw std::runtime_error(where + ": at: '" + a + "': " +
							 std::to_string(r.nodes) +
							 " distinct node indices needed (the nodes field)");
		}
		if (rows.size() >= kTraceMaxRows)
			throw std::runtime_error(where + ": more than " +
						 std::to_string(kTraceMaxRows) +
						 " jobs");
		rows.push_back(std::move(r));
	}
	return rows;
}

void write_trace(std::ostream &out, const std::vector<TraceRow> &rows)
{
	out << "arrival_s,nodes,profile,iterations\n";
	char buf[64];
	for (const TraceRow &r : rows) {
		std::snprintf(buf, sizeof buf, "%.3f", r.arrival);
		out << buf << ',' << r.nodes << ",\"" << r.profile << "\","
		    << r.iterations << '\n';
	}
}

std::vector<Weighted> parse_mix(const std::string &s, const std::string &what)
{
	std::vector<Weighted> out;
	size_t a = 0;
	while (a <= s.size()) {
		size_t b = s.find(',', a);
		if (b == std::string::npos)
			b = s.size();
		std::string item = trim(s.substr(a, b - a));
		a = b + 1;
		if (item.empty())
			continue;
		Weighted w{item, 1.0};
		size_t c = item.rfind(':');
		if (c != std::string::npos) {
			char *end = nullptr;
			std::string num = item.substr(c + 1);
			double v = std::strtod(num.c_str(), &end);
			if (!num.empty() && !*end) {
				if (!(v > 0) || !std::isfinite(v))
					throw std::runtime_error(what + ": weight of '" +
								 item + "' must be > 0");
				w.value = item.substr(0, c);
				w.weight = v;
			}
		}
		out.push_back(w);
	}
	if (out.empty())
		throw std::runtime_error(what + ": empty mix");
	return out;
}

namespace {

size_t pick(Rng &rng, const std::vector<Weighted> &mix)
{
	double tot = 0;
	for (const Weighted &w : mix)
		tot += w.weight;
	double x = rng.uniform() * tot;
	for (size_t i = 0; i < mix.size(); i++) {
		if (x < mix[i].weight)
			return i;
		x -= mix[i].weight;
	}
	return mix.size() - 1;
}

}  // namespace

std::vector<TraceRow> generate(const GeneratorOptions &o, uint32_t cluster_nodes,
			       ProfileTable &profiles)
{
	if (!(o.load > 0) || !(o.horizon_s > 0) || !(o.min_duration_s > 0) ||
	    o.max_duration_s < o.min_duration_s)
		throw std::runtime_error("generator: load, horizon and durations "
					 "must be positive, min <= max");
	double mean_nodes = 0, wsum = 0;
	for (const Weighted &w : o.sizes) {
		double n = std::strtod(w.value.c_str(), nullptr);
		if (n < 1 || n > cluster_nodes)
			throw std::runtime_error("generator: job size '" + w.value +
						 "' not in 1.." +
						 std::to_string(cluster_nodes));
		mean_nodes += n * w.weight;
		wsum += w.weight;
	}
	mean_nodes /= wsum;
	const double lo = o.min_duration_s, hi = o.max_duration_s;
	const double mean_dur = hi > lo ? (hi - lo) / std::log(hi / lo) : lo;
	// Poisson arrivals: rate such that offered node-seconds per second is
	// load * cluster_nodes.
	const double lambda = o.load * cluster_nodes / (mean_nodes * mean_dur);
	Rng rng(o.seed * 0x9e3779b97f4a7c15ULL + 12345);
	std::vector<TraceRow> rows;
	double t = 0;
	for (;;) {
		t += -std::log(1.0 - rng.uniform()) / lambda;
		if (t >= o.horizon_s)
			break;
		TraceRow r;
		r.arrival = std::round(t * 1000) / 1000;
		r.nodes = (uint32_t)std::strtoul(o.sizes[pick(rng, o.sizes)].value.c_str(),
						 nullptr, 10);
		r.profile = o.models[pick(rng, o.models)].value;
		double dur = lo * std::exp(rng.uniform() * std::log(hi / lo));
		double it = profiles.pattern(profiles.resolve(r.profile, r.nodes))
				    .iteration_time();
		r.iterations = (uint64_t)std::max(1.0, std::round(dur / it));
		rows.push_back(std::move(r));
		if (rows.size() >= kTraceMaxRows)
			throw std::runtime_error("generator: more than " +
						 std::to_string(kTraceMaxRows) +
						 " jobs; lower the load or horizon");
	}
	return rows;
}

std::vector<JobSpec> make_jobs(const std::vector<TraceRow> &rows,
			       ProfileTable &profiles)
{
	std::vector<JobSpec> jobs;
	jobs.reserve(rows.size());
	for (size_t i = 0; i < rows.size(); i++) {
		JobSpec j;
		j.id = (uint32_t)i;
		j.arrival = rows[i].arrival;
		j.nodes = rows[i].nodes;
		j.iterations = rows[i].iterations;
		j.profile = rows[i].profile;
		j.at = rows[i].at;
		j.priority = rows[i].priority;
		j.time_limit = rows[i].time_limit;
		j.switches = rows[i].switches;
		j.switch_wait = rows[i].switch_wait;
		try {
			j.profile_index = profiles.resolve(j.profile, j.nodes);
		} catch (const std::exception &e) {
			throw std::runtime_error("job " + std::to_string(i + 1) +
						 ": " + e.what());
		}
		j.pattern = profiles.pattern(j.profile_index);
		jobs.push_back(std::move(j));
	}
	return jobs;
}

void perturb_compute(std::vector<JobSpec> &jobs, double error, uint64_t seed)
{
	if (error <= 0)
		return;
	for (JobSpec &j : jobs) {
		Pattern &p = j.pattern;
		if (p.phases.empty())
			continue;
		Rng rng(seed * 0x2545f4914f6cdd1dULL + 0x51ed27ULL * (j.id + 1));
		const double f = 1 - error + 2 * error * rng.uniform();
		j.gate_offset = p.phases[0].offset;
		// As iteration_time() runs them: each phase at its offset or
		// after the previous one; the gaps before them and the tail
		// are compute.
		double t = 0, t2 = 0;
		for (Phase &ph : p.phases) {
			const double gap = std::max(0.0, ph.offset - t);
			t = std::max(t, ph.offset) + ph.duration;
			t2 += f * gap;
			ph.offset = t2;
			t2 += ph.duration;
		}
		p.period = t2 + f * std::max(0.0, p.period - t);
	}
}

Scenario scenario(const std::string &name)
{
	Scenario s;
	s.name = name;
	// CASSINI's 13 models, as named in liborrery's catalogue.
	std::string models = "vgg11,vgg16,vgg19,resnet50,wideresnet101-2,"
			     "bert-base,roberta-base,xlm,camembert,gpt1,gpt2,"
			     "gpt3-xl,dlrm";
	if (name == "testbed") {
		// CASSINI's scale: 24 single-GPU servers at 50 Gb/s, in 6 racks
		// of 4 whose uplinks are 4:1 oversubscribed (50 Gb/s: a ring
		// crossing a rack uplink carries one NIC's rate, so two jobs
		// crossing the same uplink already contend).
		s.fabric.tiers = 2;
		s.fabric.nodes_per_leaf = 4;
		s.fabric.leaves = 6;
		s.fabric.node_link_mbps = 50000;
		s.fabric.oversub_leaf = 4.0;
		s.fabric.oversub_pod = 1.0;
		s.gpus_per_node = 1;
		s.gen.sizes = parse_mix("1:10,2:30,3:20,4:20,6:10,8:10", "sizes");
		s.gen.horizon_s = 12 * 3600;
		s.gen.min_duration_s = 600;
		s.gen.max_duration_s = 3 * 3600;
		s.description = "24 servers x 1 GPU, 50 Gb/s NICs, 6 racks of 4, "
				"rack uplinks 50 Gb/s (4:1)";
	} else if (name == "large") {
		// 1,024 GPUs: 256 servers x 4 GPUs at 100 Gb/s; 16 racks of 16
		// (uplink 400 Gb/s, 4:1: four crossing rings fill it), 4 pods of
		// 4 racks (pod uplink 800 Gb/s, another 2:1).
		s.fabric.tiers = 3;
		s.fabric.nodes_per_leaf = 16;
		s.fabric.leaves = 16;
		s.fabric.leaves_per_pod = 4;
		s.fabric.node_link_mbps = 100000;
		s.fabric.oversub_leaf = 4.0;
		s.fabric.oversub_pod = 2.0;
		s.gpus_per_node = 4;
		s.gen.sizes = parse_mix("1:30,2:20,4:20,8:15,16:10,32:5", "sizes");
		s.gen.horizon_s = 7 * 86400;
		s.gen.min_duration_s = 900;
		s.gen.max_duration_s = 8 * 3600;
		s.description = "256 servers x 4 GPUs (1,024 GPUs), 100 Gb/s NICs, "
				"16 racks of 16 (uplink 400 Gb/s, 4:1), 4 pods of 4 "
				"racks (uplink 800 Gb/s, 2:1)";
	} else if (name == "clos-ecmp") {
		// Crux's cluster (production.md): 2,000+ GPUs on a Clos whose
		// leaf uplinks are non-blocking in aggregate; contention comes
		// from ECMP collisions of few large flows.  256 servers x 8 GPUs
		// (2,048 GPUs), 8 NICs of 400 Gb/s per server (modelled as one
		// 3.2 Tb/s node link: a ring crossing a leaf uplink runs on all
		// eight rails), 32 racks of 8; each leaf uplink is 64 parallel
		// links of 400 Gb/s (25.6 Tb/s = the rack's NICs, 1:1).  A ring
		// crossing it sends 8 flows of 400 Gb/s (one channel per NIC,
		// one queue pair per connection), hashed onto the 64 links: two
		// on one link halve that ring.  Over 10% of jobs >= 128 GPUs,
		// the largest 512.
		s.fabric.tiers = 2;
		s.fabric.nodes_per_leaf = 8;
		s.fabric.leaves = 32;
		s.fabric.node_link_mbps = 3200000;
		s.fabric.oversub_leaf = 1.0;
		s.fabric.oversub_pod = 1.0;
		s.gpus_per_node = 8;
		s.leaf_links = 64;
		s.flows = 8;
		s.gen.sizes = parse_mix("1:30,2:20,4:20,8:15,16:10,32:4,64:1", "sizes");
		s.gen.horizon_s = 2 * 86400;
		s.gen.min_duration_s = 900;
		s.gen.max_duration_s = 8 * 3600;
		s.description = "256 servers x 8 GPUs (2,048 GPUs), 8 x 400 Gb/s "
				"NICs per server, 32 racks of 8, leaf uplinks 64 x "
				"400 Gb/s ECMP (1:1), 8 flows per ring crossing";
	} else {
		throw std::runtime_error("unknown scenario '" + name +
					 "' (testbed, large or clos-ecmp)");
	}
	s.fabric.node_prefix = "node";
	if (name == "large" || name == "clos-ecmp") {
		// Without dlrm: its 7-11 ms iterations cost more events than
		// all other models together (see orrery-sim(1), LIMITS); the
		// testbed keeps it.
		models = "vgg11,vgg16,vgg19,resnet50,wideresnet101-2,bert-base,"
			 "roberta-base,xlm,camembert,gpt1,gpt2,gpt3-xl,"
			 "bert-large,gpt2-xl";
	}
	s.gen.models = parse_mix(models, "models");
	return s;
}

}  // namespace sim
