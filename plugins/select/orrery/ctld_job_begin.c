/*
 * ctld_job_begin.c - job_begin: evaluate the allocated nodes, record the
 * job with its shift, export ORRERY_* to the job's SPANK environment
 * (the prolog sees SPANK_ORRERY_*) and append an ORR1: record to
 * AdminComment (also for a profiled job orrery could not place, with
 * why); job_fini / resize / expand: forget the job.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "ctld_state.h"

#include "src/common/env.h"
#include "src/common/node_conf.h"

#include "admin_record.h"
#include "channel.h"
#include "learn.h"

/* Is entry NAME=...? */
static bool env_entry_is(const char *e, const char *name)
{
	size_t n = strlen(name);

	return e && !strncmp(e, name, n) && e[n] == '=';
}

/* Set NAME=value in the job's SPANK environment (seen by the prolog as
 * SPANK_NAME). */
static void spank_env_set(job_record_t *job_ptr, const char *name,
			  const char *value)
{
	char *entry = xstrdup_printf("%s=%s", name, value);

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		if (env_entry_is(job_ptr->spank_job_env[i], name)) {
			xfree(job_ptr->spank_job_env[i]);
			job_ptr->spank_job_env[i] = entry;
			return;
		}
	}
	xrecalloc(job_ptr->spank_job_env, job_ptr->spank_job_env_size + 2,
		  sizeof(char *));
	job_ptr->spank_job_env[job_ptr->spank_job_env_size++] = entry;
	job_ptr->spank_job_env[job_ptr->spank_job_env_size] = NULL;
}

/* The values only job_begin sets.  A client can put these names in the
 * job's SPANK environment itself (a plugstack of its own, a plugin of its
 * own), and the prolog relays whatever is there: a job orrery did not
 * place must not carry values that look like the controller's (security
 * review, finding 5).  The SPANK plugin then removes them from its tasks'
 * environment too (spank-orrery(8)). */
static const char *const controller_names[] = {
	"ORRERY_PERIOD_US", "ORRERY_EPOCH_US", "ORRERY_SHIFT_US",
	"ORRERY_JOB_SCORE", "ORRERY_LEARN",
};

static void spank_env_unset_controller(job_record_t *job_ptr)
{
	uint32_t i = 0;

	while (i < job_ptr->spank_job_env_size) {
		bool ours = false;

		for (size_t k = 0; !ours && k < ARRAY_SIZE(controller_names); k++)
			ours = env_entry_is(job_ptr->spank_job_env[i],
					    controller_names[k]);
		if (!ours) {
			i++;
			continue;
		}
		xfree(job_ptr->spank_job_env[i]);
		memmove(&job_ptr->spank_job_env[i], &job_ptr->spank_job_env[i + 1],
			(job_ptr->spank_job_env_size - i - 1) * sizeof(char *));
		job_ptr->spank_job_env[--job_ptr->spank_job_env_size] = NULL;
	}
}

/* Append (or replace) our record in AdminComment, keeping whatever else
 * is there (e.g. jobstats' JS1:). */
static void admin_comment_set(job_record_t *job_ptr, const char *record)
{
	char *merged = orrery_admin_comment_merge(job_ptr->admin_comment,
						  record);

	if (!merged)
		return;
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = xstrdup(merged);
	free(merged);
}

/* The profile the job asked for, canonical when it parsed (as the user
 * would write it: "gpt2:batch=16,precision=bf16", not the resolved
 * pattern), else as written.  malloc()ed. */
static char *requested_text(const orr_entry_t *e, const char *spec)
{
	char *canon = (e && e->parsed) ? orrery_profile_canonical(e->parsed) :
		NULL;
	char *r = strndup(canon ? canon : spec, 2048);

	if (canon)
		orrery_free(canon);
	return r;
}

/* Seconds from the job's first hold (hold=) to its start; 0: not held.
 * Slurm sets start_time before select_g_job_begin(). */
static int64_t held_seconds(const job_record_t *job_ptr, const orr_entry_t *e)
{
	time_t start = job_ptr->start_time ? job_ptr->start_time : time(NULL);

	if (!e->held_since || start <= e->held_since)
		return 0;
	return (int64_t) (start - e->held_since);
}

/* A profiled job that orrery could not evaluate, or holds (hold=): its
 * record says what it asked for and why nothing came of it (orrery-sacct
 * shows both); job_begin replaces a held job's with its full record. */
void orr_record_unplaced_locked(job_record_t *job_ptr, const char *spec,
				const orr_entry_t *e, const char *why)
{
	char *req = requested_text(e, spec);
	orrery_admin_record_t r = {
		.requested = req, .fallback = why,
		.from_default = spec == orr_ocnf.default_profile,
	};
	char *rec = orrery_admin_record_format(&r);

	if (rec)
		admin_comment_set(job_ptr, rec);
	free(rec);
	free(req);
}

void orrery_ctld_job_begin(job_record_t *job_ptr)
{
	const orrery_profile_t *prof = NULL;
	orrery_eval_t *ev = NULL;
	orrery_error_t err = { 0 };
	orr_entry_t *e = NULL;
	const char *why = NULL;	/* set: a fallback-only record at out */
	uint32_t *nodes = NULL;
	size_t n = 0;
	const char *spec;
	char *canon = NULL, *rec = NULL, *req = NULL, *names, buf[64];
	int64_t shift, period, epoch;
	double smin;
	int cnt;
	uint64_t t0 = orr_now_ns(), c0 = orr_cpu_ns();

	slurm_mutex_lock(&orr_ctld_lock);
	orr_bump_version_locked();	/* cons_tres allocated: any job */
	if (!(spec = orr_job_profile_spec(job_ptr)))
		goto out;
	why = orr_no_model_reason_locked();
	if (!orr_ensure_cluster_locked())
		goto out;
	why = "no_nodes";
	if (!job_ptr->node_bitmap)
		goto out;
	/* node_cnt is set after select_g_job_begin(): count the bitmap. */
	cnt = bit_set_count(job_ptr->node_bitmap);
	if (cnt <= 0)
		goto out;
	why = "bad_profile";
	if (!(e = orr_job_entry_locked(job_ptr, spec)))
		goto out;	/* recorded as written */
	orr_cache_unrank(orr_g.cache, e);	/* placed: the ranking is spent */
	if (!(prof = orr_entry_profile_locked(job_ptr, e, cnt)))
		goto out;
	why = "evaluation";
	nodes = xcalloc(cnt, sizeof(uint32_t));
	for (int i = 0; i < bit_size(job_ptr->node_bitmap) &&
		     i < orr_g.slurm_nodes && n < (size_t) cnt; i++) {
		if (!bit_test(job_ptr->node_bitmap, i))
			continue;
		if (orr_g.slurm2orr[i] < 0) {
			why = "node_not_in_tree";
			orr_fallback(job_ptr, "node %s is not in the switch tree",
				 node_record_table_ptr[i] ?
				 node_record_table_ptr[i]->name : "?");
			goto out;
		}
		nodes[n++] = (uint32_t) orr_g.slurm2orr[i];
	}
	if (orrery_cluster_evaluate(orr_g.cluster, nodes, n, prof, &ev, &err)) {
		orr_fallback(job_ptr, "evaluation failed: %s", err.message);
		goto out;
	}
	shift = orrery_eval_shift_us(ev);
	period = orrery_eval_period_us(ev);
	smin = orrery_eval_score_min(ev);
	epoch = orrery_cluster_epoch_us(orr_g.cluster);
	orr_channel_before_locked(orr_g.cluster, orr_ocnf.channel_lead_ms);
	orrery_cluster_remove_job(orr_g.cluster, job_ptr->job_id); /* requeue */
	if (orrery_cluster_add_job(orr_g.cluster, job_ptr->job_id, nodes, n, prof,
				   shift, &err)) {
		orr_fallback(job_ptr, "cannot record the job: %s", err.message);
		goto out;
	}
	orr_stats.begun++;
	why = NULL;
	orr_save_state_soon_locked();

	snprintf(buf, sizeof(buf), "%"PRId64, period);
	spank_env_set(job_ptr, "ORRERY_PERIOD_US", buf);
	snprintf(buf, sizeof(buf), "%"PRId64, epoch);
	spank_env_set(job_ptr, "ORRERY_EPOCH_US", buf);
	snprintf(buf, sizeof(buf), "%"PRId64, shift);
	spank_env_set(job_ptr, "ORRERY_SHIFT_US", buf);
	snprintf(buf, sizeof(buf), "%.4f", smin);
	spank_env_set(job_ptr, "ORRERY_JOB_SCORE", buf);
	/* learn= (learn.c): the job's first node reports its measured
	 * iteration when it is further than this off its gate's period. */
	if (__atomic_load_n(&orr_learn_on, __ATOMIC_RELAXED)) {
		snprintf(buf, sizeof(buf), "%.6f", orr_ocnf.learn_tol);
		spank_env_set(job_ptr, "ORRERY_LEARN", buf);
	}

	canon = orrery_profile_canonical(prof);
	req = requested_text(e, spec);
	{
		orrery_admin_record_t r = {
			.period_us = period, .shift_us = shift,
			.epoch_us = epoch, .score_min = smin,
			.score_mean = orrery_eval_score_mean(ev),
			.links = orrery_eval_link_count(ev), .profile = canon,
			.placed = true, .requested = req,
			.from_default = spec == orr_ocnf.default_profile,
			/* set when cons_tres, not orrery, chose the nodes */
			.fallback = e->fallback,
			.held_s = held_seconds(job_ptr, e),
		};
		rec = orrery_admin_record_format(&r);
		e->held_since = 0;	/* a requeued job's next wait is its own */
		e->clear_at = 0;
	}
	if (rec)
	admin_comment_set(job_ptr, rec);
	orr_learn_job_begin_locked(job_ptr);
	/* After ORR1: is there: the newcomer's launch gate is known. */
	orr_channel_changed_locked(orr_g.cluster, job_ptr->job_id, 1,
				   orr_ocnf.channel_lead_ms,
				   slurm_conf.state_save_location);
	/* Per job only with debug=1: the ORR1: record carries the same
	 * (sacct, orrery-sacct), and this line's formatting and write()
	 * were 5% of the scheduler thread's CPU in a 400-job burst. */
	if (orr_debug()) {
		names = bitmap2node_name(job_ptr->node_bitmap);
		info("select/orrery: %pJ on %s: period=%"PRId64"us shift=%"PRId64"us score_min=%.3f",
		     job_ptr, names, period, shift, smin);
		xfree(names);
	}
out:
	if (why)
		orr_record_unplaced_locked(job_ptr, spec, e, why);
	if (why || !spec)
		spank_env_unset_controller(job_ptr);
	orr_stats.begin_ns += orr_now_ns() - t0;
	orr_stats.begin_cpu_ns += orr_cpu_ns() - c0;
	orr_log_stats_locked(false);
	slurm_mutex_unlock(&orr_ctld_lock);
	free(req);
	free(rec);
	if (canon)
		orrery_free(canon);
	xfree(nodes);
	if (ev)
		orrery_eval_free(ev);
}

void orrery_ctld_job_fini(job_record_t *job_ptr)
{
	slurm_mutex_lock(&orr_ctld_lock);
	orr_bump_version_locked();
	/* This job's entry, and those of jobs that ended without running
	 * (cancelled while pending: no job_fini for them). */
	if (orr_g.cache) {
		orr_cache_drop(orr_g.cache, job_ptr->job_id);
		orr_cache_sweep(orr_g.cache, orr_job_gone, NULL);
	}
	/* Build (and load the state) if nothing has yet: a job recorded
	 * before a restart may end before any job_test. */
	if (orr_ensure_cluster_locked()) {
		orr_channel_before_locked(orr_g.cluster, orr_ocnf.channel_lead_ms);
		if (orrery_cluster_remove_job(orr_g.cluster, job_ptr->job_id) ==
		    ORRERY_OK) {
			orr_channel_changed_locked(orr_g.cluster, job_ptr->job_id,
						   0, orr_ocnf.channel_lead_ms,
						   slurm_conf.state_save_location);
			orr_save_state_soon_locked();
			orr_log_stats_locked(false);
		}
	}
	slurm_mutex_unlock(&orr_ctld_lock);
}
