/*
 * orrery_ctld.c - select/orrery_cons_tres inside slurmctld: its life
 * cycle hooks (init, fini, reconfigure, topology and state changes,
 * job_init).  The work is split by concern:
 *
 *   ctld_state.c      shared state, counters, fallback and stats lines
 *   ctld_conf.c       orrery.conf (re)read
 *   ctld_cluster.c    the cluster model: topology, orrery_state, recovery
 *   ctld_profile.c    a job's comm profile and its cache entry
 *   ctld_job_test.c   ranking and narrowing cons_tres's choice
 *   ctld_job_begin.c  job_begin / job_fini: shift, SPANK env, ORR1 record
 *
 * Fail-open: every orrery error leaves the job to plain cons_tres and logs
 * "select/orrery: <reason>, falling back to cons_tres for JobId=N".
 * Everything runs under slurmctld's job and node locks; orr_ctld_lock
 * only guards this plugin's state against the few calls made without
 * them.
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

#include "src/slurmctld/locks.h"

#include "orrery.h"
#include "ctld_state.h"
#include "channel.h"
#include "learn.h"
#include <pthread.h>
#include <time.h>

#include "state_saver.h"

#pragma weak lock_slurmctld
#pragma weak unlock_slurmctld

/* ------------------------------------------------------------------ */
/* The plugin's own thread: the channel's resync after a start          */
/* (channel.h), then learning the period's scan (learn.h)               */
/* ------------------------------------------------------------------ */

/* Seconds after the first job_init: the nodes have registered and the
 * topology plugin is loaded, and the jobs' pollers have had a round. */
#define RESYNC_DELAY_S 3

static pthread_mutex_t worker_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t worker_cond = PTHREAD_COND_INITIALIZER;
static pthread_t worker_thread;
static bool worker_running, worker_stopping, resync_done;

/* Waits s seconds, worker_mtx held; false when the plugin is stopping. */
static bool worker_wait(int s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += s;
	while (!worker_stopping &&
	       pthread_cond_timedwait(&worker_cond, &worker_mtx, &ts) == 0)
		;
	return !worker_stopping;
}

/* Its own thread: it takes slurmctld's locks as every other thread does
 * (job_init runs with them held, and inside read_slurm_conf the model
 * cannot be built yet).  A learn scan holds the job write lock for a few
 * string parses per running profiled job, and takes no lock while
 * learn= is off. */
static void *worker_main(void *arg)
{
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				   .node = READ_LOCK, .part = READ_LOCK };

	slurm_mutex_lock(&worker_mtx);
	if (arg && worker_wait(RESYNC_DELAY_S)) {
		slurm_mutex_unlock(&worker_mtx);
		lock_slurmctld(locks);
		slurm_mutex_lock(&orr_ctld_lock);
		if (orr_conf_ok && orr_ocnf.channel_lead_ms && orr_ensure_cluster_locked())
			orr_channel_resync_locked(orr_g.cluster, orr_ocnf.channel_lead_ms,
						  slurm_conf.state_save_location);
		slurm_mutex_unlock(&orr_ctld_lock);
		unlock_slurmctld(locks);
		slurm_mutex_lock(&worker_mtx);
	}
	while (worker_wait(ORR_LEARN_SCAN_S)) {
		slurm_mutex_unlock(&worker_mtx);
		/* Read unlocked first: no lock at all while it is off. */
		if (__atomic_load_n(&orr_learn_on, __ATOMIC_RELAXED)) {
			lock_slurmctld(locks);
			slurm_mutex_lock(&orr_ctld_lock);
			if (orr_conf_ok && orr_ocnf.learn_tol > 0 &&
			    orr_ocnf.channel_lead_ms && orr_g.cluster)
				orr_learn_scan_locked(orr_g.cluster, orr_ocnf.learn_tol,
						      orr_ocnf.channel_lead_ms,
						      slurm_conf.state_save_location);
			slurm_mutex_unlock(&orr_ctld_lock);
			unlock_slurmctld(locks);
		}
		slurm_mutex_lock(&worker_mtx);
	}
	slurm_mutex_unlock(&worker_mtx);
	return NULL;
}

/* The resync once per slurmctld process (job_init also runs at
 * reconfigure); the scans while the plugin is loaded. */
static void worker_start(void)
{
	slurm_mutex_lock(&worker_mtx);
	if (!worker_running && lock_slurmctld && unlock_slurmctld) {
		void *resync = resync_done ? NULL : &resync_done;

		resync_done = true;
		worker_stopping = false;
		if (pthread_create(&worker_thread, NULL, worker_main, resync) == 0)
			worker_running = true;
		else
			error("select/orrery: cannot start the plugin's thread: no channel resync after this start (link groups are re-solved at the next job start or end) and no learn= scan (jobs stay modelled at their profiles)");
	}
	slurm_mutex_unlock(&worker_mtx);
}

static void worker_stop(void)
{
	bool join;

	slurm_mutex_lock(&worker_mtx);
	worker_stopping = true;
	pthread_cond_signal(&worker_cond);
	join = worker_running;
	worker_running = false;
	slurm_mutex_unlock(&worker_mtx);
	if (join)
		pthread_join(worker_thread, NULL);
}

/* ------------------------------------------------------------------ */
/* Hooks                                                               */
/* ------------------------------------------------------------------ */

void orrery_ctld_init(void)
{
	slurm_mutex_lock(&orr_ctld_lock);
	/* The one strong reference to liborrery: keeps it in DT_NEEDED
	 * (the weak ones alone would let the linker drop it). */
	info("select/orrery: liborrery %s", orrery_version());
	orr_load_conf_locked();
	orr_g.need_build = true;
	if (!orr_g.cache)
		orr_g.cache = orr_cache_new(ORR_CACHE_CAP, orr_free_profile);
	orr_stats.last_log = time(NULL);
	slurm_mutex_unlock(&orr_ctld_lock);
}

void orrery_ctld_fini(void)
{
	worker_stop();		/* before orr_ctld_lock: it takes it */
	orr_channel_closing();	/* no AdminComment written from now on */
	slurm_mutex_lock(&orr_ctld_lock);
	orr_log_stats_locked(true);
	orr_save_state_locked();
	slurm_mutex_unlock(&orr_ctld_lock);
	/* Written before slurmctld exits; not under orr_ctld_lock, which a
	 * deferred save's serialisation in the saver thread takes. */
	orr_saver_stop();
	slurm_mutex_lock(&orr_ctld_lock);
	orr_drop_cluster_locked();
	orr_channel_fini();
	orr_learn_fini();
	orr_compat_switches_free(&orr_g.switches);
	orr_cache_free(orr_g.cache);
	orr_g.cache = NULL;
	xfree(orr_g.state_path);
	xfree(orr_g.live_ids);
	orrery_conf_free(&orr_ocnf);
	orr_conf_ok = false;
	slurm_mutex_unlock(&orr_ctld_lock);
}

void orrery_ctld_reconfigure(void)
{
	slurm_mutex_lock(&orr_ctld_lock);
	orr_log_stats_locked(true);	/* counters up to now, e.g. for benchmarks */
	orr_save_state_locked();
	orr_load_conf_locked();
	orr_g.need_build = true;
	orr_bump_version_locked();
	slurm_mutex_unlock(&orr_ctld_lock);
}

/*
 * slurmctld's save_all_state (select_p_state_save): at shutdown, every
 * PERIODIC_CHECKPOINT, and on 24.05+ just before `scontrol reconfigure'
 * re-executes slurmctld, which never calls the plugin's fini then.  The
 * counters and orrery_state are written here, so that both outlive the
 * process (the saver thread is joined; the next save starts it again).
 */
void orrery_ctld_state_save(void)
{
	slurm_mutex_lock(&orr_ctld_lock);
	orr_log_stats_locked(true);
	orr_save_state_locked();
	slurm_mutex_unlock(&orr_ctld_lock);
	orr_saver_stop();
}

void orrery_ctld_topology_changed(void)
{
	slurm_mutex_lock(&orr_ctld_lock);
	orr_g.need_build = true;
	orr_bump_version_locked();
	slurm_mutex_unlock(&orr_ctld_lock);
}

void orrery_ctld_state_changed(void)
{
	slurm_mutex_lock(&orr_ctld_lock);
	orr_bump_version_locked();
	slurm_mutex_unlock(&orr_ctld_lock);
}

void orrery_ctld_job_init(list_t *job_list)
{
	list_itr_t *it;
	job_record_t *job_ptr;
	size_t cap = job_list ? list_count(job_list) : 0;

	slurm_mutex_lock(&orr_ctld_lock);
	xfree(orr_g.live_ids);
	orr_g.n_live = 0;
	orr_g.live_ids = xcalloc(cap ? cap : 1, sizeof(uint32_t));
	if (job_list) {
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it)) && orr_g.n_live < cap)
			if (IS_JOB_RUNNING(job_ptr) ||
			    IS_JOB_SUSPENDED(job_ptr))
				orr_g.live_ids[orr_g.n_live++] = job_ptr->job_id;
		list_iterator_destroy(it);
	}
	qsort(orr_g.live_ids, orr_g.n_live, sizeof(uint32_t), orr_cmp_u32);
	orr_g.have_live = true;
	orr_bump_version_locked();
	orr_reconcile_locked();
	orr_channel_job_init(job_list, slurm_conf.state_save_location);
	slurm_mutex_unlock(&orr_ctld_lock);
	worker_start();
}
