/*
 * channel.c - liborrery-runtime's side of the live channel
 * (orrery-runtime(7), CHANNEL).
 *
 * ORRERY_CHANNEL (set by the SPANK plugin) names a file the node's
 * slurmstepd (root) rewrites when slurmctld publishes a new gate for the
 * job.  Accepted only as a regular, root-owned file writable by nobody
 * else, at most ORRC_FILE_MAX bytes, naming this job (SLURM_JOB_ID), with
 * a generation above the one read before.  Looked at (one fstat, and a
 * read when it changed) at most every 200 ms, at an iteration boundary:
 * the first communication phase of an iteration is where the gate is
 * asked anyway.  A record is applied at the first iteration boundary at
 * or after its apply_us (a slot boundary of the old gate that the
 * controller put channel_lead_ms ahead); every rank holding it by then
 * switches at the same boundary.  A rank that reads it only after apply_us
 * switches at its next boundary and counts a late switch.  A record with
 * apply_us at or before pub_us was given no lead (a newcomer's launch
 * gate turned off before its tasks ran): it holds from the first boundary
 * after it is read and is never late.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_internal.h"

#define CHAN_LOOK_US 200000

void chan_init(void)
{
	const char *p = getenv("ORRERY_CHANNEL");
	const char *j = getenv("SLURM_JOB_ID");
	char *end;
	unsigned long id;

	rt.chan_path[0] = '\0';
	if (!p || !p[0] || !j)
		return;
	errno = 0;
	id = strtoul(j, &end, 10);
	if (errno || *end || !id || id > UINT32_MAX || strlen(p) >= sizeof(rt.chan_path)) {
		rt_log(1, RT_PREFIX "ORRERY_CHANNEL or SLURM_JOB_ID unusable: no live channel");
		return;
	}
	rt.job_id = (uint32_t)id;
	snprintf(rt.chan_path, sizeof(rt.chan_path), "%s", p);
}

static void say_once(const char *fmt, const char *what)
{
	if (rt.chan_said)
		return;
	rt.chan_said = 1;
	rt_log(1, RT_PREFIX "live channel %s: %s; keeping the gate in force (said once)",
	       rt.chan_path, what);
	(void)fmt;
}

/* Read the file when it changed; a newer generation becomes pending. */
static void look(int64_t now_us)
{
	char buf[ORRC_FILE_MAX + 1], why[160];
	struct stat st;
	orrc_record_t r;
	ssize_t n;
	int fd = open(rt.chan_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		if (errno != ENOENT)	/* none yet: no update so far */
			say_once(NULL, strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022) || st.st_size > ORRC_FILE_MAX) {
		close(fd);
		say_once(NULL, "not a root-owned file writable only by root: ignored");
		return;
	}
	if ((int64_t)st.st_ino == rt.chan_ino && (int64_t)st.st_size == rt.chan_size &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == rt.chan_mtime_ns) {
		close(fd);
		return;
	}
	n = read(fd, buf, ORRC_FILE_MAX);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	rt.chan_ino = (int64_t)st.st_ino;
	rt.chan_size = (int64_t)st.st_size;
	rt.chan_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	if (orrc_parse_file(buf, rt.job_id, &r, why, sizeof(why)) != 1) {
		say_once(NULL, why);
		return;
	}
	if (r.gen <= rt.chan_seen)
		return;		/* older or the same: ignored */
	if (r.gate && (r.period_us <= rt.phase_offset_us || r.epoch_us > INT64_MAX / 2)) {
		say_once(NULL, "a gate period not above the phase offset: ignored");
		return;
	}
	rt.chan_seen = r.gen;
	rt.chan_rec = r;
	rt.chan_rec_seen_us = now_us;
	rt.chan_pending = 1;
	rt.updates_received++;
	rt_log(1, RT_PREFIX "rank %ld: channel gen %" PRIu64 " received: gate %s, period %" PRId64 " us, shift %" PRId64 " us, from %" PRId64 " (in %" PRId64 " ms)",
	       rt.rank, r.gen, r.gate ? "on" : "off", r.period_us, r.shift_us,
	       r.apply_us, (r.apply_us - now_us) / 1000);
}

/* Read after the instant every rank was to switch at; a record with no
 * lead (apply_us <= pub_us) has no such instant. */
static int late(const orrc_record_t *r)
{
	return r->apply_us > r->pub_us && rt.chan_rec_seen_us > r->apply_us;
}

static void apply(int64_t now_us)
{
	const orrc_record_t *r = &rt.chan_rec;
	int was_late;

	if (r->gate) {
		orrery_gate_params_t p = rt.gate.p;
		orrery_gate_t *g = NULL;
		orrery_error_t err;

		p.period_us = r->period_us;
		rt_gate_place(&p, r->epoch_us, r->shift_us, rt.phase_offset_us);
		p.late_tolerance_us = 0;	/* period / 10 of the new period */
		if (orrery_gate_new(&p, &g, &err) != ORRERY_OK) {
			say_once(NULL, err.message);
			rt.chan_pending = 0;
			return;
		}
		{
			orrery_gate_stats_t st = rt.gate.st;

			orrery_gate_stats_carry(&st, &rt.carried);
			rt.carried = st;
		}
		rt.gate = *g;
		orrery_gate_free(g);
		rt.slot_base_us = rt.gate.grid_base_us;
		rt.chan_off = 0;
	} else {
		rt.chan_off = 1;
	}
	rt.chan_pending = 0;
	rt.chan_gen = r->gen;
	rt.updates_applied++;
	was_late = late(r);
	if (was_late)
		rt.late_switches++;
	rt.last_apply_us = now_us;
	rt.last_pub_us = r->pub_us;
	rt_log(1, RT_PREFIX "rank %ld: channel gen %" PRIu64 " applied %" PRId64 " us after its apply-at time%s: gate %s",
	       rt.rank, r->gen, now_us - r->apply_us,
	       was_late ? " (late: read after it)" : "",
	       r->gate ? "on" : "off");
	rt.tick_now = 1;	/* written by this phase's tick: seen while the job runs */
}

int chan_tick(int64_t now_us)
{
	if (!rt.chan_path[0])
		return 0;
	if (now_us >= rt.chan_next_us) {
		rt.chan_next_us = now_us + CHAN_LOOK_US;
		look(now_us);
	}
	if (rt.chan_pending && now_us >= rt.chan_rec.apply_us)
		apply(now_us);
	if (rt.chan_off) {
		rt.chan_passthrough++;
		/* Still measured: orrery-sacct's Iteration for a job alone
		 * on its links or sharing them ungated. */
		orrery_gate_observe(&rt.gate, now_us);
	}
	return rt.chan_off;
}

void chan_gate_stats(orrery_gate_stats_t *out)
{
	*out = rt.gate.st;
	orrery_gate_stats_carry(out, &rt.carried);
	out->phases += rt.chan_passthrough;
	out->passthrough += rt.chan_passthrough;
	if (rt.chan_off) {
		out->disabled = 1;
		out->mode = ORRERY_GATE_OFF;
		out->period_us = 0;
	}
}
