// What-if on a site's own cluster: its topology.conf (with orrery.conf's
// capacities, parallel links, flows and node link) and its job history
// from `sacct --parsable2` (doc/orrery-sim.1, WHAT-IF).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <cstdio>

#include "bridge.hpp"
#include "job.hpp"

namespace sim {

struct SiteOptions {
	std::string topology;      // topology.conf
	std::string orrery_conf;   // may be empty: all defaults
	std::string default_profile;  // --default-profile (wins over the conf's)
};

struct Site {
	TopologyPtr topo;
	uint64_t node_link_mbps = 0;
	std::string default_profile;  // for jobs without an ORR1: record
	std::string description;      // one line for the report header
	int rank_spread = -1;         // orrery.conf rank_spread=; -1: not given
};

// Reads topology.conf (hostlists through libslurm, as Slurm reads them)
// and applies orrery.conf the way select/orrery does: LinkSpeed times
// linkspeed_unit, then [uplinks] levelN, then [switch.NAME] (most specific
// wins), then flows and node_link.  Throws std::runtime_error naming the
// file (and line, token or group) on bad input.
Site load_site(const SiteOptions &o);

// A job of the history that is not replayed, and why.
struct Skipped {
	size_t line = 0;
	std::string job_id;
	std::string reason;   // names the field and value
};

struct History {
	std::vector<JobSpec> jobs;     // ids = history order (0-based)
	std::vector<std::string> job_ids;  // Slurm JobID per job
	std::vector<Skipped> skipped;
	size_t steps = 0;              // job step lines (JobID with '.')
	size_t with_record = 0;        // profile from the ORR1: record
	size_t with_default = 0;       // profile from the default
	size_t no_profile = 0;         // neither: replayed without traffic
	double span_s = 0;             // last end - first submit
	// Per job, when the file has them: Start and End relative to the
	// first Submit, and the NodeList column as written.
	std::vector<double> start_s, end_s;
	std::vector<std::string> node_list;
};

// Start times against the history (orrery-sim(1), WHAT-IF): per policy
// of the first seed, |simulated start - recorded start| over the replayed
// jobs (median, p90, how many within 10 s and 60 s, and the share of job
// pairs started in the recorded order), then one line
//   start fidelity: POLICY M/N within 10 s, same order X[, ...]
// A replay whose queue, run times and placement are Slurm's starts each
// job when Slurm did.
struct Report;
void print_start_fidelity(const Report &rep, const History &h, FILE *out);

// Placement fidelity (orrery-sim(1), FIDELITY): replay the start of every
// job of a history recorded on a real cluster, in start order, through a
// policy: free nodes = those no recorded job holds at that instant; the
// policy chooses; its choice is compared with the recorded NodeList, and
// the recorded placement is what the policy is told started.  Prints each
// difference with its cause; returns the jobs whose node set matched.
struct Fidelity {
	size_t matched = 0, total = 0;
};
Fidelity placement_fidelity(const std::string &policy, Policy &p,
			    const orrery_topology_t *t, const History &h,
			    const std::string &file, FILE *out);

// Parses sacct --parsable2 output (a header line naming the columns, '|'
// between fields).  Needs JobID, Submit, Start, End, NNodes; AdminComment
// when there is one.  A malformed line (field count, a time or a node
// count that does not parse) throws, naming file, line and field; a job
// that cannot be replayed (never started, not ended, larger than the
// fabric, a profile that does not parse) is skipped with its reason.
History read_sacct(std::istream &in, const std::string &name,
		   uint32_t fabric_nodes, const std::string &default_profile,
		   ProfileTable &profiles);

}  // namespace sim
