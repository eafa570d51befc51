#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

namespace sim {

double percentile(std::vector<double> v, double p)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	size_t k = (size_t)std::ceil(p / 100.0 * (double)v.size());
	k = std::min(std::max<size_t>(k, 1), v.size());
	return v[k - 1];
}

RunSummary summarize(const std::string &policy, uint64_t seed,
		     std::vector<JobResult> results, const SimStats &st)
{
	RunSummary s;
	s.policy = policy;
	s.seed = seed;
	std::vector<double> jct, jm;
	double sd = 0;
	for (const JobResult &r : results) {
		jct.push_back(r.jct());
		if (r.nodes > 1)
			jm.push_back(r.jct());
		sd += r.slowdown();
	}
	s.jobs = jct.size();
	s.multi = jm.size();
	auto mean = [](const std::vector<double> &v) {
		double t = 0;
		for (double x : v)
			t += x;
		return v.empty() ? 0.0 : t / (double)v.size();
	};
	s.avg = mean(jct);
	s.p50 = percentile(jct, 50);
	s.p95 = percentile(jct, 95);
	s.p99 = percentile(jct, 99);
	s.avg_multi = mean(jm);
	s.p99_multi = percentile(jm, 99);
	s.mean_slowdown = s.jobs ? sd / (double)s.jobs : 0;
	s.makespan = st.makespan;
	s.over_link_s = st.over_link_s;
	s.over_bytes = st.over_bytes;
	s.stats = st;
	s.results = std::move(results);
	return s;
}

const RunSummary *Report::find(const std::string &policy, uint64_t seed) const
{
	for (const RunSummary &r : runs)
		if (r.policy == policy && r.seed == seed)
			return &r;
	return nullptr;
}

namespace {

struct Agg {
	double min = 0, med = 0, max = 0;
	bool ok = false;
};

Agg agg(std::vector<double> v)
{
	Agg a;
	if (v.empty())
		return a;
	std::sort(v.begin(), v.end());
	a.min = v.front();
	a.max = v.back();
	size_t n = v.size();
	a.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	a.ok = true;
	return a;
}

using Getter = double (*)(const RunSummary &);

const struct Metric {
	const char *name;
	Getter get;
} kMetrics[] = {
	{"avg_jct", [](const RunSummary &r) { return r.avg; }},
	{"p50_jct", [](const RunSummary &r) { return r.p50; }},
	{"p95_jct", [](const RunSummary &r) { return r.p95; }},
	{"p99_jct", [](const RunSummary &r) { return r.p99; }},
	{"avg_jct_multi", [](const RunSummary &r) { return r.avg_multi; }},
	{"p99_jct_multi", [](const RunSummary &r) { return r.p99_multi; }},
	{"makespan", [](const RunSummary &r) { return r.makespan; }},
	{"mean_slowdown", [](const RunSummary &r) { return r.mean_slowdown; }},
};

// Per-seed ratio of a metric against a reference policy.
Agg ratio(const Report &rep, const std::string &pol, const std::string &ref,
	  Getter g)
{
	std::vector<double> v;
	for (uint64_t s : rep.seeds) {
		const RunSummary *a = rep.find(pol, s), *b = rep.find(ref, s);
		if (a && b && g(*b) > 0)
			v.push_back(g(*a) / g(*b));
	}
	return agg(v);
}

Agg over(const Report &rep, const std::string &pol, Getter g)
{
	std::vector<double> v;
	for (uint64_t s : rep.seeds)
		if (const RunSummary *a = rep.find(pol, s))
			v.push_back(g(*a));
	return agg(v);
}

std::string fmt(const Agg &a, const char *f, bool range)
{
	if (!a.ok)
		return "-";
	char b[96];
	std::snprintf(b, sizeof b, f, a.med);
	std::string s = b;
	if (range && a.min != a.max) {
		char c[96], d[96];
		std::snprintf(c, sizeof c, f, a.min);
		std::snprintf(d, sizeof d, f, a.max);
		s += std::string(" [") + c + "-" + d + "]";
	}
	return s;
}

}  // namespace

void Report::print_table(FILE *out) const
{
	const bool range = seeds.size() > 1;
	std::fprintf(out, "\n== %s (%zu seed%s; median [min-max] over seeds)\n",
		     title.c_str(), seeds.size(), seeds.size() > 1 ? "s" : "");
	if (!runs.empty()) {
		const RunSummary &r0 = runs.front();
		std::fprintf(out, "jobs per seed: %zu (%zu multi-node, %zu "
			     "single-node) in seed %llu\n",
			     r0.jobs, r0.multi, r0.jobs - r0.multi,
			     (unsigned long long)r0.seed);
	}
	std::fprintf(out, "\nJCT in seconds, all jobs\n");
	std::fprintf(out, "%-13s %-24s %-22s %-22s %-24s %-22s\n", "policy",
		     "avg", "p50", "p95", "p99", "makespan");
	for (const std::string &p : policies)
		std::fprintf(out, "%-13s %-24s %-22s %-22s %-24s %-22s\n",
			     p.c_str(), fmt(over(*this, p, kMetrics[0].get), "%.0f", range).c_str(),
			     fmt(over(*this, p, kMetrics[1].get), "%.0f", range).c_str(),
			     fmt(over(*this, p, kMetrics[2].get), "%.0f", range).c_str(),
			     fmt(over(*this, p, kMetrics[3].get), "%.0f", range).c_str(),
			     fmt(over(*this, p, kMetrics[6].get), "%.0f", range).c_str());
	for (const char *ref : {"ideal", "default"}) {
		if (std::find(policies.begin(), policies.end(), ref) == policies.end())
			continue;
		std::fprintf(out, "\nratio to %s (per seed, then median [min-max]; "
			     "< 1 is better)\n", ref);
		std::fprintf(out, "%-13s %-20s %-20s %-20s %-20s %-20s %-20s\n",
			     "policy", "avg", "p50", "p95", "p99", "avg multi",
			     "p99 multi");
		for (const std::string &p : policies)
			std::fprintf(out, "%-13s %-20s %-20s %-20s %-20s %-20s %-20s\n",
				     p.c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[0].get), "%.3f", range).c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[1].get), "%.3f", range).c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[2].get), "%.3f", range).c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[3].get), "%.3f", range).c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[4].get), "%.3f", range).c_str(),
				     fmt(ratio(*this, p, ref, kMetrics[5].get), "%.3f", range).c_str());
	}
	std::fprintf(out, "\ncongestion proxy (fluid model: no queues, no ECN): "
		     "link-seconds with offered load above capacity, and bytes "
		     "carried on such links meanwhile\n");
	std::fprintf(out, "%-13s %-26s %-26s %-18s %-14s %-12s\n", "policy",
		     "link-s over capacity", "GB sent while over",
		     "mean slowdown", "events", "sim-s/wall-s");
	for (const std::string &p : policies) {
		Agg ev = over(*this, p, [](const RunSummary &r) {
			return (double)r.stats.events;
		});
		Agg sp = over(*this, p, [](const RunSummary &r) {
			return r.stats.sim_s / std::max(r.stats.wall_s, 1e-9);
		});
		std::fprintf(out, "%-13s %-26s %-26s %-18s %-14s %-12s\n", p.c_str(),
			     fmt(over(*this, p, [](const RunSummary &r) { return r.over_link_s; }), "%.0f", range).c_str(),
			     fmt(over(*this, p, [](const RunSummary &r) { return r.over_bytes / 1e9; }), "%.0f", range).c_str(),
			     fmt(over(*this, p, kMetrics[7].get), "%.3f", range).c_str(),
			     fmt(ev, "%.3g", false).c_str(), fmt(sp, "%.3g", false).c_str());
	}
}

static std::string link_name(const Fabric &f, uint32_t l)
{
	uint32_t s = f.switch_of(l);
	std::string n = f.name[s];
	if (f.links_of(s) > 1)
		n += "#" + std::to_string(l < f.switches() ? 0 : l - f.extra[s] + 1);
	return n;
}

void Report::print_links(FILE *out) const
{
	if (!fabric || seeds.empty())
		return;
	std::fprintf(out, "\nlinks over capacity (offered load above capacity), "
		     "seed %llu: link, seconds over%s\n",
		     (unsigned long long)seeds[0],
		     fabric->links.empty() ? "" : " (leafN#i: parallel link i of leafN's uplink)");
	for (const std::string &p : policies) {
		const RunSummary *r = find(p, seeds[0]);
		if (!r)
			continue;
		std::vector<std::pair<double, uint32_t>> v;
		for (uint32_t l = 0; l < r->stats.link_over_s.size(); l++)
			if (r->stats.link_over_s[l] > 0)
				v.emplace_back(-r->stats.link_over_s[l], l);
		std::sort(v.begin(), v.end());
		std::fprintf(out, "%-13s %zu links over", p.c_str(), v.size());
		for (size_t i = 0; i < v.size() && i < top_links; i++)
			std::fprintf(out, "%s %s %.0f s", i ? "," : ":",
				     link_name(*fabric, v[i].second).c_str(), -v[i].first);
		if (v.size() > top_links)
			std::fprintf(out, ", ... (%zu more)", v.size() - top_links);
		std::fprintf(out, "\n");
	}
}

bool Report::write_files(const std::string &dir) const
{
	auto open = [&](const std::string &name) {
		std::ofstream f(dir + "/" + name);
		if (!f)
			throw std::runtime_error("cannot write " + dir + "/" + name);
		return f;
	};
	if (fabric) {
		auto f = open("links-over.csv");
		f << "policy,seed,link,switch,over_s\n";
		for (const RunSummary &r : runs)
			for (uint32_t l = 0; l < r.stats.link_over_s.size(); l++)
				if (r.stats.link_over_s[l] > 0)
					f << r.policy << ',' << r.seed << ',' << link_name(*fabric, l)
					  << ',' << fabric->name[fabric->switch_of(l)] << ','
					  << r.stats.link_over_s[l] << '\n';
	}
	for (const RunSummary &r : runs) {
		auto f = open("jobs-" + r.policy + "-s" + std::to_string(r.seed) + ".csv");
		f << "id,nodes,arrival_s,start_s,finish_s,jct_s,isolated_s,slowdown,"
		     "links,gated,shift_s,gate_period_s,gate_wait_s,gate_missed,"
		     "gate_disabled,ever_gated,gate_reanchored,gate_disables,"
		     "gate_rearmed,realigned,learned,iter_min_s,iter_range_s\n";
		char b[320];
		for (const JobResult &j : r.results) {
			std::snprintf(b, sizeof b,
				      "%u,%u,%.3f,%.3f,%.3f,%.3f,%.3f,%.5f,%u,%d,%.6f,%.6f,"
				      "%.3f,%llu,%d,%d,%llu,%llu,%llu,%u,%u,%.6f,%.6f\n",
				      j.id, j.nodes, j.arrival, j.start, j.finish,
				      j.jct(), j.isolated, j.slowdown(), j.links,
				      j.gated ? 1 : 0, j.shift, j.gate_period,
				      j.gate_wait, (unsigned long long)j.gate_missed,
				      j.gate_disabled ? 1 : 0, j.ever_gated ? 1 : 0,
				      (unsigned long long)j.gate_reanchored,
				      (unsigned long long)j.gate_disables,
				      (unsigned long long)j.gate_rearmed, j.realigned,
				      j.learned, j.iter_min, j.iter_range);
			f << b;
		}
	}
	// Link-group decisions, for the policies that make them (orrery).
	for (const RunSummary &r : runs) {
		if (r.stats.groups.empty())
			continue;
		auto f = open("groups-" + r.policy + "-s" + std::to_string(r.seed) + ".csv");
		f << "time_s,jobs,links,mode,score,slowdown_rotate,slowdown_divide,"
		     "slowdown_share,period_s,reason\n";
		char b[256];
		for (const GroupRecord &g : r.stats.groups) {
			std::string ids;
			for (uint32_t id : g.jobs)
				ids += (ids.empty() ? "" : " ") + std::to_string(id);
			std::snprintf(b, sizeof b, "%.3f,", g.time);
			f << b << ids;
			std::snprintf(b, sizeof b, ",%u,%s,%.4f,%.4f,%.4f,%.4f,%.6f,",
				      g.links, g.mode.c_str(), g.score, g.rotate,
				      g.divide, g.share, g.period);
			// The reason has commas: quoted, its quotes doubled.
			std::string q;
			for (char c : g.reason)
				q += c == '"' ? std::string("\"\"") : std::string(1, c);
			f << b << '"' << q << "\"\n";
		}
	}
	{
		auto f = open("summary.csv");
		f << "policy,seed,jobs,multi_node_jobs";
		for (const Metric &m : kMetrics)
			f << ',' << m.name;
		f << ",over_link_s,over_bytes,events,solves,wall_s,sim_s\n";
		for (const std::string &p : policies)
			for (uint64_t s : seeds) {
				const RunSummary *r = find(p, s);
				if (!r)
					continue;
				f << p << ',' << s << ',' << r->jobs << ',' << r->multi;
				for (const Metric &m : kMetrics)
					f << ',' << m.get(*r);
				f << ',' << r->over_link_s << ',' << r->over_bytes << ','
				  << r->stats.events << ',' << r->stats.solves << ','
				  << r->stats.wall_s << ',' << r->stats.sim_s << '\n';
			}
	}
	{
		auto f = open("ratios.csv");
		f << "policy,reference,metric,median,min,max\n";
		for (const char *ref : {"ideal", "default"})
			for (const std::string &p : policies)
				for (const Metric &m : kMetrics) {
					Agg a = ratio(*this, p, ref, m.get);
					if (a.ok)
						f << p << ',' << ref << ',' << m.name << ','
						  << a.med << ',' << a.min << ',' << a.max << '\n';
				}
	}
	// CDFs pooled over seeds.
	for (const std::string &p : policies) {
		std::vector<double> jct, sd;
		for (const RunSummary &r : runs)
			if (r.policy == p)
				for (const JobResult &j : r.results) {
					jct.push_back(j.jct() / 3600.0);
					sd.push_back(j.slowdown());
				}
		std::sort(jct.begin(), jct.end());
		std::sort(sd.begin(), sd.end());
		auto f = open("cdf-" + p + ".dat");
		f << "# jct_h cdf slowdown\n";
		for (size_t i = 0; i < jct.size(); i++)
			f << jct[i] << ' ' << (double)(i + 1) / (double)jct.size() << ' '
			  << sd[i] << '\n';
	}
	{
		auto f = open("cdf.gp");
		f << "set terminal svg size 800,500 dynamic enhanced font 'sans,12'\n"
		     "set key bottom right\nset grid\nset ylabel 'fraction of jobs'\n"
		     "set yrange [0:1]\n";
		f << "set output 'jct-cdf.svg'\nset title '" << title
		  << ": job completion time CDF'\nset xlabel 'JCT (hours)'\n"
		     "set logscale x\nplot ";
		for (size_t i = 0; i < policies.size(); i++)
			f << (i ? ", " : "") << "'cdf-" << policies[i]
			  << ".dat' using 1:2 with lines lw 2 title '" << policies[i] << "'";
		f << "\nset output 'slowdown-cdf.svg'\nset title '" << title
		  << ": per-job slowdown (run time / isolated run time)'\n"
		     "set xlabel 'slowdown'\nunset logscale x\nset xrange [1:*]\nplot ";
		for (size_t i = 0; i < policies.size(); i++)
			f << (i ? ", " : "") << "'cdf-" << policies[i]
			  << ".dat' using 3:2 with lines lw 2 title '" << policies[i] << "'";
		f << "\n";
	}
	std::string cmd = "cd '" + dir + "' && gnuplot cdf.gp";
	int rc = std::system(cmd.c_str());
	if (rc != 0) {
		std::fprintf(stderr, "orrery-sim: gnuplot failed (%d); the data and "
			     "script are in %s\n", rc, dir.c_str());
		return false;
	}
	return true;
}

}  // namespace sim
