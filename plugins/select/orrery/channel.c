/*
 * channel.c - the live channel, controller side (channel.h).
 */
#include "config.h"	/* Slurm's */

#include <errno.h>
#include <glib.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/state_save.h"

#include "admin_record.h"
#include "channel.h"
#include "channel_record.h"
#include "state_saver.h"

/* slurmctld's own: weak, the plugin also loads in client commands. */
#pragma weak find_job_record
#pragma weak schedule_job_save
#pragma weak last_job_update
#pragma weak lock_slurmctld
#pragma weak unlock_slurmctld
/* liborrery's time division: weak, an older liborrery leaves the channel
 * off (said once) and everything else working. */
#pragma weak orrery_cluster_realign
#pragma weak orrery_division_free
#pragma weak orrery_division_job_count
#pragma weak orrery_division_job_gate
#pragma weak orrery_division_find_job
#pragma weak orrery_division_group
#pragma weak orrery_group_mode_name
#pragma weak orrery_cluster_epoch_us

#define CHANNEL_FILE "orrery_channel"
#define CHANNEL_MAGIC "orrery_channel 1\n"

static orrery_division_t *prev;		/* what the running jobs follow */
/*
 * Persist, then publish.  A record decided by a re-solve goes into
 * `tokens' (what orrery_channel holds and what the next re-solve builds
 * on) and into `pending'; only once the saver thread has orrery_channel
 * with it on disk does durable() copy it into the job's AdminComment,
 * where the node-side poller can see it.  So no job ever sees a
 * generation that a kill -9 could take from the controller: after any
 * restart the controller serves a generation at least as new as every
 * job's, and never gives a number it served before to other values.
 * chan_mtx guards both tables and the counters (taken after slurmctld's
 * job lock and after orr_ctld_lock, never before either).
 */
static pthread_mutex_t chan_mtx = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *tokens;		/* job id -> its newest ORRG1: token */
static GHashTable *pending;		/* job id -> struct pend, not yet on disk */
static uint64_t decided_seq;		/* tickets of the saves */
static bool closing;			/* fini: durable() publishes nothing */
static uint64_t n_published, n_decided, n_realigns, realign_ns;
static uint64_t durable_ns;		/* decision to AdminComment, summed */
/* The job beginning now, and the generation its previous run (a requeue)
 * reached: its gate is its new launch values, its next record numbered
 * after the old ones. */
static uint32_t newcomer_id;
static uint64_t newcomer_gen;

struct pend {
	uint64_t seq;			/* ticket of the save that holds it */
	uint64_t decided_ns;		/* mono_ns() */
	char *tok;
};

static void pend_free(gpointer p)
{
	struct pend *e = p;

	g_free(e->tok);
	g_free(e);
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void ensure_table(void)
{
	if (!tokens)
		tokens = g_hash_table_new_full(g_direct_hash, g_direct_equal,
					       NULL, g_free);
	if (!pending)
		pending = g_hash_table_new_full(g_direct_hash, g_direct_equal,
						NULL, pend_free);
}

/* Put a durable token into the job's AdminComment; 0 when it is there. */
static int comment_set(job_record_t *job_ptr, const char *tok)
{
	char *merged = orrc_comment_replace(job_ptr->admin_comment, ORRC_TAG,
					    tok);

	if (!merged)
		return -1;
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
	return 0;
}

/*
 * The saver thread: orrery_channel with every record up to `ticket' is on
 * disk.  Those records are published now, under slurmctld's job write
 * lock (no lock of the plugin's is held here, and none is taken but
 * chan_mtx after it).  The wait for that lock is the only wait, and it is
 * this thread's, never the scheduler's.
 */
static void durable(uint64_t ticket)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	GHashTableIter it;
	gpointer k, v;
	size_t n = 0;
	uint64_t t;

	if (!lock_slurmctld || !unlock_slurmctld || !find_job_record)
		return;
	pthread_mutex_lock(&chan_mtx);
	if (closing) {		/* slurmctld is going: the next start */
		pthread_mutex_unlock(&chan_mtx);	/* puts them back */
		return;
	}
	pthread_mutex_unlock(&chan_mtx);
	lock_slurmctld(job_write);
	t = mono_ns();		/* in AdminComment from now */
	pthread_mutex_lock(&chan_mtx);
	if (!closing && pending) {
		g_hash_table_iter_init(&it, pending);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			struct pend *e = v;
			job_record_t *job_ptr;

			if (e->seq > ticket)
				continue;	/* in a later save */
			job_ptr = find_job_record(GPOINTER_TO_UINT(k));
			if (job_ptr && (IS_JOB_RUNNING(job_ptr) ||
					IS_JOB_SUSPENDED(job_ptr)) &&
			    !comment_set(job_ptr, e->tok)) {
				n_published++;
				durable_ns += t - e->decided_ns;
				n++;
				debug("select/orrery: channel: %pJ published %s (%"PRIu64" ms after the decision)",
				      job_ptr, e->tok,
				      (t - e->decided_ns) / 1000000);
			}
			g_hash_table_iter_remove(&it);
		}
	}
	pthread_mutex_unlock(&chan_mtx);
	if (n) {
		if (&last_job_update)
			last_job_update = time(NULL);
		if (schedule_job_save)
			schedule_job_save();
	}
	unlock_slurmctld(job_write);
}

static char *channel_path(const char *state_dir)
{
	return state_dir ? g_strdup_printf("%s/" CHANNEL_FILE, state_dir) :
		NULL;
}

/* Every running job's newest token, to the saver thread; the records
 * decided up to now are published once it is on disk (durable()).
 * chan_mtx held. */
static void save(const char *state_dir)
{
	GString *s = g_string_new(CHANNEL_MAGIC);
	GHashTableIter it;
	gpointer k, v;
	char *path = channel_path(state_dir);
	size_t len;

	g_hash_table_iter_init(&it, tokens);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_string_append_printf(s, "%u %s\n", GPOINTER_TO_UINT(k),
				       (const char *) v);
	len = s->len;
	if (path)
		orr_saver_submit_ticket(path, strdup(s->str), len, durable,
					decided_seq);
	g_string_free(s, TRUE);
	g_free(path);
}

/* The gate the controller has for the job: its newest channel record
 * (decided, on disk or not yet: a next re-solve must build on it, or two
 * could give the same generation), else its launch values from ORR1:.
 * 2: a channel record, 1: launch values, 0: neither (not ours). */
static int effective(job_record_t *job_ptr, orrc_record_t *eff)
{
	orrery_admin_record_t ar;
	char why[128];
	const char *tok = tokens ? g_hash_table_lookup(tokens,
					GUINT_TO_POINTER(job_ptr->job_id)) : NULL;
	int rc;

	if (job_ptr->job_id == newcomer_id)
		goto launch;
	if (tok && orrc_parse_comment(tok, eff, why, sizeof(why)) == 1)
		return 2;
	rc = orrc_parse_comment(job_ptr->admin_comment, eff, why, sizeof(why));
	if (rc == 1)
		return 2;
	if (rc < 0)
		error("select/orrery: channel: %pJ: AdminComment's " ORRC_TAG " record is malformed (%s): starting again from its launch values",
		      job_ptr, why);
launch:
	memset(eff, 0, sizeof(*eff));
	memset(&ar, 0, sizeof(ar));
	if (orrery_admin_record_parse(job_ptr->admin_comment, &ar) != 1)
		return 0;
	rc = ar.placed && ar.period_us > 0;
	if (job_ptr->job_id == newcomer_id)
		eff->gen = newcomer_gen;
	eff->gate = 1;
	eff->period_us = ar.period_us;
	eff->shift_us = ar.shift_us;
	eff->epoch_us = ar.epoch_us;
	orrery_admin_record_clear(&ar);
	return rc;
}

/* The first slot boundary of the old gate at or after t (t itself when
 * the old gate is off: there is no grid to keep). */
static int64_t apply_time(const orrc_record_t *eff, int64_t t)
{
	int64_t base, k;

	if (!eff->gate || eff->period_us <= 0)
		return t;
	base = eff->epoch_us + eff->shift_us;
	if (t <= base)
		return base;
	k = (t - base + eff->period_us - 1) / eff->period_us;
	return base + k * eff->period_us;
}

/* A new record for the job: into `tokens' and `pending'; it reaches the
 * job's AdminComment once on disk (durable()).  chan_mtx held. */
static void decide(job_record_t *job_ptr, const orrc_record_t *eff,
		   const orrery_division_job_t *dj, const char *mode,
		   int64_t epoch, uint32_t lead_ms, int at_launch)
{
	orrc_record_t r = { 0 };
	struct pend *e;
	char tok[512];
	int64_t t = now_us();

	r.gen = eff->gen + 1;
	r.gate = dj->gated != 0;
	r.period_us = r.gate ? dj->period_us : 0;
	r.shift_us = r.gate ? dj->shift_us : 0;
	r.epoch_us = epoch;
	r.pub_us = t;
	/* at_launch: a newcomer's own record that turns its gate off.  None
	 * of its tasks runs yet and it has no neighbour to switch with, so
	 * it holds from the start (apply_us = pub_us: no lead), and its
	 * ranks that read it before their first iteration never gate. */
	r.apply_us = at_launch && !r.gate ? t :
		apply_time(eff, t + (int64_t) lead_ms * 1000);
	snprintf(r.mode, sizeof(r.mode), "%s", mode);
	if (orrc_format_token(&r, tok, sizeof(tok)) < 0) {
		error("select/orrery: channel: %pJ: cannot form its record; it keeps its gate",
		      job_ptr);
		return;
	}
	g_hash_table_replace(tokens, GUINT_TO_POINTER(job_ptr->job_id),
			     g_strdup(tok));
	e = g_new0(struct pend, 1);
	e->seq = decided_seq + 1;	/* the save that follows this pass */
	e->decided_ns = mono_ns();
	e->tok = g_strdup(tok);
	g_hash_table_replace(pending, GUINT_TO_POINTER(job_ptr->job_id), e);
	n_decided++;
	info("select/orrery: channel: %pJ gen=%"PRIu64" gate=%s period=%"PRId64"us shift=%"PRId64"us (%s) from %"PRId64" (in %"PRId64" ms), published once on disk",
	     job_ptr, r.gen, r.gate ? "on" : "off", r.period_us, r.shift_us,
	     r.mode, r.apply_us, (r.apply_us - t) / 1000);
}

/* Has the job (beginning: its node_cnt is not set yet) more than one node?
 * A one-node job has no network phase and no gate (spank task.c). */
static int multi_node(uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record(job_id);

	return job_ptr && job_ptr->node_bitmap &&
	       bit_set_count(job_ptr->node_bitmap) > 1;
}

static int differs(const orrc_record_t *eff, const orrery_division_job_t *dj)
{
	if (!eff->gate != !dj->gated)
		return 1;
	return dj->gated && (eff->period_us != dj->period_us ||
			     eff->shift_us != dj->shift_us);
}

void orr_channel_before_locked(orrery_cluster_t *c, uint32_t lead_ms)
{
	orrery_error_t err = { 0 };

	if (prev || !lead_ms || !c || !orrery_cluster_realign)
		return;
	/* After a (re)start: which jobs share which links now.  The shifts
	 * of this fresh solve are not used (apply 0); a group it holds that
	 * the change leaves alone is then not re-solved. */
	if (orrery_cluster_realign(c, NULL, 0, &prev, &err) != ORRERY_OK)
		prev = NULL;
}

/*
 * Every job of d whose gate changed gets a record.  job_id/begun: the job
 * that began or ended (0: none, a resync).  resync: after a restart,
 * every group is compared with what the controller serves, and a job now
 * alone whose last record put it in a group is switched off (its last
 * neighbour left while the update was not yet on disk, or while
 * slurmctld was down).  chan_mtx held.  The number of records decided.
 */
static size_t decide_changes(orrery_cluster_t *c, orrery_division_t *d,
			     uint32_t job_id, int begun, int resync,
			     uint32_t lead_ms)
{
	int64_t epoch = orrery_cluster_epoch_us(c);
	size_t n = orrery_division_job_count(d), changed = 0;

	for (size_t i = 0; i < n; i++) {
		orrery_division_job_t dj;
		orrery_division_group_t dg;
		orrery_division_job_t want;
		orrc_record_t eff;
		job_record_t *job_ptr;
		const char *mode = "alone";
		int src;

		/* Rotation: a running job keeps the shift it started with
		 * (the newcomer was shifted against it, as CASSINI does); only
		 * a gate that was off comes back on, at that shift. */
		if (orrery_division_job_gate(c, d, i, &dj) != ORRERY_OK)
			continue;
		if (dj.group >= 0) {
			/* Same jobs on the same links as before: nothing
			 * changed for them. */
			if (orrery_division_group(d, (size_t) dj.group, &dg) !=
			    ORRERY_OK || (dg.reused && !resync))
				continue;
			mode = orrery_group_mode_name(dg.mode);
		} else if (!resync) {
			orrery_division_job_t pj;

			/* Alone now: a job that was in a group before (its
			 * last neighbour left) changes, and so does a
			 * multi-node newcomer: it shares no constrained link,
			 * so its launch gate could only cost it time (gated
			 * alone, netbed's scenario c ran 40% slower).  It
			 * comes back on when a neighbour joins its links. */
			if (!(begun && job_id && dj.job_id == job_id &&
			      multi_node(job_id)) &&
			    (!prev || orrery_division_find_job(prev, dj.job_id, &pj) !=
			     ORRERY_OK || pj.group < 0))
				continue;
		}
		want = dj;
		job_ptr = find_job_record(want.job_id);
		/* The newcomer is not RUNNING yet inside job_begin. */
		if (!job_ptr ||
		    (!IS_JOB_RUNNING(job_ptr) &&
		     !(begun && job_id && want.job_id == job_id)) ||
		    !(src = effective(job_ptr, &eff)))
			continue;
		/* Resync of a job alone: only one the channel had put in a
		 * group; launch values are left as they are. */
		if (resync && dj.group < 0 &&
		    (src != 2 || !eff.gate || !strcmp(eff.mode, "alone")))
			continue;
		if (!differs(&eff, &want))
			continue;
		decide(job_ptr, &eff, &want, mode, epoch, lead_ms,
		       begun && job_id && want.job_id == job_id);
		changed++;
	}
	return changed;
}

static void after_changes(size_t changed, const char *state_dir)
{
	if (!changed)
		return;
	decided_seq++;
	save(state_dir);
}

void orr_channel_changed_locked(orrery_cluster_t *c, uint32_t job_id,
				int begun, uint32_t lead_ms,
				const char *state_dir)
{
	static bool said;
	orrery_division_t *d = NULL;
	orrery_error_t err = { 0 };
	uint64_t t0;
	size_t changed = 0;

	if (!lead_ms || !c)
		return;
	if (!orrery_cluster_realign || !orrery_division_job_gate ||
	    !find_job_record) {
		if (!said)
			error("select/orrery: channel: liborrery has no orrery_cluster_realign: running jobs keep their launch gates");
		said = true;
		return;
	}
	pthread_mutex_lock(&chan_mtx);
	ensure_table();
	if (g_hash_table_remove(tokens, GUINT_TO_POINTER(job_id)))
		changed++;
	g_hash_table_remove(pending, GUINT_TO_POINTER(job_id));
	newcomer_id = 0;
	if (begun) {
		job_record_t *job_ptr = find_job_record(job_id);
		orrc_record_t old;
		char why[128];

		/* Requeued: the record of its previous run must not reach
		 * the new one's nodes, which start on the new launch gate. */
		newcomer_id = job_id;
		newcomer_gen = 0;
		if (job_ptr && orrc_parse_comment(job_ptr->admin_comment, &old,
						  why, sizeof(why)) == 1) {
			newcomer_gen = old.gen;
			(void) comment_set(job_ptr, "");
		}
	}
	t0 = mono_ns();
	/* apply 0: the model keeps every running job's rotation shift (see
	 * decide_changes); only the groups and their decisions are used. */
	if (orrery_cluster_realign(c, prev, 0, &d, &err) != ORRERY_OK) {
		error("select/orrery: channel: re-solving the link groups failed (%s): running jobs keep their gates",
		      err.message);
		newcomer_id = 0;
		pthread_mutex_unlock(&chan_mtx);
		return;
	}
	n_realigns++;
	realign_ns += mono_ns() - t0;
	changed += decide_changes(c, d, job_id, begun, 0, lead_ms);
	newcomer_id = 0;
	if (prev)
		orrery_division_free(prev);
	prev = d;
	after_changes(changed, state_dir);
	pthread_mutex_unlock(&chan_mtx);
}

bool orr_channel_reassert_locked(job_record_t *job_ptr)
{
	const char *tok;
	char *have = NULL;
	bool put = false;

	pthread_mutex_lock(&chan_mtx);
	/* Not yet on disk: durable() puts it there, nothing to restore. */
	if (tokens && !(pending && g_hash_table_contains(pending,
					GUINT_TO_POINTER(job_ptr->job_id))) &&
	    (tok = g_hash_table_lookup(tokens, GUINT_TO_POINTER(job_ptr->job_id)))) {
		const char *cur;
		size_t n;
		char why[64];

		/* The comment's own ORRG1: token, tag included. */
		if (orrc_find_token(job_ptr->admin_comment, ORRC_TAG, &cur, &n,
				    why, sizeof(why)) == 1)
			have = g_strndup(cur - strlen(ORRC_TAG), n + strlen(ORRC_TAG));
		if (!have || strcmp(have, tok))
			put = !comment_set(job_ptr, tok);
	}
	pthread_mutex_unlock(&chan_mtx);
	g_free(have);
	return put;
}

void orr_channel_resync_locked(orrery_cluster_t *c, uint32_t lead_ms,
			       const char *state_dir)
{
	orrery_division_t *d = NULL;
	orrery_error_t err = { 0 };
	size_t changed;

	if (!lead_ms || !c || !orrery_cluster_realign || !find_job_record)
		return;
	pthread_mutex_lock(&chan_mtx);
	ensure_table();
	if (orrery_cluster_realign(c, NULL, 0, &d, &err) != ORRERY_OK) {
		error("select/orrery: channel: re-solving the link groups after the restart failed (%s): running jobs keep their gates",
		      err.message);
		pthread_mutex_unlock(&chan_mtx);
		return;
	}
	n_realigns++;
	changed = decide_changes(c, d, 0, 0, 1, lead_ms);
	if (prev)
		orrery_division_free(prev);
	prev = d;
	info("select/orrery: channel: re-solved every link group after the start: %zu running jobs get a new record",
	     changed);
	after_changes(changed, state_dir);
	pthread_mutex_unlock(&chan_mtx);
}

void orr_channel_job_init(list_t *job_list, const char *state_dir)
{
	char *path = channel_path(state_dir), *text = NULL, **lines;
	size_t restored = 0, kept = 0, bad = 0;
	GError *gerr = NULL;
	GHashTableIter pit;
	gpointer pk, pv;

	pthread_mutex_lock(&chan_mtx);
	closing = false;
	ensure_table();
	g_hash_table_remove_all(tokens);
	if (prev && orrery_division_free)
		orrery_division_free(prev);
	prev = NULL;
	if (!path || !find_job_record)
		goto out;
	if (!g_file_get_contents(path, &text, NULL, &gerr)) {
		if (!g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			error("select/orrery: channel: cannot read %s (%s): running jobs keep what their AdminComment says",
			      path, gerr->message);
		g_clear_error(&gerr);
		goto out;
	}
	if (!g_str_has_prefix(text, CHANNEL_MAGIC)) {
		error("select/orrery: channel: %s is not an orrery_channel 1 file: ignored (running jobs keep what their AdminComment says; it is written anew now)",
		      path);
		goto out;
	}
	lines = g_strsplit(text + strlen(CHANNEL_MAGIC), "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		char *sp = strchr(lines[i], ' '), *end, why[128];
		orrc_record_t fr, jr;
		unsigned long id;
		job_record_t *job_ptr;
		int jrc;

		if (!lines[i][0])
			continue;
		errno = 0;
		id = strtoul(lines[i], &end, 10);
		if (!sp || end != sp || errno || !id || id > UINT32_MAX ||
		    orrc_parse_comment(sp + 1, &fr, why, sizeof(why)) != 1) {
			bad++;
			continue;
		}
		job_ptr = find_job_record((uint32_t) id);
		if (!job_ptr || !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
			continue;
		jrc = orrc_parse_comment(job_ptr->admin_comment, &jr, why,
					 sizeof(why));
		if (jrc == 1 && jr.gen >= fr.gen) {
			kept++;
			continue;	/* Slurm's own state is as new */
		}
		if (comment_set(job_ptr, sp + 1))
			continue;
		restored++;
	}
	g_strfreev(lines);
	if (bad)
		error("select/orrery: channel: %s: %zu malformed lines ignored (those jobs keep what their AdminComment says)",
		      path, bad);
	if (restored)
		info("select/orrery: channel: put back %zu records newer than Slurm's job state from %s (%zu were as new)",
		     restored, path, kept);
out:
	/* The tokens of every running job, as they now are. */
	if (job_list) {
		list_itr_t *it = list_iterator_create(job_list);
		job_record_t *job_ptr;

		while ((job_ptr = list_next(it))) {
			orrc_record_t r;
			char why[128], tok[512];

			if ((IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) &&
			    orrc_parse_comment(job_ptr->admin_comment, &r, why,
					       sizeof(why)) == 1 &&
			    orrc_format_token(&r, tok, sizeof(tok)) == 0)
				g_hash_table_replace(tokens,
						     GUINT_TO_POINTER(job_ptr->job_id),
						     g_strdup(tok));
		}
		list_iterator_destroy(it);
	}
	/* A reconfigure (job_init again) while records wait for the disk:
	 * they are newer than any AdminComment and stay what the next
	 * re-solve builds on. */
	g_hash_table_iter_init(&pit, pending);
	while (g_hash_table_iter_next(&pit, &pk, &pv))
		g_hash_table_replace(tokens, pk,
				     g_strdup(((struct pend *) pv)->tok));
	if (restored) {
		if (&last_job_update)
			last_job_update = time(NULL);
		if (schedule_job_save)
			schedule_job_save();
	}
	decided_seq++;
	save(state_dir);
	pthread_mutex_unlock(&chan_mtx);
	g_free(text);
	g_free(path);
}

void orr_channel_closing(void)
{
	pthread_mutex_lock(&chan_mtx);
	closing = true;
	pthread_mutex_unlock(&chan_mtx);
}

void orr_channel_fini(void)
{
	pthread_mutex_lock(&chan_mtx);
	closing = true;
	if (prev && orrery_division_free)
		orrery_division_free(prev);
	prev = NULL;
	if (tokens)
		g_hash_table_destroy(tokens);
	tokens = NULL;
	if (pending)
		g_hash_table_destroy(pending);
	pending = NULL;
	pthread_mutex_unlock(&chan_mtx);
}

void orr_channel_stats(uint64_t *published, uint64_t *decided,
		       uint64_t *realigns, uint64_t *ns, uint64_t *dur_ns)
{
	pthread_mutex_lock(&chan_mtx);
	*published = n_published;
	*decided = n_decided;
	*realigns = n_realigns;
	*ns = realign_ns;
	*dur_ns = durable_ns;
	pthread_mutex_unlock(&chan_mtx);
}
