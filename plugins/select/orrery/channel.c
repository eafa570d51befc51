/*
 * channel.c - the live channel, controller side (channel.h).
 */
#include "config.h"	/* Slurm's */

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/state_save.h"

#include "admin_record.h"
#include "channel.h"
#include "channel_record.h"
#include "state_saver.h"

/* slurmctld's own: weak, the plugin also loads in client commands. */
#pragma weak find_job_record
#pragma weak schedule_job_save
#pragma weak last_job_update
/* liborrery's time division: weak, an older liborrery leaves the channel
 * off (said once) and everything else working. */
#pragma weak orrery_cluster_realign
#pragma weak orrery_division_free
#pragma weak orrery_division_job_count
#pragma weak orrery_division_job
#pragma weak orrery_division_find_job
#pragma weak orrery_division_group
#pragma weak orrery_group_mode_name
#pragma weak orrery_cluster_epoch_us
#pragma weak orrery_cluster_job_shift_us

#define CHANNEL_FILE "orrery_channel"
#define CHANNEL_MAGIC "orrery_channel 1\n"

static orrery_division_t *prev;		/* what the running jobs follow */
static GHashTable *tokens;		/* job id -> its ORRG1: token */
static uint64_t n_published, n_realigns, realign_ns;

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
}

static char *channel_path(const char *state_dir)
{
	return state_dir ? g_strdup_printf("%s/" CHANNEL_FILE, state_dir) :
		NULL;
}

/* Every running job's newest token, to the saver thread. */
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
		orr_saver_submit(path, strdup(s->str), len);
	g_string_free(s, TRUE);
	g_free(path);
}

/* The gate the job runs now: its last channel record, else its launch
 * values from ORR1:.  0 when the job has neither (not ours). */
static int effective(job_record_t *job_ptr, orrc_record_t *eff)
{
	orrery_admin_record_t ar;
	char why[128];
	int rc = orrc_parse_comment(job_ptr->admin_comment, eff, why,
				    sizeof(why));

	if (rc == 1)
		return 1;
	if (rc < 0)
		error("select/orrery: channel: %pJ: AdminComment's " ORRC_TAG " record is malformed (%s): starting again from its launch values",
		      job_ptr, why);
	memset(eff, 0, sizeof(*eff));
	memset(&ar, 0, sizeof(ar));
	if (orrery_admin_record_parse(job_ptr->admin_comment, &ar) != 1)
		return 0;
	rc = ar.placed && ar.period_us > 0;
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

static void publish(job_record_t *job_ptr, const orrc_record_t *eff,
		    const orrery_division_job_t *dj, const char *mode,
		    int64_t epoch, uint32_t lead_ms)
{
	orrc_record_t r = { 0 };
	char tok[512];
	char *merged;
	int64_t t = now_us();

	r.gen = eff->gen + 1;
	r.gate = dj->gated != 0;
	r.period_us = r.gate ? dj->period_us : 0;
	r.shift_us = r.gate ? dj->shift_us : 0;
	r.epoch_us = epoch;
	r.pub_us = t;
	r.apply_us = apply_time(eff, t + (int64_t) lead_ms * 1000);
	snprintf(r.mode, sizeof(r.mode), "%s", mode);
	if (orrc_format_token(&r, tok, sizeof(tok)) < 0 ||
	    !(merged = orrc_comment_replace(job_ptr->admin_comment, ORRC_TAG,
					    tok))) {
		error("select/orrery: channel: %pJ: cannot form its record; it keeps its gate",
		      job_ptr);
		return;
	}
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
	g_hash_table_replace(tokens, GUINT_TO_POINTER(job_ptr->job_id),
			     g_strdup(tok));
	n_published++;
	info("select/orrery: channel: %pJ gen=%"PRIu64" gate=%s period=%"PRId64"us shift=%"PRId64"us (%s) from %"PRId64" (in %"PRId64" ms)",
	     job_ptr, r.gen, r.gate ? "on" : "off", r.period_us, r.shift_us,
	     r.mode, r.apply_us, (r.apply_us - t) / 1000);
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

void orr_channel_changed_locked(orrery_cluster_t *c, uint32_t job_id,
				int begun, uint32_t lead_ms,
				const char *state_dir)
{
	static bool said;
	orrery_division_t *d = NULL;
	orrery_error_t err = { 0 };
	uint64_t t0;
	size_t n, changed = 0;
	int64_t epoch;

	if (!lead_ms || !c)
		return;
	if (!orrery_cluster_realign || !orrery_division_job ||
	    !find_job_record) {
		if (!said)
			error("select/orrery: channel: liborrery has no orrery_cluster_realign: running jobs keep their launch gates");
		said = true;
		return;
	}
	ensure_table();
	if (!begun && g_hash_table_remove(tokens, GUINT_TO_POINTER(job_id)))
		changed++;
	t0 = mono_ns();
	/* apply 0: the model keeps every running job's rotation shift (see
	 * below); only the groups and their decisions are used. */
	if (orrery_cluster_realign(c, prev, 0, &d, &err) != ORRERY_OK) {
		error("select/orrery: channel: re-solving the link groups failed (%s): running jobs keep their gates",
		      err.message);
		return;
	}
	n_realigns++;
	realign_ns += mono_ns() - t0;
	epoch = orrery_cluster_epoch_us(c);
	n = orrery_division_job_count(d);
	for (size_t i = 0; i < n; i++) {
		orrery_division_job_t dj;
		orrery_division_group_t dg;
		orrery_division_job_t want;
		orrc_record_t eff;
		job_record_t *job_ptr;
		const char *mode = "alone";

		if (orrery_division_job(d, i, &dj) != ORRERY_OK)
			continue;
		if (dj.group >= 0) {
			/* Same jobs on the same links as before: nothing
			 * changed for them. */
			if (orrery_division_group(d, (size_t) dj.group, &dg) !=
			    ORRERY_OK || dg.reused)
				continue;
			mode = orrery_group_mode_name(dg.mode);
			/* Rotation: a running job keeps the shift it started with
			 * (the newcomer was shifted against it, as CASSINI does);
			 * only a gate that was off comes back on, at that shift. */
			if (dg.mode == ORRERY_GROUP_ROTATE && dj.gated &&
			    orrery_cluster_job_shift_us(c, dj.job_id, &dj.shift_us,
							&dj.period_us) != ORRERY_OK)
				continue;
		} else {
			orrery_division_job_t pj;

			/* Alone now: only a job that was in a group before
			 * (its last neighbour left) changes. */
			if (!prev || orrery_division_find_job(prev, dj.job_id, &pj) !=
			    ORRERY_OK || pj.group < 0)
				continue;
		}
		want = dj;
		job_ptr = find_job_record(want.job_id);
		/* The newcomer is not RUNNING yet inside job_begin. */
		if (!job_ptr ||
		    (!IS_JOB_RUNNING(job_ptr) && !(begun && want.job_id == job_id)) ||
		    !effective(job_ptr, &eff) || !differs(&eff, &want))
			continue;
		publish(job_ptr, &eff, &want, mode, epoch, lead_ms);
		changed++;
	}
	if (prev)
		orrery_division_free(prev);
	prev = d;
	if (!changed)
		return;
	save(state_dir);
	if (&last_job_update)
		last_job_update = time(NULL);
	if (schedule_job_save)
		schedule_job_save();
}

void orr_channel_job_init(list_t *job_list, const char *state_dir)
{
	char *path = channel_path(state_dir), *text = NULL, **lines;
	size_t restored = 0, kept = 0;
	GError *gerr = NULL;

	ensure_table();
	g_hash_table_remove_all(tokens);
	if (prev && orrery_division_free)
		orrery_division_free(prev);
	prev = NULL;
	if (!path || !find_job_record)
		goto out;
	if (!g_file_get_contents(path, &text, NULL, &gerr)) {
		if (!g_error_matches(gerr, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			error("select/orrery: channel: %s: %s; running jobs keep what their AdminComment says",
			      path, gerr->message);
		g_clear_error(&gerr);
		goto out;
	}
	if (!g_str_has_prefix(text, CHANNEL_MAGIC)) {
		error("select/orrery: channel: %s is not an orrery_channel 1 file: ignored",
		      path);
		goto out;
	}
	lines = g_strsplit(text + strlen(CHANNEL_MAGIC), "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		char *sp = strchr(lines[i], ' '), *end, why[128], *merged;
		orrc_record_t fr, jr;
		unsigned long id;
		job_record_t *job_ptr;
		int jrc;

		if (!lines[i][0])
			continue;
		errno = 0;
		id = strtoul(lines[i], &end, 10);
		if (!sp || end != sp || errno || !id || id > UINT32_MAX ||
		    orrc_parse_comment(sp + 1, &fr, why, sizeof(why)) != 1)
			continue;
		job_ptr = find_job_record((uint32_t) id);
		if (!job_ptr || !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
			continue;
		jrc = orrc_parse_comment(job_ptr->admin_comment, &jr, why,
					 sizeof(why));
		if (jrc == 1 && jr.gen >= fr.gen) {
			kept++;
			continue;	/* Slurm's own state is as new */
		}
		if (!(merged = orrc_comment_replace(job_ptr->admin_comment,
						    ORRC_TAG, sp + 1)))
			continue;
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = xstrdup(merged);
		free(merged);
		restored++;
	}
	g_strfreev(lines);
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
	if (restored) {
		if (&last_job_update)
			last_job_update = time(NULL);
		if (schedule_job_save)
			schedule_job_save();
	}
	save(state_dir);
	g_free(text);
	g_free(path);
}

void orr_channel_fini(void)
{
	if (prev && orrery_division_free)
		orrery_division_free(prev);
	prev = NULL;
	if (tokens)
		g_hash_table_destroy(tokens);
	tokens = NULL;
}

void orr_channel_stats(uint64_t *published, uint64_t *realigns,
		       uint64_t *ns)
{
	*published = n_published;
	*realigns = n_realigns;
	*ns = realign_ns;
}
