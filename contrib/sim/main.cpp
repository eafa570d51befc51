// orrery-sim: compare placement policies on a simulated cluster network.
// See doc/orrery-sim.1.
#include <getopt.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <orrery.h>

#include "bridge.hpp"
#include "engine.hpp"
#include "metrics.hpp"
#include "policies.hpp"
#include "queue.hpp"
#include "whatif.hpp"
#include "workload.hpp"

using namespace sim;

namespace {

const char *kAllPolicies = "ideal,default,random,orrery-place,orrery,cassini,mltcp";

void usage(FILE *f)
{
	std::fprintf(f,
		"usage: orrery-sim [--scenario testbed|large|clos-ecmp] [--trace FILE]\n"
		"                  [--policies LIST] [--seeds N] [--seed S]\n"
		"                  [--load L] [--hours H] [--sizes MIX] [--models MIX]\n"
		"                  [--durations MIN:MAX] [--write-trace FILE]\n"
		"                  [--oversub-leaf X] [--oversub-pod X]\n"
		"                  [--realign-delay S] [--gate-late-tolerance F]\n"
		"                  [--profile-error E] [--learn-periods TOL]\n"
		"                  [--iteration-jitter J] [--transfer-jitter T] [--gate-margin M]\n"
		"                  [--newcomer-gate with-group|at-start]\n"
		"                  [--uplink-links K] [--flows N]\n"
		"                  [--rank-spread N] [--hold COST,SECONDS]\n"
		"                  [--queue slurm|greedy]\n"
		"                  [--slurm-conf FILE] [--scheduler-parameters LIST]\n"
		"                  [--time-limit-factor F]\n"
		"                  [--topology FILE [--orrery-conf FILE] [--sacct FILE]\n"
		"                   [--default-profile SPEC]] [--gpus-per-node G]\n"
		"                  [--topology FILE --fidelity POLICY=SACCT_FILE...]\n"
		"                  [--leaves N] [--nodes-per-leaf N] [--node-link-mbps R]\n"
		"                  [--out DIR] [--threads N] [--quiet] [--no-fast-forward]\n"
		"                  [--list-models]\n"
		"policies: %s (default: all);\n"
		"  references: bound, default-bound (perfect interleaving),\n"
		"  default-alone (default's nodes, each job alone on the fabric);\n"
		"  variant: orrery-hold (orrery, and a job waits while its placement's\n"
		"  neighbours are predicted to add more than COST of slowdown, up to\n"
		"  SECONDS)\n", kAllPolicies);
}

double num(const char *s, const char *opt)
{
	char *end = nullptr;
	double v = std::strtod(s, &end);
	if (!*s || *end)
		throw std::runtime_error(std::string(opt) + ": '" + s +
					 "' is not a number");
	return v;
}

std::vector<std::string> split(const std::string &s)
{
	std::vector<std::string> out;
	size_t a = 0;
	while (a <= s.size()) {
		size_t b = s.find(',', a);
		if (b == std::string::npos)
			b = s.size();
		if (b > a)
			out.push_back(s.substr(a, b - a));
		a = b + 1;
	}
	return out;
}

std::unique_ptr<Policy> make_policy(const std::string &name, const Fabric &f,
				    const orrery_topology_t *t,
				    const ProfileTable &pt, uint64_t seed, int rank_spread,
				    const HoldRule &hold)
{
	if (name == "default")
		return make_default_policy(f);
	if (name == "ideal")
		return make_ideal_policy(f);
	if (name == "random")
		return make_random_policy(f, seed * 7919 + 1);
	if (name == "orrery-place")
		return make_orrery_policy(t, f, pt, false, rank_spread);
	if (name == "orrery")
		return make_orrery_policy(t, f, pt, true, rank_spread);
	if (name == "cassini")
		return make_cassini_policy(t, f, pt);
	if (name == "mltcp")
		return make_mltcp_policy(f);
	if (name == "bound")
		return make_bound_policy(t, f, pt, rank_spread);
	if (name == "default-bound")
		return make_default_bound_policy(f);
	if (name == "default-alone")
		return make_default_alone_policy(f);
	if (name == "orrery-hold")
		return make_hold_policy(t, f, pt, hold, rank_spread);
	throw std::runtime_error("unknown policy '" + name + "' (" +
				 kAllPolicies + ", the references bound, default-bound, "
				 "default-alone, or the variant orrery-hold)");
}

int run(int argc, char **argv)
{
	std::string scen = "testbed", trace, out_dir, write_tr;
	std::string policies_s = kAllPolicies;
	unsigned seeds = 3, threads = 2;
	uint64_t seed0 = 1;
	bool quiet = false, list = false, fast_forward = true;
	double load = -1, hours = -1, dmin = -1, dmax = -1;
	double os_leaf = -1, os_pod = -1, realign_delay = 5, gate_tol = 0, prof_err = 0,
	       learn = -1, jitter = 0, tjitter = 0, margin = 0;
	bool newcomer_with_group = true;
	int rank_spread = -1;  // -1: orrery.conf's, else liborrery's default
	HoldRule hold;
	long leaves = -1, per_leaf = -1, node_link = -1, uplink_links = -1, flows = -1;
	std::string sizes, models, site_topo, site_conf, sacct, def_profile;
	std::vector<std::pair<std::string, std::string>> fidelity;
	long gpn = -1;
	QueueOptions qo;
	qo.kind = QueueOptions::Kind::Slurm;
	std::string slurm_conf, sched_params;
	double tl_factor = -1;
	enum { O_WT = 256, O_DUR, O_LIST, O_OSL, O_OSP, O_RD, O_LEAVES, O_PERLEAF, O_NLINK, O_ULINKS, O_FLOWS,
	       O_TOPO, O_OCONF, O_SACCT, O_DEFPROF, O_GPN, O_FID, O_RSPREAD, O_NOFF,
	       O_QUEUE, O_SLURMCONF, O_SCHEDPARAMS, O_TLFACTOR, O_GATETOL, O_NEWCOMER, O_HOLD,
	       O_PROFERR, O_LEARN, O_JITTER, O_TJITTER, O_MARGIN };
	static const struct option opts[] = {
		{"scenario", required_argument, nullptr, 'S'},
		{"trace", required_argument, nullptr, 't'},
		{"policies", required_argument, nullptr, 'p'},
		{"seeds", required_argument, nullptr, 'n'},
		{"seed", required_argument, nullptr, 's'},
		{"load", required_argument, nullptr, 'l'},
		{"hours", required_argument, nullptr, 'H'},
		{"sizes", required_argument, nullptr, 'z'},
		{"models", required_argument, nullptr, 'm'},
		{"durations", required_argument, nullptr, O_DUR},
		{"write-trace", required_argument, nullptr, O_WT},
		{"out", required_argument, nullptr, 'o'},
		{"threads", required_argument, nullptr, 'j'},
		{"quiet", no_argument, nullptr, 'q'},
		{"list-models", no_argument, nullptr, O_LIST},
		{"oversub-leaf", required_argument, nullptr, O_OSL},
		{"oversub-pod", required_argument, nullptr, O_OSP},
		{"realign-delay", required_argument, nullptr, O_RD},
		{"gate-late-tolerance", required_argument, nullptr, O_GATETOL},
		{"profile-error", required_argument, nullptr, O_PROFERR},
		{"learn-periods", required_argument, nullptr, O_LEARN},
		{"iteration-jitter", required_argument, nullptr, O_JITTER},
		{"transfer-jitter", required_argument, nullptr, O_TJITTER},
		{"gate-margin", required_argument, nullptr, O_MARGIN},
		{"newcomer-gate", required_argument, nullptr, O_NEWCOMER},
		{"rank-spread", required_argument, nullptr, O_RSPREAD},
		{"hold", required_argument, nullptr, O_HOLD},
		{"leaves", required_argument, nullptr, O_LEAVES},
		{"nodes-per-leaf", required_argument, nullptr, O_PERLEAF},
		{"node-link-mbps", required_argument, nullptr, O_NLINK},
		{"uplink-links", required_argument, nullptr, O_ULINKS},
		{"flows", required_argument, nullptr, O_FLOWS},
		{"topology", required_argument, nullptr, O_TOPO},
		{"orrery-conf", required_argument, nullptr, O_OCONF},
		{"sacct", required_argument, nullptr, O_SACCT},
		{"default-profile", required_argument, nullptr, O_DEFPROF},
		{"gpus-per-node", required_argument, nullptr, O_GPN},
		{"fidelity", required_argument, nullptr, O_FID},
		{"queue", required_argument, nullptr, O_QUEUE},
		{"slurm-conf", required_argument, nullptr, O_SLURMCONF},
		{"scheduler-parameters", required_argument, nullptr, O_SCHEDPARAMS},
		{"time-limit-factor", required_argument, nullptr, O_TLFACTOR},
		{"no-fast-forward", no_argument, nullptr, O_NOFF},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "S:t:p:n:s:l:H:z:m:o:j:qh", opts,
				nullptr)) != -1) {
		switch (c) {
		case 'S': scen = optarg; break;
		case 't': trace = optarg; break;
		case 'p': policies_s = optarg; break;
		case 'n': seeds = (unsigned)num(optarg, "--seeds"); break;
		case 's': seed0 = (uint64_t)num(optarg, "--seed"); break;
		case 'l': load = num(optarg, "--load"); break;
		case 'H': hours = num(optarg, "--hours"); break;
		case 'z': sizes = optarg; break;
		case 'm': models = optarg; break;
		case O_DUR: {
			std::string d = optarg;
			size_t k = d.find(':');
			if (k == std::string::npos)
				throw std::runtime_error("--durations: MIN:MAX in seconds");
			dmin = num(d.substr(0, k).c_str(), "--durations");
			dmax = num(d.substr(k + 1).c_str(), "--durations");
			break;
		}
		case O_WT: write_tr = optarg; break;
		case O_OSL: os_leaf = num(optarg, "--oversub-leaf"); break;
		case O_OSP: os_pod = num(optarg, "--oversub-pod"); break;
		case O_RD:
			realign_delay = num(optarg, "--realign-delay");
			if (realign_delay < 0 || realign_delay > 86400)
				throw std::runtime_error("--realign-delay: seconds from 0 to 86400");
			break;
		case O_GATETOL:
			gate_tol = num(optarg, "--gate-late-tolerance");
			if (!(gate_tol >= 0 && gate_tol < 1))
				throw std::runtime_error("--gate-late-tolerance: a fraction of the period in [0, 1) "
							 "(0: the gate's default, 0.1)");
			break;
		case O_PROFERR:
			prof_err = num(optarg, "--profile-error");
			if (!(prof_err >= 0 && prof_err <= 0.5))
				throw std::runtime_error("--profile-error: a fraction in [0, 0.5] (each job's compute "
							 "is its profile's times a factor in [1 - E, 1 + E])");
			break;
		case O_LEARN:
			learn = num(optarg, "--learn-periods");
			if (!(learn >= 0 && learn <= 0.5))
				throw std::runtime_error("--learn-periods: a fraction in [0, 0.5] (a gated job's "
							 "measured iteration off its model by more than this "
							 "fraction re-solves its link group)");
			break;
		case O_JITTER:
			jitter = num(optarg, "--iteration-jitter");
			if (!(jitter >= 0 && jitter <= 0.5))
				throw std::runtime_error("--iteration-jitter: a fraction in [0, 0.5] (each compute "
							 "gap of each iteration is its pattern's times a factor in "
							 "[1 - J, 1 + J])");
			break;
		case O_TJITTER:
			tjitter = num(optarg, "--transfer-jitter");
			if (!(tjitter >= 0 && tjitter <= 0.5))
				throw std::runtime_error("--transfer-jitter: a fraction in [0, 0.5] (each Up phase "
							 "of each iteration carries its pattern's bits times a "
							 "factor in [1 - T, 1 + T])");
			break;
		case O_MARGIN:
			margin = num(optarg, "--gate-margin");
			if (!(margin >= 0 && margin <= ORRERY_GATE_MAX_MARGIN_PPM / 1e6))
				throw std::runtime_error("--gate-margin: a fraction in [0, 0.2] (every gate's "
							 "grid slowed down by 1 + M)");
			break;
		case O_NEWCOMER:
			if (!strcmp(optarg, "at-start"))
				newcomer_with_group = false;
			else if (!strcmp(optarg, "with-group"))
				newcomer_with_group = true;
			else
				throw std::runtime_error("--newcomer-gate: with-group or at-start");
			break;
		case O_RSPREAD: {
			double v = num(optarg, "--rank-spread");
			if (v < 0 || v > ORRERY_RANK_SPREAD_MAX || v != (double)(int)v)
				throw std::runtime_error("--rank-spread: an integer from 0 to " +
							 std::to_string(ORRERY_RANK_SPREAD_MAX) +
							 " (0: locality first)");
			rank_spread = (int)v;
			break;
		}
		case O_HOLD: {
			// COST,SECONDS: orrery-hold's rule (orrery_placement_hold).
			const char *comma = strchr(optarg, ',');
			if (!comma) {
				char eg[64];
				snprintf(eg, sizeof(eg), "%g,%g", ORRERY_HOLD_COST_DEFAULT,
					 ORRERY_HOLD_MAX_S_DEFAULT);
				throw std::runtime_error(std::string("--hold '") + optarg +
							 "': expected COST,SECONDS (e.g. " + eg + ")");
			}
			std::string c(optarg, (size_t)(comma - optarg));
			hold.cost = num(c.c_str(), "--hold COST");
			hold.max_s = num(comma + 1, "--hold SECONDS");
			if (!(hold.cost > 0) || !(hold.max_s >= 0))
				throw std::runtime_error(std::string("--hold '") + optarg +
							 "': COST above 0, SECONDS 0 or more (0: never hold)");
			break;
		}
		case O_LEAVES: leaves = (long)num(optarg, "--leaves"); break;
		case O_PERLEAF: per_leaf = (long)num(optarg, "--nodes-per-leaf"); break;
		case O_NLINK: node_link = (long)num(optarg, "--node-link-mbps"); break;
		case O_ULINKS:
			uplink_links = (long)num(optarg, "--uplink-links");
			if (uplink_links < 1 || uplink_links > 1024)
				throw std::runtime_error("--uplink-links: 1 to 1024 parallel links");
			break;
		case O_FLOWS:
			flows = (long)num(optarg, "--flows");
			if (flows < 1 || flows > 4096)
				throw std::runtime_error("--flows: 1 to 4096 flows per job per uplink");
			break;
		case O_TOPO: site_topo = optarg; break;
		case O_OCONF: site_conf = optarg; break;
		case O_SACCT: sacct = optarg; break;
		case O_DEFPROF: def_profile = optarg; break;
		case O_FID: {
			std::string v = optarg;
			size_t k = v.find('=');
			if (k == std::string::npos || k == 0 || k + 1 == v.size())
				throw std::runtime_error("--fidelity: POLICY=SACCT_FILE");
			fidelity.emplace_back(v.substr(0, k), v.substr(k + 1));
			break;
		}
		case O_GPN:
			gpn = (long)num(optarg, "--gpus-per-node");
			if (gpn < 1 || gpn > 1024)
				throw std::runtime_error("--gpus-per-node: 1 to 1024");
			break;
		case O_QUEUE: qo.kind = parse_queue_kind(optarg); break;
		case O_SLURMCONF: slurm_conf = optarg; break;
		case O_SCHEDPARAMS: sched_params = optarg; break;
		case O_TLFACTOR:
			tl_factor = num(optarg, "--time-limit-factor");
			if (tl_factor < 1 || tl_factor > 100)
				throw std::runtime_error("--time-limit-factor: from 1 to 100 "
							 "(times the job's isolated run time)");
			break;
		case 'o': out_dir = optarg; break;
		case 'j': threads = (unsigned)num(optarg, "--threads"); break;
		case 'q': quiet = true; break;
		case O_NOFF: fast_forward = false; break;
		case O_LIST: list = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (list) {
		for (size_t i = 0; i < orrery_catalogue_count(); i++)
			std::printf("%-16s %s\n", orrery_catalogue_name(i),
				    orrery_catalogue_summary(i));
		return 0;
	}
	if (seeds < 1 || seeds > 1000)
		throw std::runtime_error("--seeds: 1..1000");
	threads = std::max(1u, std::min(threads, 64u));
	if (out_dir.find('\'') != std::string::npos)
		throw std::runtime_error("--out: a directory name without quotes");

	// The queue: slurm.conf's SchedulerParameters, then the option's.
	if (!slurm_conf.empty())
		read_slurm_conf(slurm_conf, qo);
	if (!sched_params.empty())
		parse_scheduler_parameters(sched_params, "--scheduler-parameters", qo);
	if (tl_factor > 0)
		qo.time_limit_factor = tl_factor;

	Scenario sc = scenario(scen);
	if (load > 0)
		sc.gen.load = load;
	if (os_leaf > 0)
		sc.fabric.oversub_leaf = os_leaf;
	if (os_pod > 0)
		sc.fabric.oversub_pod = os_pod;
	// A fabric of another size (orrery-netbed's, say): leaves of
	// nodes_per_leaf nodes; the leaf uplink follows from the node link
	// and --oversub-leaf (orrery_topology_generate's rule).
	if (leaves > 0) {
		if (sc.fabric.tiers == 3 && leaves % sc.fabric.leaves_per_pod)
			throw std::runtime_error("--leaves: a multiple of the pod size");
		sc.fabric.leaves = (uint32_t)leaves;
	}
	if (per_leaf > 0)
		sc.fabric.nodes_per_leaf = (uint32_t)per_leaf;
	if (node_link > 0)
		sc.fabric.node_link_mbps = (uint64_t)node_link;
	if (hours > 0)
		sc.gen.horizon_s = hours * 3600;
	if (dmin > 0)
		sc.gen.min_duration_s = dmin, sc.gen.max_duration_s = dmax;
	if (!sizes.empty())
		sc.gen.sizes = parse_mix(sizes, "--sizes");
	if (!models.empty())
		sc.gen.models = parse_mix(models, "--models");
	if (sc.gen.models.empty() && trace.empty())
		throw std::runtime_error("the model catalogue is empty; give --models");

	if (site_topo.empty() && (!site_conf.empty() || !sacct.empty() ||
				  !def_profile.empty()))
		throw std::runtime_error("--orrery-conf, --sacct and --default-profile "
					 "need --topology FILE (the site's topology.conf)");
	if (!sacct.empty() && !trace.empty())
		throw std::runtime_error("give --sacct or --trace, not both");
	if (gpn > 0)
		sc.gpus_per_node = (uint32_t)gpn;
	TopologyPtr topo;
	Site site;
	if (!site_topo.empty()) {
		// The site's own fabric (WHAT-IF in orrery-sim(1)).
		site = load_site(SiteOptions{site_topo, site_conf, def_profile});
		topo = std::move(site.topo);
		sc.name = "site";
		sc.description = site.description;
		sc.fabric.node_link_mbps = site.node_link_mbps;
		if (rank_spread < 0)
			rank_spread = site.rank_spread;  // --rank-spread wins
		if (gpn <= 0)
			sc.gpus_per_node = 8;
		sc.leaf_links = 1;  // orrery.conf says, not the scenario
		sc.flows = 0;
	} else {
		topo = generate_topology(sc.fabric);
	}
	if (uplink_links > 0)
		sc.leaf_links = (uint32_t)uplink_links;
	if (flows > 0)
		sc.flows = (uint32_t)flows;
	{
		orrery_error_t err{};
		if (sc.leaf_links > 1)
			check(orrery_topology_set_level_uplink_links(topo.get(), 0,
					sc.leaf_links, &err), err, "--uplink-links");
		if (sc.flows > 0)
			check(orrery_topology_set_flows(topo.get(), sc.flows, &err),
			      err, "--flows");
	}
	Fabric fabric = fabric_from_topology(topo.get());
	ProfileTable profiles(sc.gpus_per_node, sc.fabric.node_link_mbps);

	if (!fidelity.empty()) {
		if (site_topo.empty())
			throw std::runtime_error("--fidelity needs --topology FILE");
		std::string line = "placement fidelity:";
		for (size_t i = 0; i < fidelity.size(); i++) {
			const auto &[pname, file] = fidelity[i];
			std::ifstream in(file);
			if (!in)
				throw std::runtime_error("cannot open " + file);
			History h = read_sacct(in, file, (uint32_t)fabric.nodes(),
					       site.default_profile, profiles);
			for (const Skipped &k : h.skipped)
				std::printf("skipped: %s:%zu: job %s: %s\n", file.c_str(),
					    k.line, k.job_id.c_str(), k.reason.c_str());
			auto pol = make_policy(pname, fabric, topo.get(), profiles, seed0, rank_spread,
					       hold);
			Fidelity f = placement_fidelity(pname, *pol, topo.get(), h, file, stdout);
			line += (i ? ", " : " ") + pname + " " + std::to_string(f.matched) +
				"/" + std::to_string(f.total);
		}
		std::printf("%s\n", line.c_str());
		return 0;
	}
	std::vector<std::string> policies = split(policies_s);
	for (const std::string &p : policies)
		make_policy(p, fabric, topo.get(), profiles, 0, rank_spread, hold);  // validates names

	// One workload per seed (a given trace: the same for every seed; the
	// seed then only changes the random policy).
	std::vector<uint64_t> seed_list;
	std::vector<std::vector<JobSpec>> workloads;
	std::vector<TraceRow> fixed;
	if (!trace.empty()) {
		std::ifstream in(trace);
		if (!in)
			throw std::runtime_error("cannot open trace " + trace);
		fixed = read_trace(in, trace);
	}
	History hist;
	if (!sacct.empty()) {
		std::ifstream in(sacct);
		if (!in)
			throw std::runtime_error("cannot open " + sacct);
		hist = read_sacct(in, sacct, (uint32_t)fabric.nodes(),
				  site.default_profile, profiles);
		if (!write_tr.empty())
			throw std::runtime_error("--write-trace: not with --sacct");
	}
	for (unsigned k = 0; k < seeds && !sacct.empty(); k++) {
		seed_list.push_back(seed0 + k);
		workloads.push_back(hist.jobs);
		perturb_compute(workloads.back(), prof_err, seed0 + k);
	}
	for (unsigned k = 0; k < seeds && sacct.empty(); k++) {
		uint64_t s = seed0 + k;
		seed_list.push_back(s);
		std::vector<TraceRow> rows = fixed;
		if (trace.empty()) {
			GeneratorOptions g = sc.gen;
			g.seed = s;
			rows = generate(g, (uint32_t)fabric.nodes(), profiles);
		}
		if (!write_tr.empty() && k == 0) {
			std::ofstream o(write_tr);
			write_trace(o, rows);
			if (!o)
				throw std::runtime_error("cannot write " + write_tr);
		}
		workloads.push_back(make_jobs(rows, profiles));
		perturb_compute(workloads.back(), prof_err, s);
	}

	Report rep;
	rep.title = !sacct.empty() ? sc.name + " / " + sacct
		  : trace.empty() ? sc.name : sc.name + " / " + trace;
	rep.policies = policies;
	rep.seeds = seed_list;
	if (!quiet) {
		std::fprintf(stderr, "orrery-sim: %s: %s\n", sc.name.c_str(),
			     sc.description.c_str());
		size_t single = 0;
		for (const JobSpec &j : workloads[0])
			single += j.nodes == 1;
		std::fprintf(stderr, "orrery-sim: seed %llu: %zu jobs (%zu "
			     "single-node), %zu policies x %u seeds on %u threads\n",
			     (unsigned long long)seed_list[0], workloads[0].size(),
			     single, policies.size(), seeds, threads);
		if (qo.kind == QueueOptions::Kind::Slurm)
			std::fprintf(stderr, "orrery-sim: queue: slurm (priority order, main "
				     "scheduler, backfill every %g s, bf_resolution=%g s, "
				     "bf_window=%g min, bf_max_job_test=%u, max_switch_wait=%g s; "
				     "time limits without one: %gx the isolated run)\n",
				     qo.bf_interval, qo.bf_resolution, qo.bf_window / 60,
				     qo.bf_max_job_test, qo.max_switch_wait, qo.time_limit_factor);
		else
			std::fprintf(stderr, "orrery-sim: queue: greedy (arrival order, "
				     "every job that fits starts, no reservations)\n");
	}

	struct Task {
		size_t p, k;
	};
	std::vector<Task> tasks;
	for (size_t k = 0; k < seed_list.size(); k++)
		for (size_t p = 0; p < policies.size(); p++)
			tasks.push_back({p, k});
	std::atomic<size_t> next{0};
	std::mutex mu;
	std::string failure;
	auto worker = [&]() {
		for (;;) {
			size_t i = next++;
			if (i >= tasks.size())
				return;
			const Task &t = tasks[i];
			try {
				auto pol = make_policy(policies[t.p], fabric, topo.get(),
						       profiles, seed_list[t.k], rank_spread, hold);
				pol->learn_tolerance = learn;
				EngineOptions eo;
				eo.progress = !quiet;
				eo.realign_delay = realign_delay;
				eo.gate_late_tolerance = gate_tol;
				eo.newcomer_with_group = newcomer_with_group;
				eo.ecmp_seed = seed_list[t.k];
				eo.queue = qo;
				eo.fast_forward = fast_forward;
				eo.iteration_jitter = jitter;
				eo.transfer_jitter = tjitter;
				eo.gate_margin_ppm = (uint32_t)std::llround(margin * 1e6);
				eo.jitter_seed = seed_list[t.k];
				eo.label = policies[t.p] + " seed " +
					   std::to_string(seed_list[t.k]);
				Engine e(fabric, *pol, eo);
				SimStats st;
				auto res = e.run(workloads[t.k], st);
				RunSummary s = summarize(policies[t.p], seed_list[t.k],
							 std::move(res), st);
				std::lock_guard<std::mutex> g(mu);
				rep.runs.push_back(std::move(s));
			} catch (const std::exception &ex) {
				std::lock_guard<std::mutex> g(mu);
				if (failure.empty())
					failure = policies[t.p] + ": " + ex.what();
				next = tasks.size();
			}
		}
	};
	std::vector<std::thread> pool;
	for (unsigned i = 0; i < std::min<size_t>(threads, tasks.size()); i++)
		pool.emplace_back(worker);
	for (std::thread &th : pool)
		th.join();
	if (!failure.empty())
		throw std::runtime_error(failure);

	rep.fabric = &fabric;
	if (!sacct.empty()) {
		std::printf("site: %s\n", sc.description.c_str());
		std::printf("history: %s: %zu jobs replayed over %.1f days (%zu with "
			    "orrery's ORR1: record, %zu with the default profile, %zu "
			    "without a profile: run without traffic), %zu skipped, %zu "
			    "job step lines not jobs\n", sacct.c_str(), hist.jobs.size(),
			    hist.span_s / 86400, hist.with_record, hist.with_default,
			    hist.no_profile, hist.skipped.size(), hist.steps);
		for (const Skipped &k : hist.skipped)
			std::printf("skipped: %s:%zu: job %s: %s\n", sacct.c_str(), k.line,
				    k.job_id.c_str(), k.reason.c_str());
		std::printf("\n");
	}
	rep.print_table(stdout);
	rep.print_links(stdout);
	if (!sacct.empty())
		print_start_fidelity(rep, hist, stdout);
	if (!out_dir.empty()) {
		mkdir(out_dir.c_str(), 0777);
		// Without gnuplot the CSV files and the script are still there
		// (write_files says so); the plots are optional.
		rep.write_files(out_dir);
	}
	return 0;
}

}  // namespace

int main(int argc, char **argv)
{
	try {
		return run(argc, argv);
	} catch (const std::exception &e) {
		std::fprintf(stderr, "orrery-sim: %s\n", e.what());
		return 1;
	}
}
