/*
 * learn.c - learning the period inside slurmctld (learn.h).
 *
 * The way there: the SPANK plugin's channel poller on the job's batch
 * host (root) reads the gate statistics of the node's tasks and, when
 * the shortest of its latest windows' measured iterations is more than
 * the tolerance this side exported at job_begin (ORRERY_LEARN) off the
 * period the job was last known at (liborrery's rule, applied there
 * first so that a report is sent only when it moves the model), puts
 * ORRM1:seq=N,iter_us=A:B.. (those windows) into the job's AdminComment
 * with update_job.
 * Only operators, SlurmUser and root may set AdminComment, so no user
 * writes a report; what the report says comes from the job's own tasks,
 * as its profile does, and moves only that job's model, within half to
 * twice its profile's period (liborrery refuses the rest) and at most
 * once a minute (ORR_LEARN_MIN_GAP_S).
 *
 * The way back is the live channel: a retimed job's link group is solved
 * again and every changed gate published as after a job's end.
 */
#include "config.h"	/* Slurm's */

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "channel.h"
#include "channel_record.h"
#include "ctld_state.h"
#include "learn.h"
#include "lib_syms.h"
#include "measure_record.h"

#pragma weak orrery_cluster_job_measured

struct seen {
	uint64_t seq;		/* newest report taken */
	time_t retimed;		/* 0: never */
	bool said;		/* a malformed report logged */
	bool said_range;	/* a window liborrery refused logged */
};

static GHashTable *jobs;	/* job id -> struct seen; orr_ctld_lock */
static uint64_t n_taken, n_refused, n_retimed;

static struct seen *seen_of(uint32_t id)
{
	struct seen *s;

	if (!jobs)
		jobs = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					     NULL, g_free);
	s = g_hash_table_lookup(jobs, GUINT_TO_POINTER(id));
	if (!s) {
		s = g_new0(struct seen, 1);
		g_hash_table_insert(jobs, GUINT_TO_POINTER(id), s);
	}
	return s;
}

/* Jobs that left the model leave the table. */
static gboolean gone(gpointer k, gpointer v, gpointer c)
{
	int64_t shift, period;

	(void) v;
	return orrery_cluster_job_shift_us(c, GPOINTER_TO_UINT(k), &shift,
					   &period) != ORRERY_OK;
}

/* One job's report: 1 when it retimed the job. */
static int take(orrery_cluster_t *c, job_record_t *job_ptr, double tolerance,
		time_t now)
{
	orrm_record_t r;
	orrery_error_t err = { 0 };
	struct seen *s;
	char why[128];
	int rc, changed = 0;
	int64_t shift = 0, period = 0;

	rc = orrm_parse_comment(job_ptr->admin_comment, &r, why, sizeof(why));
	if (rc == 0)
		return 0;
	s = seen_of(job_ptr->job_id);
	/* Whatever the node's update_job overwrote of ours goes back. */
	if (orr_channel_reassert_locked(job_ptr))
		info("select/orrery: learn: %pJ: a node's report replaced the channel's record in AdminComment; put back",
		     job_ptr);
	if (rc < 0) {
		if (!s->said)
			error("select/orrery: learn: %pJ: malformed " ORRM_TAG " report in AdminComment (%s): ignored",
			      job_ptr, why);
		s->said = true;
		n_refused++;
		return 0;
	}
	if (r.seq <= s->seq)
		return 0;
	s->said = false;
	/* Within a minute of its last retime the report waits in the
	 * comment (the node does not send it again) and is taken at the
	 * first scan after, unless a newer one has replaced it. */
	if (s->retimed && now - s->retimed < ORR_LEARN_MIN_GAP_S) {
		debug2("select/orrery: learn: %pJ: report %" PRIu64 " within %d s of its last retime: held back until then",
		       job_ptr, r.seq, ORR_LEARN_MIN_GAP_S);
		return 0;
	}
	s->seq = r.seq;
	n_taken++;
	/* Window by window, oldest first: liborrery's rule decides. */
	for (unsigned w = 0; w < r.n; w++) {
		int ch = 0;

		if (orrery_cluster_job_measured(c, job_ptr->job_id, r.iter_us[w],
						tolerance, &ch, &err) != ORRERY_OK) {
			/* Out of range (a stall, a wrong profile by more
			 * than twice): said once a job; a window taken
			 * before it in this report still counts. */
			n_refused++;
			if (!s->said_range)
				info("select/orrery: learn: %pJ: measured iteration %" PRId64 " us not taken: %s",
				     job_ptr, r.iter_us[w], err.message);
			s->said_range = true;
			continue;
		}
		changed |= ch;
	}
	if (!changed) {
		debug("select/orrery: learn: %pJ: report %" PRIu64 " (%u windows, newest %" PRId64 " us): no change",
		      job_ptr, r.seq, r.n, r.iter_us[r.n - 1]);
		return 0;
	}
	s->retimed = now;
	n_retimed++;
	/* The period liborrery now models it with (its rule's choice among
	 * the latest windows). */
	(void) orrery_cluster_job_shift_us(c, job_ptr->job_id, &shift, &period);
	info("select/orrery: learn: %pJ modelled at its measured iteration (%" PRId64 " us, report %" PRIu64 "): its link group is solved again",
	     job_ptr, period, r.seq);
	return 1;
}

void orr_learn_scan_locked(orrery_cluster_t *c, double tolerance,
			   uint32_t lead_ms, const char *state_dir)
{
	static bool said;
	size_t n, retimed = 0;
	time_t now = time(NULL);

	if (!c || !(tolerance > 0) || !lead_ms)
		return;
	if (!orrery_cluster_job_measured || !find_job_record) {
		if (!said)
			error("select/orrery: learn: liborrery has no orrery_cluster_job_measured: jobs stay modelled at their profiles");
		said = true;
		return;
	}
	n = orrery_cluster_job_count(c);
	for (size_t i = 0; i < n; i++) {
		job_record_t *job_ptr = find_job_record(orrery_cluster_job_id(c, i));

		if (job_ptr && IS_JOB_RUNNING(job_ptr))
			retimed += take(c, job_ptr, tolerance, now);
	}
	if (jobs)
		g_hash_table_foreach_remove(jobs, gone, c);
	if (!retimed)
		return;
	/* As after a job's end: the retimed jobs' groups are new (their
	 * revisions changed), every changed gate gets a record; and the
	 * model, which now holds the retimed patterns, is saved. */
	orr_channel_changed_locked(c, 0, 0, lead_ms, state_dir);
	orr_bump_version_locked();
	orr_save_state_soon_locked();
}

void orr_learn_job_begin_locked(job_record_t *job_ptr)
{
	char *merged;

	if (jobs)
		g_hash_table_remove(jobs, GUINT_TO_POINTER(job_ptr->job_id));
	if (!job_ptr->admin_comment || !strstr(job_ptr->admin_comment, ORRM_TAG))
		return;
	/* A requeued job: its previous run's report is not this run's. */
	merged = orrc_comment_replace(job_ptr->admin_comment, ORRM_TAG, "");
	if (!merged)
		return;
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
}

void orr_learn_stats(uint64_t *taken, uint64_t *refused, uint64_t *retimed)
{
	*taken = n_taken;
	*refused = n_refused;
	*retimed = n_retimed;
}

void orr_learn_fini(void)
{
	if (jobs)
		g_hash_table_destroy(jobs);
	jobs = NULL;
}
