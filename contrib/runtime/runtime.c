/*
 * runtime.c - liborrery-runtime: the job side of orrery's time shifts.
 *
 * The SPANK plugin puts the controller's integers into each task's
 * environment; this file turns them into a gate (lib/gate/gate.c, compiled
 * in: no liborrery, no C++ runtime in a training process) and holds each
 * communication phase until its slot.  Whatever is wrong with the
 * environment, the job runs: the runtime becomes a no-op and says why on
 * stderr when asked to (ORRERY_RUNTIME_VERBOSE).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime_internal.h"

struct rt_state rt = { .lock = PTHREAD_MUTEX_INITIALIZER, .rank = -1 };

void rt_log(int level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (rt.verbose < level)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* One write: lines of several ranks on one terminal stay whole. */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

int64_t orrery_runtime_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---------------------------------------------------------------- env */

/* A plain decimal integer >= 0 (what the SPANK plugin writes).
 * 1 parsed, 0 absent, -1 invalid (why filled). */
static int env_int(const char *name, int64_t *out, char *why, size_t len)
{
	const char *s = getenv(name);
	size_t n;
	char *end;
	long long v;

	if (!s)
		return 0;
	n = strlen(s);
	if (n == 0 || n > 19 || strspn(s, "0123456789") != n) {
		snprintf(why, len, "%s='%.32s' is not a decimal integer >= 0", name, s);
		return -1;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end) {
		snprintf(why, len, "%s='%.32s' is out of range", name, s);
		return -1;
	}
	*out = v;
	return 1;
}

static long env_rank(void)
{
	static const char *const names[] = { "SLURM_PROCID", "RANK",
					     "OMPI_COMM_WORLD_RANK", "PMI_RANK" };
	char why[128];
	int64_t v;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (env_int(names[i], &v, why, sizeof(why)) == 1 && v < 1L << 30)
			return (long)v;
	return -1;
}

/* Expand %h (host), %p (pid), %r (rank), %j (SLURM_JOB_ID), %% in a
 * user's path.  -1 if it does not fit or has another %. */
static int expand_path(const char *in, char *out, size_t len)
{
	size_t o = 0;
	const char *p;

	for (p = in; *p; p++) {
		char num[32];
		const char *add = num;

		if (*p != '%') {
			num[0] = *p;
			num[1] = '\0';
		} else {
			switch (*++p) {
			case 'h': add = rt.host; break;
			case 'p': snprintf(num, sizeof(num), "%ld", (long)getpid()); break;
			case 'r': snprintf(num, sizeof(num), "%ld", rt.rank); break;
			case 'j':
				add = getenv("SLURM_JOB_ID");
				if (!add || strchr(add, '/'))
					add = "nojob";
				break;
			case '%': add = "%"; break;
			default: return -1;
			}
		}
		if (o + strlen(add) >= len)
			return -1;
		memcpy(out + o, add, strlen(add));
		o += strlen(add);
	}
	out[o] = '\0';
	return 0;
}

static void host_name(void)
{
	char *c;

	if (gethostname(rt.host, sizeof(rt.host) - 1) != 0 || !rt.host[0])
		strcpy(rt.host, "unknown");
	rt.host[sizeof(rt.host) - 1] = '\0';
	/* The name goes into file names. */
	for (c = rt.host; *c; c++)
		if (*c == '/' || *c == ' ')
			*c = '_';
}

/* The doc's rule: a job gating once per iteration is released at epoch +
 * shift + offset + k * period.  The gate gets that as one shift from the
 * cluster's epoch, so that a margin (ORRERY_GATE_MARGIN_PPM) stretches
 * every job's whole arrangement about the same origin.  A shift outside
 * [0, period) goes to the gate as it is, for its own refusal. */
void rt_gate_place(orrery_gate_params_t *p, int64_t epoch, int64_t shift, int64_t offset)
{
	p->epoch_us = epoch;
	p->shift_us = shift < p->period_us ? (shift + offset) % p->period_us : shift;
}

/* Decide active or no-op; fills rt.why for a no-op. */
static void read_gate_env(void)
{
	orrery_gate_params_t p;
	orrery_gate_t *g = NULL;
	orrery_error_t err;
	int64_t period = 0, epoch = 0, shift = 0, offset = 0, margin = 0;
	const char *onoff = getenv("ORRERY_GATE");
	char *why = rt.why;
	size_t wl = sizeof(rt.why);
	int have_p, have_e, have_s, have_o;

	if (onoff && strcmp(onoff, "on") != 0) {
		if (strcmp(onoff, "off") == 0)
			snprintf(why, wl, "ORRERY_GATE=off");
		else if (strncmp(onoff, "none:", 5) == 0)	/* spank-orrery(8) */
			snprintf(why, wl, "no gate for this job (%.40s)", onoff + 5);
		else
			snprintf(why, wl, "ORRERY_GATE='%.32s' is neither on nor off", onoff);
		return;
	}
	have_p = env_int("ORRERY_PERIOD_US", &period, why, wl);
	if (have_p < 0)
		return;
	have_e = env_int("ORRERY_EPOCH_US", &epoch, why, wl);
	if (have_e < 0)
		return;
	have_s = env_int("ORRERY_SHIFT_US", &shift, why, wl);
	if (have_s < 0)
		return;
	have_o = env_int("ORRERY_PHASE_OFFSET_US", &offset, why, wl);
	if (have_o < 0)
		return;
	if (!have_p && !have_e && !have_s) {
		snprintf(why, wl, "no ORRERY_PERIOD_US, ORRERY_EPOCH_US, ORRERY_SHIFT_US (not an orrery job, or no shift assigned)");
		return;
	}
	if (!have_p || !have_e || !have_s) {
		snprintf(why, wl, "%s not set", !have_p ? "ORRERY_PERIOD_US" :
			 !have_e ? "ORRERY_EPOCH_US" : "ORRERY_SHIFT_US");
		return;
	}
	if (have_o && offset >= period) {
		snprintf(why, wl, "ORRERY_PHASE_OFFSET_US=%" PRId64 " is not below the period %" PRId64,
			 offset, period);
		return;
	}
	if (epoch > INT64_MAX / 2) {
		snprintf(why, wl, "ORRERY_EPOCH_US=%" PRId64 " is out of range", epoch);
		return;
	}
	if (env_int("ORRERY_GATE_MARGIN_PPM", &margin, why, wl) < 0)
		return;
	if (margin > ORRERY_GATE_MAX_MARGIN_PPM) {
		snprintf(why, wl, "ORRERY_GATE_MARGIN_PPM=%" PRId64 " is above %d (20 %%)",
			 margin, ORRERY_GATE_MAX_MARGIN_PPM);
		return;
	}
	orrery_gate_params_default(&p);
	p.period_us = period;
	p.margin_ppm = (uint32_t)margin;
	rt_gate_place(&p, epoch, shift, offset);
	if (orrery_gate_new(&p, &g, &err) != ORRERY_OK) {
		snprintf(why, wl, "%.200s (ORRERY_PERIOD_US=%" PRId64 ", ORRERY_SHIFT_US=%" PRId64 ")",
			 err.message, period, shift);
		return;
	}
	rt.gate = *g;
	orrery_gate_free(g);
	rt.slot_base_us = rt.gate.grid_base_us;
	rt.phase_offset_us = offset;
	rt.active = 1;
}

static void at_exit(void)
{
	orrery_runtime_finish();
}

/* fork() without exec: the child has the parent's counters and, through
 * atexit, would write them again in a statistics file of its own pid,
 * counted twice in the job's accounting (spank-orrery(8), gate_stats=1).
 * So the child counts from the fork: the gate's counters then become a
 * base subtracted from what it reports (the gate itself is left as it
 * is: its state decides the child's slots), the runtime's own counters
 * start at zero, and it writes files only if it does something before it
 * exits (finish()'s "nothing since" rule).  The lock is held across the
 * fork so that the child's copy of it is consistent. */
static void at_fork_prepare(void)
{
	pthread_mutex_lock(&rt.lock);
	wr_fork_prepare();
	rec_fork_prepare();
}

static void at_fork_parent(void)
{
	wr_fork_parent();
	pthread_mutex_unlock(&rt.lock);
}

static void at_fork_child(void)
{
	wr_fork_child();
	if (rt.active) {
		chan_gate_stats(&rt.fork_base);
		rt.forked = 1;
	}
	rt.updates_received = rt.updates_applied = rt.late_switches = 0;
	rt.stalls_passed = rt.short_periods = rt.relocked = 0;
	/* %p is the pid of the process that writes: not the parent's file. */
	if (rt.stats_pattern[0] &&
	    expand_path(rt.stats_pattern, rt.stats_path, sizeof(rt.stats_path)) < 0)
		rt.stats_path[0] = '\0';
	rec_fork_child();
	rt.finished = 1;
	rt.finished_phases = 0;
	rt.finished_records = 0;
	rt.finish_rc = 0;
	pthread_mutex_unlock(&rt.lock);
}

/* What the child has done since the fork.  max_wait_us stays the
 * process's longest: the epilog takes a maximum over files, where the
 * parent's is counted anyway. */
static void since_fork(orrery_gate_stats_t *s)
{
	const orrery_gate_stats_t *b = &rt.fork_base;

	s->phases -= b->phases;
	s->on_slot -= b->on_slot;
	s->late -= b->late;
	s->missed -= b->missed;
	s->passthrough -= b->passthrough;
	s->total_wait_us -= b->total_wait_us;
	s->total_late_us -= b->total_late_us;
	s->reanchored -= b->reanchored;
	s->rearmed -= b->rearmed;
	s->disables -= b->disables;
}

int orrery_runtime_init(void)
{
	const char *s;
	int64_t v;
	char why[128];

	pthread_mutex_lock(&rt.lock);
	if (rt.inited) {
		pthread_mutex_unlock(&rt.lock);
		return rt.active;
	}
	rt.inited = 1;
	if (env_int("ORRERY_RUNTIME_VERBOSE", &v, why, sizeof(why)) == 1)
		rt.verbose = v > 2 ? 2 : (int)v;
	host_name();
	rt.rank = env_rank();
	read_gate_env();
	s = getenv("ORRERY_RUNTIME_STATS");
	if (s && s[0] && expand_path(s, rt.stats_path, sizeof(rt.stats_path)) < 0) {
		rt_log(1, RT_PREFIX "ORRERY_RUNTIME_STATS='%.64s': too long or a %% other than %%h %%p %%r %%j %%%%: no statistics file",
		       s);
		rt.stats_path[0] = '\0';
	} else if (s && strstr(s, "%p")) {	/* a forked child's is its own */
		snprintf(rt.stats_pattern, sizeof(rt.stats_pattern), "%s", s);
	}
	/* The job's own copy, for accounting (spank-orrery(8), gate_stats=1):
	 * a directory the SPANK plugin made for this job on this node. */
	s = getenv("ORRERY_RUNTIME_JOB_STATS");
	if (s && s[0] && (s[0] != '/' || strlen(s) + RT_HOST_MAX + 48 > sizeof(rt.job_stats_dir)))
		rt_log(1, RT_PREFIX "ORRERY_RUNTIME_JOB_STATS='%.64s': not an absolute path or too long: no statistics for accounting",
		       s);
	else if (s)
		snprintf(rt.job_stats_dir, sizeof(rt.job_stats_dir), "%s", s);
	/* Read here, not by the writer thread: getenv races a setenv in
	 * the application's threads. */
	s = getenv("SLURM_STEP_ID");
	snprintf(rt.step, sizeof(rt.step), "%s",
		 s && s[0] && strlen(s) <= 10 && strspn(s, "0123456789") == strlen(s) ?
		 s : "batch");
	rec_init();
	if (rt.active)
		chan_init();
	else if (rt_has_stats()) {	/* what a killed process leaves */
		struct rt_snap snap;

		rt_snap_locked(&snap);
		rt_write_snap(&snap);
	}
	if (rt.active)
		rt_log(1, RT_PREFIX "gating: period %" PRId64 " us, slots at %" PRId64 " + k * period (host %s, rank %ld)",
		       rt.gate.grid_period_us, rt.slot_base_us, rt.host, rt.rank);
	else
		rt_log(1, RT_PREFIX "not gating: %s", rt.why);
	pthread_mutex_unlock(&rt.lock);
	atexit(at_exit);
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
	return rt.active;
}

int orrery_runtime_active(void)
{
	return orrery_runtime_init();
}

/* A process that is killed (scancel, the time limit, an out-of-memory
 * kill: SIGTERM's default action too) never reaches atexit.  So what
 * atexit would write is also written while the process runs, from its
 * gated phases and its recorded collectives, at the first of them
 * RT_TICK_US or more after the first, then at most every RT_TICK_US,
 * and at the first after the live channel changed the gate: the
 * statistics files are rewritten and the timeline's buffered lines
 * appended, by the writer thread (writer.c; the phase only hands them
 * over).  What the job's accounting and orrery-capture get from a killed
 * process is then what it had done up to its last tick, about RT_TICK_US
 * before its end while it was busy.  Each rewrite is a new file renamed
 * over the old (write_stats), so the epilog never reads half of one.
 * After a failed statistics write it stops rewriting until exit, so as
 * not to repeat the error every few seconds (the timeline stops at its
 * own failure).  Lock held. */
#define RT_TICK_US 2000000

void rt_tick_locked(int64_t now_us)
{
	/* Not at the first: a run shorter than RT_TICK_US writes only at
	 * exit. */
	if (!rt.tick_next_us)
		rt.tick_next_us = now_us + RT_TICK_US;
	if (now_us < rt.tick_next_us && !rt.tick_now)
		return;
	if (wr_submit_locked())
		return;	/* the writer is still at the last one: next phase */
	rt.tick_now = 0;
	rt.tick_next_us = now_us + RT_TICK_US;
}

int64_t orrery_runtime_release_at(int64_t now_us)
{
	int64_t t;

	if (!orrery_runtime_init())
		return now_us;
	pthread_mutex_lock(&rt.lock);
	if (chan_tick(now_us)) {	/* gate turned off by the controller */
		rt_tick_locked(now_us);
		pthread_mutex_unlock(&rt.lock);
		return now_us;
	}
	t = orrery_gate_release_at(&rt.gate, now_us);
	rt_tick_locked(now_us);
	if (rt.verbose >= 2) {
		int64_t k = (t - rt.slot_base_us) / rt.gate.grid_period_us;
		rt_log(2, RT_PREFIX "phase %" PRIu64 ": ready %" PRId64 ", released %" PRId64 " (slot %" PRId64 "%s), waits %" PRId64 " us",
		       rt.gate.st.phases, now_us, t, k,
		       rt.gate.st.disabled ? ", gate disabled" : "", t - now_us);
	}
	pthread_mutex_unlock(&rt.lock);
	return t;
}

static void sleep_until(int64_t t_us)
{
	struct timespec ts = { .tv_sec = t_us / 1000000,
			       .tv_nsec = (t_us % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int64_t orrery_runtime_wait_for_slot(void)
{
	int64_t now, t;

	if (!orrery_runtime_init())
		return 0;
	now = orrery_runtime_now_us();
	t = orrery_runtime_release_at(now);
	if (t <= now)
		return 0;
	sleep_until(t);
	return orrery_runtime_now_us() - now;
}

static void stats_locked(orrery_runtime_stats_t *out)
{
	memset(out, 0, sizeof(*out));
	out->channel_gate = -1;
	if (rt.active) {
		orrery_gate_stats_t cs;
		const orrery_gate_stats_t *s = &cs;

		chan_gate_stats(&cs);
		if (rt.forked)
			since_fork(&cs);

		out->phases = s->phases;
		out->on_slot = s->on_slot;
		out->late = s->late;
		out->missed = s->missed;
		out->passthrough = s->passthrough;
		out->total_wait_us = s->total_wait_us;
		out->max_wait_us = s->max_wait_us;
		out->total_late_us = s->total_late_us;
		out->disabled = s->disabled;
		out->reanchored = s->reanchored;
		out->rearmed = s->rearmed;
		out->disables = s->disables;
		out->period_now_us = s->period_us;
		out->measured_us = s->measured_us;
		out->mode = s->mode;
		out->min_work_us = s->min_work_us;
		out->range_us = s->range_us;
		out->period_us = rt.gate.p.period_us;
		out->slot_base_us = rt.slot_base_us;
		out->active = 1;
		out->updates_received = rt.updates_received;
		out->updates_applied = rt.updates_applied;
		out->late_switches = rt.late_switches;
		out->channel_gen = rt.chan_gen;
		out->last_apply_us = rt.last_apply_us;
		out->last_pub_us = rt.last_pub_us;
		if (rt.chan_path[0])
			out->channel_gate = !rt.chan_off;
	}
	out->recorded = rec_count();
	out->record_dropped = rec_dropped();
}

void orrery_runtime_stats(orrery_runtime_stats_t *out)
{
	orrery_runtime_init();
	pthread_mutex_lock(&rt.lock);
	stats_locked(out);
	pthread_mutex_unlock(&rt.lock);
}

void orrery_runtime_phase_event(int event)
{
	pthread_mutex_lock(&rt.lock);
	switch (event) {
	case ORRERY_RUNTIME_PHASES_COUNTED:
		rt.bursts_counted = 1;
		break;
	case ORRERY_RUNTIME_PHASE_STALL:
		rt.stalls_passed++;
		break;
	case ORRERY_RUNTIME_PHASE_SHORT:
		rt.short_periods++;
		break;
	case ORRERY_RUNTIME_PHASES_STOPPED:
		rt.bursts_counted = 2;
		break;
	case ORRERY_RUNTIME_PHASE_RELOCK:
		rt.relocked++;
		break;
	}
	pthread_mutex_unlock(&rt.lock);
}

static const char *bursts_counted(int counted)
{
	return counted == 1 ? "on" : counted == 2 ? "stopped" : "none";
}

/* ---------------------------------------------------------------- finish */

static int write_stats(const char *path, const struct rt_snap *snap)
{
	const orrery_runtime_stats_t *s = &snap->s;
	char tmp[RT_PATH_MAX + 32];
	FILE *f;
	int fd, bad;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rt_log(1, RT_PREFIX "cannot write statistics %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	fprintf(f, "# orrery-runtime stats 1\n");
	fprintf(f, "host=%s\npid=%ld\nrank=%ld\nactive=%d\n", rt.host,
		(long)getpid(), rt.rank, s->active);
	if (!s->active)
		fprintf(f, "reason=%s\n", rt.why);
	fprintf(f, "period_us=%" PRId64 "\nslot_base_us=%" PRId64 "\n"
		"phases=%" PRIu64 "\non_slot=%" PRIu64 "\nlate=%" PRIu64 "\n"
		"missed=%" PRIu64 "\npassthrough=%" PRIu64 "\n"
		"total_wait_us=%" PRId64 "\nmax_wait_us=%" PRId64 "\n"
		"total_late_us=%" PRId64 "\ndisabled=%d\n"
		"recorded=%" PRIu64 "\nrecord_dropped=%" PRIu64 "\n"
		"mode=%s\nreanchored=%" PRIu64 "\nrearmed=%" PRIu64 "\n"
		"disables=%" PRIu64 "\nperiod_now_us=%" PRId64 "\n"
		"measured_us=%" PRId64 "\n"
		"channel=%s\nchannel_gen=%" PRIu64 "\nupdates_received=%" PRIu64 "\n"
		"updates_applied=%" PRIu64 "\nlate_switches=%" PRIu64 "\n"
		"last_apply_us=%" PRId64 "\nlast_pub_us=%" PRId64 "\n",
		s->period_us, s->slot_base_us, s->phases, s->on_slot, s->late,
		s->missed, s->passthrough, s->total_wait_us, s->max_wait_us,
		s->total_late_us, s->disabled, s->recorded, s->record_dropped,
		s->mode == ORRERY_GATE_ANCHORED ? "anchored" :
		s->mode == ORRERY_GATE_OFF ? "off" : "grid",
		s->reanchored, s->rearmed, s->disables, s->period_now_us,
		s->measured_us,
		s->channel_gate < 0 ? "none" : s->channel_gate ? "on" : "off",
		s->channel_gen, s->updates_received, s->updates_applied,
		s->late_switches, s->last_apply_us, s->last_pub_us);
	fprintf(f, "bursts_counted=%s\nstalls_passed=%" PRIu64 "\nshort_periods=%" PRIu64 "\n"
		"relocked=%" PRIu64 "\nmin_work_us=%" PRId64 "\nrange_us=%" PRId64 "\n",
		bursts_counted(snap->bursts_counted), snap->stalls_passed,
		snap->short_periods, snap->relocked, s->min_work_us, s->range_us);
	bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		rt_log(1, RT_PREFIX "cannot write statistics %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The user's file (ORRERY_RUNTIME_STATS) and the job's copy for
 * accounting, one per process: DIR/HOST.STEP.PID.stats, named when
 * written so that a forked child does not overwrite its parent's, and
 * with the step so that a pid used again by a later step does not
 * overwrite an earlier step's ("batch" outside a step). */
int rt_write_snap(const struct rt_snap *s)
{
	char path[RT_PATH_MAX];
	int rc = 0;

	if (rt.stats_path[0] && write_stats(rt.stats_path, s) < 0)
		rc = -1;
	if (rt.job_stats_dir[0]) {
		int n = snprintf(path, sizeof(path), "%s/%s.%s.%ld.stats",
				 rt.job_stats_dir, rt.host, rt.step, (long)getpid());

		if (n < 0 || (size_t)n >= sizeof(path) || write_stats(path, s) < 0)
			rc = -1;
	}
	return rc;
}

int rt_has_stats(void)
{
	return rt.stats_path[0] || rt.job_stats_dir[0];
}

void rt_snap_locked(struct rt_snap *out)
{
	stats_locked(&out->s);
	out->bursts_counted = rt.bursts_counted;
	out->stalls_passed = rt.stalls_passed;
	out->short_periods = rt.short_periods;
	out->relocked = rt.relocked;
}

int orrery_runtime_finish(void)
{
	struct rt_snap snap;
	orrery_runtime_stats_t s;
	int rc = 0;

	orrery_runtime_init();
	pthread_mutex_lock(&rt.lock);
	/* What the writer thread has in hand is written before this, so the
	 * files end with the newest. */
	wr_idle_locked();
	rt_snap_locked(&snap);
	s = snap.s;
	/* atexit after an explicit call: only if something happened since. */
	if (rt.finished && rt.finished_phases == s.phases &&
	    rt.finished_records == s.recorded + s.record_dropped) {
		rc = rt.finish_rc;
		pthread_mutex_unlock(&rt.lock);
		return rc;
	}
	if (rec_finish_locked() < 0)
		rc = -1;
	if (rt_write_snap(&snap) < 0)
		rc = -1;
	if (s.active)
		rt_log(1, RT_PREFIX "rank %ld: %" PRIu64 " phases: %" PRIu64 " on slot, %" PRIu64 " late, %" PRIu64 " missed, %" PRIu64 " passed through; re-anchored %" PRIu64 ", turned off %" PRIu64 ", re-armed %" PRIu64 " time(s); gate %s%s; waited %.3f s (max %.3f ms)",
		       rt.rank, s.phases, s.on_slot, s.late, s.missed, s.passthrough,
		       s.reanchored, s.disables, s.rearmed,
		       s.mode == ORRERY_GATE_ANCHORED ? "anchored" :
		       s.mode == ORRERY_GATE_OFF ? "off" : "on its grid",
		       s.mode == ORRERY_GATE_ANCHORED ? " (iterations longer than the period)" : "",
		       s.total_wait_us / 1e6, s.max_wait_us / 1e3);
	if (s.active && rt.bursts_counted)
		rt_log(1, RT_PREFIX "rank %ld: bursts counted: %s; %" PRIu64 " period(s) with a stalled burst passed, %" PRIu64 " gated before their other bursts were seen, %" PRIu64 " re-lock(s) on the first burst",
		       rt.rank, bursts_counted(rt.bursts_counted), rt.stalls_passed, rt.short_periods, rt.relocked);
	if (rec_enabled())
		rt_log(1, RT_PREFIX "rank %ld: recorded %" PRIu64 " collectives%s",
		       rt.rank, s.recorded, s.record_dropped ? " (line limit reached: later ones dropped)" : "");
	rt.finished = 1;
	rt.finished_phases = s.phases;
	rt.finished_records = s.recorded + s.record_dropped;
	rt.finish_rc = rc;
	pthread_mutex_unlock(&rt.lock);
	return rc;
}
