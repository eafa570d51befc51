// Cross-check of orrery-sim's engine against SimGrid (s4u, CM02 max-min
// network model with unit factors).
//
// Both simulators get the same platform in flow terms: a 2-tier tree whose
// leaf uplinks have finite capacity.  A job's Up phase is one flow of its
// per-node byte count, capped by its demand (its NIC) and crossing the
// uplinks liborrery's rule says it crosses; in SimGrid that is a comm
// between two hosts private to the job whose route is [the job's NIC link,
// the crossed uplinks].  Every route carries the same total latency (on
// the NIC links), so CM02's RTT weighting is neutral and sharing is plain
// max-min.  Jobs are ungated, start at chosen times and run a few hundred
// iterations.  For each case the program prints the relative error of
// every job's completion time and exits non-zero above the tolerance.
#include <simgrid/s4u.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "engine.hpp"
#include "policies.hpp"

namespace sg4 = simgrid::s4u;
using namespace sim;

struct CaseJob {
	uint32_t nodes;
	std::vector<uint32_t> where;   // node indices
	double start, period, up, demand;
	uint64_t iters;
};

struct Case {
	std::string name;
	uint32_t leaves, per_leaf;
	double uplink;
	std::vector<CaseJob> jobs;
};

static Fabric two_tier(const Case &c)
{
	Fabric f;
	f.parent = {-1};
	f.level = {1};
	f.cap_mbps = {0};
	f.name = {"root"};
	for (uint32_t l = 0; l < c.leaves; l++) {
		f.parent.push_back(0);
		f.level.push_back(0);
		f.cap_mbps.push_back(c.uplink);
		f.name.push_back("leaf" + std::to_string(l));
		for (uint32_t k = 0; k < c.per_leaf; k++)
			f.node_leaf.push_back(l + 1);
	}
	return f;
}

class Fixed : public Policy {
public:
	explicit Fixed(const Case &c) : c_(c) {}
	const char *name() const override { return "fixed"; }
	bool place(const std::vector<uint8_t> &, const JobSpec &j, double,
		   Placement &out) override
	{
		out.nodes = c_.jobs[j.id].where;
		return true;
	}

private:
	const Case &c_;
};

static std::vector<double> run_orrery_sim(const Case &c)
{
	Fabric f = two_tier(c);
	Fixed pol(c);
	Engine e(f, pol);
	std::vector<JobSpec> jobs;
	for (uint32_t i = 0; i < c.jobs.size(); i++) {
		const CaseJob &cj = c.jobs[i];
		JobSpec j;
		j.id = i;
		j.arrival = cj.start;
		j.nodes = cj.nodes;
		j.iterations = cj.iters;
		j.pattern.period = cj.period;
		j.pattern.phases.push_back(
			Phase{cj.period - cj.up, cj.up, cj.demand, Coll::Ring});
		jobs.push_back(j);
	}
	SimStats st;
	auto r = e.run(jobs, st);
	std::vector<double> fin;
	for (const JobResult &x : r)
		fin.push_back(x.finish);
	return fin;
}

static std::vector<double> g_finish;

static std::vector<double> run_simgrid(const Case &c, int argc, char **argv)
{
	sg4::Engine e(&argc, argv);
	e.set_config("network/model:CM02");
	e.set_config("network/crosstraffic:0");
	e.set_config("network/TCP-gamma:0");  // no window bound
	auto *zone = sg4::create_full_zone("tree");
	Fabric f = two_tier(c);
	// Mbit/s -> bytes/s.
	auto Bps = [](double mbps) { return mbps * 1e6 / 8; };
	std::vector<sg4::Link *> uplink(f.switches(), nullptr);
	for (size_t s = 1; s < f.switches(); s++)
		uplink[s] = zone->create_link("up" + std::to_string(s), Bps(c.uplink))
				    ->set_latency(0)
				    ->seal();
	g_finish.assign(c.jobs.size(), 0);
	for (uint32_t i = 0; i < c.jobs.size(); i++) {
		const CaseJob &cj = c.jobs[i];
		auto *a = zone->create_host("j" + std::to_string(i) + "a", 1e9);
		auto *b = zone->create_host("j" + std::to_string(i) + "b", 1e9);
		auto *nic = zone->create_link("nic" + std::to_string(i),
					      Bps(cj.demand))
				    ->set_latency(1e-9)
				    ->seal();
		std::vector<sg4::LinkInRoute> route{sg4::LinkInRoute(nic)};
		for (const Crossing &x : crossings(f, cj.where, Coll::Ring))
			route.emplace_back(uplink[x.link]);
		zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr,
				nullptr, route, false);
	}
	zone->seal();
	for (uint32_t i = 0; i < c.jobs.size(); i++) {
		const CaseJob cj = c.jobs[i];
		sg4::Host *a = e.host_by_name("j" + std::to_string(i) + "a");
		sg4::Host *b = e.host_by_name("j" + std::to_string(i) + "b");
		sg4::Actor::create("job" + std::to_string(i), a, [cj, a, b, i]() {
			sg4::this_actor::sleep_until(cj.start);
			const double bytes = cj.demand * cj.up * 1e6 / 8;
			for (uint64_t k = 0; k < cj.iters; k++) {
				sg4::this_actor::sleep_for(cj.period - cj.up);
				sg4::Comm::sendto(a, b, bytes);
			}
			g_finish[i] = sg4::Engine::get_clock();
		});
	}
	e.run();
	return g_finish;
}

static std::vector<Case> cases()
{
	std::vector<Case> out;
	// Two jobs in step on one shared pair of uplinks: 50% duty.
	out.push_back({"2 jobs, in step, 50% duty", 2, 2, 50000,
		       {{2, {0, 2}, 0, 0.1, 0.05, 50000, 300},
			{2, {1, 3}, 0, 0.1, 0.05, 50000, 300}}});
	// Two jobs, different periods, drifting through each other.
	out.push_back({"2 jobs, periods 100/130 ms", 2, 2, 50000,
		       {{2, {0, 2}, 0, 0.1, 0.04, 50000, 400},
			{2, {1, 3}, 0.013, 0.13, 0.06, 40000, 300}}});
	// Four jobs on three racks, partly overlapping uplink sets.
	out.push_back({"4 jobs, 3 racks", 3, 3, 60000,
		       {{2, {0, 3}, 0, 0.12, 0.05, 50000, 300},
			{2, {1, 6}, 0.01, 0.2, 0.08, 40000, 200},
			{3, {2, 4, 7}, 0.02, 0.15, 0.06, 50000, 250},
			{2, {5, 8}, 0.005, 0.09, 0.03, 30000, 400}}});
	// Eight jobs on four racks, a mix of demands and periods.
	Case big{"8 jobs, 4 racks", 4, 4, 80000, {}};
	const double per[] = {0.1, 0.15, 0.2, 0.12, 0.09, 0.25, 0.11, 0.18};
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t l1 = i % 4, l2 = (i + 1 + i / 4) % 4;
		big.jobs.push_back({2,
				    {l1 * 4 + i / 4, l2 * 4 + 2 + i / 4},
				    0.003 * i, per[i], per[i] * (0.3 + 0.05 * i),
				    20000.0 + 5000.0 * i, 200});
	}
	out.push_back(big);
	return out;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		std::fprintf(stderr, "usage: %s CASE|all [simgrid --cfg ...]\n",
			     argv[0]);
		return 2;
	}
	const auto all = cases();
	if (std::string(argv[1]) == "list") {
		for (size_t i = 0; i < all.size(); i++)
			std::printf("%zu %s\n", i, all[i].name.c_str());
		return 0;
	}
	size_t k = std::stoul(argv[1]);
	const Case &c = all.at(k);
	auto a = run_orrery_sim(c);
	int sargc = argc - 1;
	auto b = run_simgrid(c, sargc, argv + 1);
	double worst = 0, sum = 0;
	for (size_t i = 0; i < a.size(); i++) {
		double err = std::fabs(a[i] - b[i]) / b[i];
		worst = std::max(worst, err);
		sum += err;
	}
	std::printf("case %zu (%s): %zu jobs, completion time relative error "
		    "mean %.2e max %.2e\n",
		    k, c.name.c_str(), a.size(), sum / a.size(), worst);
	for (size_t i = 0; i < a.size(); i++)
		std::printf("  job %zu: orrery-sim %.6f s, SimGrid %.6f s\n", i,
			    a[i], b[i]);
	return worst <= 2e-3 ? 0 : 1;
}
