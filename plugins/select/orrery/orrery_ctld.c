/*
 * orrery_ctld.c - select/orrery_cons_tres inside slurmctld: orrery.conf,
 * fail-open accounting, and (when liborrery's placement is available) the
 * narrowing of cons_tres's candidate nodes.
 */
#include "config.h"	/* Slurm's */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xstring.h"

#include "orrery_conf.h"
#include "orrery_ctld.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static orrery_conf_t ocnf;
static bool conf_ok;

/* Counters, logged every STATS_PERIOD s (with debug=1: every placement). */
#define STATS_PERIOD 600
static struct {
	uint64_t tested, placements, narrowed, fallbacks;
	time_t last_log;
} stats;

static void log_stats_locked(bool force)
{
	time_t now = time(NULL);

	if (!force && now - stats.last_log < STATS_PERIOD)
		return;
	stats.last_log = now;
	info("select/orrery: mode=%s tested=%"PRIu64" placements=%"PRIu64
	     " narrowed=%"PRIu64" fallbacks=%"PRIu64,
	     orrery_mode_name(conf_ok ? ocnf.mode : ORRERY_MODE_OFF),
	     stats.tested, stats.placements, stats.narrowed,
	     stats.fallbacks);
}

static void load_conf_locked(void)
{
	char err[ORRERY_CONF_ERR_MAX] = "";
	char *path = orrery_conf_path(slurm_conf.slurm_conf);
	int rc;

	orrery_conf_free(&ocnf);
	rc = orrery_conf_load(path, &ocnf, err, sizeof(err));
	if (rc < 0) {
		error("select/orrery: %s; running as plain cons_tres", err);
		conf_ok = false;
	} else {
		if (rc > 0)
			info("select/orrery: %s", err);
		conf_ok = true;
		info("select/orrery: mode=%s candidates=%u%s%s",
		     orrery_mode_name(ocnf.mode), ocnf.candidates,
		     ocnf.default_profile ? " default_profile=" : "",
		     ocnf.default_profile ? ocnf.default_profile : "");
	}
	free(path);
}

void orrery_ctld_init(void)
{
	slurm_mutex_lock(&lock);
	load_conf_locked();
	stats.last_log = time(NULL);
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_fini(void)
{
	slurm_mutex_lock(&lock);
	log_stats_locked(true);
	orrery_conf_free(&ocnf);
	conf_ok = false;
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_reconfigure(void)
{
	slurm_mutex_lock(&lock);
	load_conf_locked();
	slurm_mutex_unlock(&lock);
}

void orrery_ctld_job_init(List job_list)
{
}

int orrery_ctld_job_test(orrery_job_test_args_t *a)
{
	return a->delegate(a->job_ptr, a->bitmap, a->min_nodes, a->max_nodes,
			   a->req_nodes, a->mode, a->preemptee_candidates,
			   a->preemptee_job_list, a->exc_core_bitmap);
}

void orrery_ctld_job_begin(job_record_t *job_ptr)
{
}

void orrery_ctld_job_fini(job_record_t *job_ptr)
{
}
