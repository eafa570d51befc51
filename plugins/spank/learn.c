/*
 * learn.c - learning the period, node side (spank-orrery(8), LEARNING THE
 * PERIOD; select-orrery(8) for the controller's side).
 *
 * When select/orrery runs with learn=TOL it gives the job TOL at
 * job_begin (ORRERY_LEARN, relayed by the prolog).  The job's channel
 * poller on the job's batch host (one node per job: the first of its
 * allocation) then reads, at every poll, the gate statistics of the
 * node's tasks (gate_stats=1: the files the epilog sums, read the same
 * way and left in place) and keeps, for each new window of 8 iterations,
 * the job's measured iteration (the longest over the tasks of each one's
 * shortest work in its latest window), the latest four.  It applies
 * the controller's rule (liborrery's orrery_cluster_job_measured): when
 * the shortest of them (at least two) is more than TOL off the period
 * the job was last known at (its launch period, then the shortest it
 * last reported), it puts ORRM1:seq=N,iter_us=A:B.. (measure_record.h:
 * those windows, which replace the four the controller keeps) into the
 * job's AdminComment with update_job, as root.  A job that runs as its
 * profile says costs no RPC, and a retimed job one a change: a report
 * the controller cannot take yet (within a minute of a retime) stays in
 * the comment until it can, and is not sent again.
 * When the job's iterations vary by more than TOL (its IterRange), a
 * report may be that variation rather than its pace: said once a job.
 *
 * AdminComment is rewritten whole from the copy this poll read: a
 * channel record the controller published in between is put back by the
 * controller at its next scan (select/orrery learn.c).  The tasks write
 * what is reported, so a user can make only their own job look longer or
 * shorter, within what liborrery accepts (half to twice its profile's
 * period), and the controller retimes a job at most once a minute.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <orrery.h>

#include "channel_record.h"
#include "gate_stats.h"
#include "measure_record.h"
#include "orrery_spank.h"

#pragma weak slurm_init_job_desc_msg
#pragma weak slurm_update_job

/* The node keeps the windows the controller's cluster keeps. */
_Static_assert(ORRM_MAX_WINDOWS == ORRERY_MEASURED_KEPT,
	       "a report carries the windows liborrery keeps");
/* Phases per task in a new window: 8 iterations. */
#define LEARN_WINDOW 8

static struct {
	int on;
	double tol;
	uint32_t job_id;
	uid_t uid;
	char node[256];
	uint64_t seq;
	int64_t win[ORRM_MAX_WINDOWS];	/* the latest windows, oldest first */
	unsigned n;
	uint64_t win_phases;	/* phases summed at the latest window */
	int64_t known_us;	/* the period the job was last known at */
	int said_fail;
	int said_range;		/* TOL below the job's IterRange said */
} ln;

void osp_learn_init(uint32_t job_id, uid_t uid, const char *node,
		    const struct osp_relay *r)
{
	char *end;
	double tol;
	long long period;

	memset(&ln, 0, sizeof(ln));
	if (!r->learn[0] || !r->period_us[0] || !node || strlen(node) >= sizeof(ln.node))
		return;
	errno = 0;
	tol = strtod(r->learn, &end);
	if (*end || errno || !(tol > 0) || tol > 0.5)
		return;
	period = strtoll(r->period_us, &end, 10);
	if (*end || period <= 0)
		return;
	ln.on = 1;
	ln.tol = tol;
	ln.job_id = job_id;
	ln.uid = uid;
	ln.known_us = period;
	snprintf(ln.node, sizeof(ln.node), "%s", node);
}

/* Put the token into AdminComment (the whole comment, from `old'). */
static int send_report(const char *old, const orrm_record_t *m)
{
	char tok[96], *merged;
	job_desc_msg_t d;
	int rc;

	if (geteuid() != 0 || orrm_format_token(m, tok, sizeof(tok)) < 0)
		return -1;	/* slurmstepd is the user for a moment */
	if (!(merged = orrc_comment_replace(old, ORRM_TAG, tok)))
		return -1;
	slurm_init_job_desc_msg(&d);
	d.job_id = ln.job_id;
	d.admin_comment = merged;
	rc = slurm_update_job(&d);
	free(merged);
	if (rc != SLURM_SUCCESS) {
		if (!ln.said_fail)
			slurm_error(OSP_LOG_PREFIX "learn: job %" PRIu32 ": cannot report its measured iteration to slurmctld (%s): tried again at the next window",
				    ln.job_id, slurm_strerror(errno));
		ln.said_fail = 1;
		return -1;
	}
	ln.said_fail = 0;
	return 0;
}

void osp_learn_tick(const char *batch_host, const char *admin_comment,
		    int verbose)
{
	struct ogs_totals t;
	orrm_record_t m;
	int64_t shortest;

	if (!ln.on || !slurm_update_job || !slurm_init_job_desc_msg ||
	    !batch_host || strcmp(batch_host, ln.node))
		return;
	/* Numbered after the newest report there: another step's poller
	 * (or this node's, before a restart) may have made it. */
	{
		orrm_record_t have;
		char why[64];

		if (orrm_parse_comment(admin_comment, &have, why, sizeof(why)) == 1 &&
		    have.seq > ln.seq)
			ln.seq = have.seq;
	}
	if (osp_gate_stats_now(ln.node, ln.job_id, ln.uid, &t) < 0 ||
	    !t.gated || !t.iter_us || t.iter_us > (uint64_t)ORRM_ITER_MAX_US)
		return;
	if (t.phases < ln.win_phases)
		ln.win_phases = 0;	/* a step's files went */
	if (t.phases < ln.win_phases + (uint64_t)LEARN_WINDOW * t.gated)
		return;		/* no new window since the latest */
	ln.win_phases = t.phases;
	if (ln.n == ORRM_MAX_WINDOWS) {	/* the oldest goes */
		memmove(ln.win, ln.win + 1, (ORRM_MAX_WINDOWS - 1) * sizeof(*ln.win));
		ln.n--;
	}
	ln.win[ln.n++] = (int64_t)t.iter_us;
	if (ln.n < 2)
		return;		/* liborrery needs two windows */
	/* The controller's rule, liborrery's own: the shortest of the latest
	 * windows, so that one slow window moves nothing and a longer
	 * iteration counts once every window kept shows it. */
	if (!orrery_measured_off(ln.win, ln.n, ln.known_us, ln.tol, &shortest))
		return;
	m.seq = ln.seq + 1;
	m.n = ln.n;
	memcpy(m.iter_us, ln.win, ln.n * sizeof(*ln.win));
	if (send_report(admin_comment, &m) < 0)
		return;
	ln.seq = m.seq;
	ln.known_us = shortest;
	/* TOL below the job's own variation: the shortest of a window sits
	 * that far below its pace by noise alone, so this report may be
	 * noise.  Reported all the same (a late job's range is widened by
	 * its collisions, and its report is the one that matters); said
	 * once, so that the site can compare TOL with IterRange. */
	if (!ln.said_range && t.range_us > ln.tol * (double)t.iter_us) {
		slurm_info(OSP_LOG_PREFIX "learn: job %" PRIu32 ": its iterations vary by %.1f%% (IterRange), more than learn=%g: its reports may be that variation, not its pace (orrery.conf(5) learn=)",
			   ln.job_id, 100.0 * (double)t.range_us / (double)t.iter_us, ln.tol);
		ln.said_range = 1;
	}
	if (verbose)
		slurm_info(OSP_LOG_PREFIX "learn: job %" PRIu32 ": reported %u windows, shortest %" PRId64 " us (report %" PRIu64 ", %" PRIu64 " gated tasks here)",
			   ln.job_id, m.n, shortest, m.seq, t.gated);
}
