/*
 * job_env.c - allocator (sbatch, salloc) and local (srun) contexts: after
 * the options are parsed, decide the job's profile and put its canonical
 * form into the job's SPANK environment, where slurmctld (the select
 * plugin) reads it from job_ptr->spank_job_env and the prolog receives it
 * as SPANK_ORRERY_PROFILE.
 *
 * Precedence: --comm-profile, then $ORRERY_COMM_PROFILE, then the
 * default_profile plugstack argument.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <orrery.h>

#include "orrery_spank.h"

static int set_job_env(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = spank_job_control_setenv(sp, name, value, 1);

	if (rc != ESPANK_SUCCESS) {
		slurm_error(OSP_LOG_PREFIX "cannot put %s into the job's environment: %s",
			    name, spank_strerror(rc));
		return -1;
	}
	return 0;
}

/*
 * TESTING ONLY (plugstack test_controller=1): stand in for the select
 * plugin, which sets these in job_begin.  The period is the profile's own
 * (a model resolved for its default shape), the shift a quarter of it, the
 * epoch now, the score 1.  Never enable on a production cluster: the values
 * come from the submitting host.
 */
static int fake_controller(spank_t sp, const char *canonical)
{
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_shape_t shape = { 0 };
	orrery_error_t err = { 0 };
	struct timespec ts;
	char buf[OSP_NUM_MAX + 1];
	int64_t period;

	if (orrery_profile_parse(canonical, &p, &err) != ORRERY_OK ||
	    orrery_profile_resolve(p, &shape, &r, &err) != ORRERY_OK) {
		slurm_error(OSP_LOG_PREFIX "test_controller: %s", err.message);
		orrery_profile_free(p);
		return -1;
	}
	period = orrery_profile_period_us(r);
	orrery_profile_free(r);
	orrery_profile_free(p);
	clock_gettime(CLOCK_REALTIME, &ts);

	snprintf(buf, sizeof(buf), "%" PRId64, period);
	if (set_job_env(sp, OSP_ENV_PERIOD, buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%" PRId64, period / 4);
	if (set_job_env(sp, OSP_ENV_SHIFT, buf) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%" PRId64,
		 (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	if (set_job_env(sp, OSP_ENV_EPOCH, buf) < 0)
		return -1;
	return set_job_env(sp, OSP_ENV_SCORE, "1");
}

int osp_job_env_post_opt(spank_t sp)
{
	const char *canonical = osp_option_canonical();
	const char *source = "--" OSP_OPTION_NAME;
	char *from_env = NULL;
	const char *env;
	/* srun inside an existing allocation: a step, not a new job. */
	int step_in_job = getenv("SLURM_JOB_ID") != NULL &&
			  spank_context() == S_CTX_LOCAL;
	int rc;

	if (!canonical) {
		env = getenv(OSP_INPUT_ENV);
		if (env && env[0]) {
			char msg[ORRERY_ERRMSG_MAX + 64];

			if (osp_spec_canonical(env, 1, &from_env, msg, sizeof(msg)) < 0)
				osp_reject_input(OSP_LOG_PREFIX "%s: %s", OSP_INPUT_ENV, msg);
			canonical = from_env;
			source = OSP_INPUT_ENV;
		} else if (osp_conf.default_profile) {
			canonical = osp_conf.default_profile;
			source = "default_profile";
		}
	}
	if (!canonical) {
		/* A step runs under its job's profile. */
		if (osp_conf.require_profile && !step_in_job)
			osp_reject_input(OSP_LOG_PREFIX "%s%s", "this cluster requires --"
					 OSP_OPTION_NAME "=SPEC (or " OSP_INPUT_ENV
					 "); see spank-orrery(8)", "");
		return 0;
	}
	if (osp_conf.verbose)
		slurm_verbose(OSP_LOG_PREFIX "profile from %s: %s", source, canonical);

	/* A step inside an existing job cannot change the job's environment;
	 * its tasks get the job's values from the relay (task.c). */
	if (step_in_job) {
		free(from_env);
		return 0;
	}
	rc = set_job_env(sp, OSP_ENV_PROFILE, canonical);
	if (rc == 0 && osp_conf.test_controller)
		rc = fake_controller(sp, canonical);
	free(from_env);
	return rc;
}
