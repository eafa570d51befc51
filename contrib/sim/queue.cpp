#include "queue.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace sim {

QueueOptions::Kind parse_queue_kind(const std::string &s)
{
	if (s == "slurm")
		return QueueOptions::Kind::Slurm;
	if (s == "greedy")
		return QueueOptions::Kind::Greedy;
	throw std::runtime_error("--queue: '" + s + "': expected slurm or greedy");
}

void parse_scheduler_parameters(const std::string &value, const std::string &where,
				QueueOptions &o)
{
	size_t a = 0;
	while (a <= value.size()) {
		size_t b = value.find(',', a);
		if (b == std::string::npos)
			b = value.size();
		std::string item = value.substr(a, b - a);
		a = b + 1;
		size_t eq = item.find('=');
		if (item.empty() || eq == std::string::npos)
			continue;  // a flag (bf_continue, ...): nothing modelled
		std::string key = item.substr(0, eq), val = item.substr(eq + 1);
		struct Key {
			const char *name;
			double lo, hi, scale;
			double *out;
		} keys[] = {
			{"bf_interval", 1, 10800, 1, &o.bf_interval},
			{"bf_resolution", 1, 3600, 1, &o.bf_resolution},
			{"bf_window", 1, 43200, 60, &o.bf_window},
			{"max_switch_wait", 0, 1e9, 1, &o.max_switch_wait},
		};
		double v;
		auto number = [&](double lo, double hi) {
			errno = 0;
			char *end = nullptr;
			v = std::strtod(val.c_str(), &end);
			if (val.empty() || *end || errno || v != std::floor(v) || v < lo || v > hi)
				throw std::runtime_error(where + ": SchedulerParameters " + key + "='" +
							 val + "': expected an integer from " +
							 std::to_string((long long)lo) + " to " +
							 std::to_string((long long)hi));
		};
		bool known = false;
		for (const Key &k : keys)
			if (key == k.name) {
				number(k.lo, k.hi);
				*k.out = v * k.scale;
				known = true;
			}
		if (!known && key == "bf_max_job_test") {
			number(1, 1000000);
			o.bf_max_job_test = (uint32_t)v;
		}
	}
}

void read_slurm_conf(const std::string &path, QueueOptions &o)
{
	std::ifstream in(path);
	if (!in)
		throw std::runtime_error(path + ": cannot open");
	std::string line;
	size_t ln = 0;
	while (std::getline(in, line)) {
		ln++;
		size_t h = line.find('#');
		if (h != std::string::npos)
			line.erase(h);
		size_t a = line.find_first_not_of(" \t");
		if (a == std::string::npos)
			continue;
		static const std::string key = "schedulerparameters=";
		std::string head = line.substr(a, key.size());
		for (char &c : head)
			c = (char)std::tolower((unsigned char)c);
		if (head != key)
			continue;
		std::string val = line.substr(a + key.size());
		while (!val.empty() && std::isspace((unsigned char)val.back()))
			val.pop_back();
		QueueOptions fresh = o;  // the last line wins, from the defaults
		fresh.bf_interval = QueueOptions{}.bf_interval;
		fresh.bf_resolution = QueueOptions{}.bf_resolution;
		fresh.bf_window = QueueOptions{}.bf_window;
		fresh.bf_max_job_test = QueueOptions{}.bf_max_job_test;
		fresh.max_switch_wait = QueueOptions{}.max_switch_wait;
		parse_scheduler_parameters(val, path + ":" + std::to_string(ln), fresh);
		o = fresh;
	}
}

double parse_slurm_time(const std::string &s)
{
	if (s == "UNLIMITED" || s == "INFINITE" || s == "unlimited" || s == "infinite")
		return kUnlimited;
	if (s.empty() || s.size() > 32)
		return -1;
	long days = -1;
	std::string rest = s;
	size_t dash = s.find('-');
	std::vector<long> f;
	auto field = [&](const std::string &x) {
		if (x.empty() || x.size() > 9 ||
		    x.find_first_not_of("0123456789") != std::string::npos)
			return false;
		f.push_back(std::strtol(x.c_str(), nullptr, 10));
		return true;
	};
	if (dash != std::string::npos) {
		f.clear();
		if (!field(s.substr(0, dash)))
			return -1;
		days = f[0];
		rest = s.substr(dash + 1);
	}
	f.clear();
	size_t a = 0;
	while (a <= rest.size()) {
		size_t b = rest.find(':', a);
		if (b == std::string::npos)
			b = rest.size();
		if (!field(rest.substr(a, b - a)) || f.size() > 3)
			return -1;
		a = b + 1;
	}
	long sec;
	if (days >= 0) {  // days-hours[:minutes[:seconds]]
		long h = f[0], m = f.size() > 1 ? f[1] : 0, x = f.size() > 2 ? f[2] : 0;
		sec = ((days * 24 + h) * 60 + m) * 60 + x;
	} else if (f.size() == 1) {  // minutes
		sec = f[0] * 60;
	} else if (f.size() == 2) {  // minutes:seconds
		sec = f[0] * 60 + f[1];
	} else {  // hours:minutes:seconds
		sec = (f[0] * 60 + f[1]) * 60 + f[2];
	}
	return (double)sec;
}

void parse_switches(const std::string &s, const std::string &where,
		    uint32_t &count, double &wait)
{
	size_t at = s.find('@');
	std::string n = s.substr(0, at);
	auto bad = [&]() {
		throw std::runtime_error(where + ": switches '" + s +
					 "': expected N or N@TIME (N leaf switches, 1 to "
					 "65535; TIME as sbatch --switches takes it, e.g. 10:00)");
	};
	if (n.empty() || n.size() > 5 || n.find_first_not_of("0123456789") != std::string::npos)
		bad();
	long v = std::strtol(n.c_str(), nullptr, 10);
	if (v < 1 || v > 65535)
		bad();
	count = (uint32_t)v;
	wait = -1;
	if (at != std::string::npos) {
		wait = parse_slurm_time(s.substr(at + 1));
		if (wait < 0 || wait >= kUnlimited)
			bad();
	}
}

double job_time_limit(const JobSpec &j, double isolated, const QueueOptions &o)
{
	double l = j.time_limit > 0 ? j.time_limit
				    : std::ceil(o.time_limit_factor * isolated / 60) * 60;
	return std::max(60.0, l);
}

JobQueue::JobQueue(const QueueOptions &o, const std::vector<JobSpec> &jobs,
		   std::vector<double> limits, PlaceFn place, StartFn start)
	: opt_(o), jobs_(jobs), limit_(std::move(limits)), place_(std::move(place)),
	  start_(std::move(start)), started_at_(jobs.size(), -1), nodes_(jobs.size())
{
}

// Slurm's order: priority, then submit time, then job id.
bool JobQueue::before(uint32_t a, uint32_t b) const
{
	const JobSpec &x = jobs_[a], &y = jobs_[b];
	if (x.priority != y.priority)
		return x.priority > y.priority;
	if (x.arrival != y.arrival)
		return x.arrival < y.arrival;
	return x.id < y.id;
}

void JobQueue::arrive(uint32_t j)
{
	if (opt_.kind == QueueOptions::Kind::Greedy) {
		pending_.push_back(j);
	} else {
		auto it = std::upper_bound(pending_.begin(), pending_.end(), j,
					   [&](uint32_t a, uint32_t b) { return before(a, b); });
		pending_.insert(it, j);
	}
	dirty_ = true;
}

void JobQueue::ended(uint32_t j)
{
	started_at_[j] = -1;
	nodes_[j].clear();
	running_.erase(std::find(running_.begin(), running_.end(), j));
	dirty_ = true;
}

void JobQueue::start(uint32_t j, double now, Placement &&pl)
{
	pending_.erase(std::find(pending_.begin(), pending_.end(), j));
	started_at_[j] = now;
	nodes_[j] = pl.nodes;
	running_.push_back(j);
	dirty_ = true;
	start_(j, now, std::move(pl));
}

void JobQueue::schedule(double now, const std::vector<uint8_t> &free, size_t n_free)
{
	const bool greedy = opt_.kind == QueueOptions::Kind::Greedy;
	// A job pinned to its nodes (-w) that cannot start does not block the
	// partition in Slurm: its nodes are taken out of this pass instead
	// (job_scheduler.c, req_node_bitmap).
	std::vector<uint8_t> held;
	for (size_t i = 0; i < pending_.size() && n_free > 0;) {
		uint32_t j = pending_[i];
		const std::vector<uint8_t> &avail = held.empty() ? free : held;
		Placement pl;
		if (jobs_[j].nodes > n_free || !place_(j, avail, now, pl)) {
			if (greedy) {
				i++;
				continue;
			}
			if (jobs_[j].at.empty())
				return;  // the partition is blocked until backfill
			if (held.empty())
				held = free;
			for (uint32_t n : jobs_[j].at)
				if (n < held.size() && held[n]) {
					held[n] = 0;
					n_free--;
				}
			i++;
			continue;
		}
		n_free -= pl.nodes.size();
		if (!held.empty())
			for (uint32_t n : pl.nodes)
				held[n] = 0;
		start(j, now, std::move(pl));  // erases pending_[i]
	}
}

double JobQueue::grid(double t) const
{
	return std::ceil(t / opt_.bf_resolution - 1e-9) * opt_.bf_resolution;
}

// Index of the slice that begins at t (inserted if t falls inside one).
size_t JobQueue::split(std::vector<Slice> &s, double t) const
{
	size_t k = s.size();
	while (k > 0 && s[k - 1].begin > t)
		k--;
	// s[k - 1].begin <= t < s[k].begin
	if (s[k - 1].begin == t)
		return k - 1;
	s.insert(s.begin() + (long)k, Slice{t, s[k - 1].avail});
	return k;
}

double JobQueue::next_backfill(double now) const
{
	if (opt_.kind != QueueOptions::Kind::Slurm || pending_.empty())
		return -1;
	return (std::floor(now / opt_.bf_interval + 1e-9) + 1) * opt_.bf_interval;
}

void JobQueue::backfill(double now, const std::vector<uint8_t> &free)
{
	if (opt_.kind != QueueOptions::Kind::Slurm || pending_.empty())
		return;
	// The same state gives the same plan: skip the pass unless a job came
	// or went, or a switch wait, an overrun or the window moved a plan.
	if (!dirty_ && (recheck_at_ < 0 || now < recheck_at_))
		return;
	dirty_ = false;
	recheck_at_ = -1;
	auto recheck = [&](double t) {
		if (recheck_at_ < 0 || t < recheck_at_)
			recheck_at_ = t;
	};
	// The plan: nodes free now, and each running job's nodes from its
	// expected end (start + time limit on the resolution grid; a job
	// past its limit is expected one step from now).
	std::vector<std::pair<double, uint32_t>> ends;
	for (uint32_t r : running_) {
		double e = started_at_[r] + limit_[r];
		if (e <= now) {
			e = now + opt_.bf_resolution;
			recheck(now + opt_.bf_interval);
		}
		ends.emplace_back(grid(e), r);
	}
	std::sort(ends.begin(), ends.end());
	std::vector<Slice> plan{Slice{now, free}};
	for (const auto &e : ends) {
		size_t k = split(plan, e.first);
		for (size_t m = k; m < plan.size(); m++)
			for (uint32_t n : nodes_[e.second])
				plan[m].avail[n] = 1;
	}
	// Marks nodes busy over [t0, t1).
	auto hold = [&](const std::vector<uint32_t> &nodes, double t0, double t1) {
		size_t a = split(plan, t0), b = split(plan, t1);
		for (size_t m = a; m < b; m++)
			for (uint32_t n : nodes)
				plan[m].avail[n] = 0;
	};

	const double horizon = now + opt_.bf_window;
	std::vector<uint32_t> order = pending_;  // starts below change pending_
	std::vector<uint8_t> avail;
	size_t tested = 0;
	for (uint32_t j : order) {
		if (tested++ >= opt_.bf_max_job_test)
			break;
		const JobSpec &job = jobs_[j];
		const double len = grid(limit_[j]);
		if (job.switches) {
			double until = job.arrival + job.switch_wait;
			if (until > now)
				recheck(until);
		}
		bool found = false;
		Placement pl;
		double t = now;
		for (size_t k = 0; k < plan.size() && plan[k].begin <= horizon; k++) {
			t = plan[k].begin;
			avail = plan[k].avail;
			size_t count = 0;
			for (size_t m = k + 1; m < plan.size() && plan[m].begin < t + len; m++)
				for (size_t n = 0; n < avail.size(); n++)
					avail[n] &= plan[m].avail[n];
			for (uint8_t v : avail)
				count += v;
			if (count < job.nodes)
				continue;
			pl = Placement{};
			if (place_(j, avail, t, pl) || pl.held) {
				found = true;
				break;
			}
		}
		if (found && pl.held) {
			// Refused although it fits (orrery-hold): backfill
			// reserves these nodes for it from when its hold ends
			// at the latest (select/orrery's will-run answer for a
			// held job), and other jobs may use them until then; it
			// starts earlier if a pass finds it no longer held.
			const double clear = std::max(t, grid(pl.held_until));
			hold(pl.nodes, clear, clear + len);
			reservations_++;
			recheck(now + opt_.bf_interval);
			continue;
		}
		if (!found) {
			recheck(now + opt_.bf_interval);  // the window moves on
			continue;
		}
		hold(pl.nodes, t, t + len);
		if (t <= now) {
			backfilled_++;
			start(j, now, std::move(pl));
		} else {
			reservations_++;
		}
	}
	dirty_ = false;  // the starts above are already in the plan
	if (tested > opt_.bf_max_job_test)
		recheck(now + opt_.bf_interval);
}

}  // namespace sim
