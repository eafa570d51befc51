/*
 * osp_harness - drive the SPANK plugin's input checks the way Slurm does,
 * without Slurm, for the bad-input suite (tests/bad-input/run.sh).
 *
 *   osp_harness option VALUE     sbatch --comm-profile=VALUE (allocator
 *                                context: option callback, then post-opt)
 *   osp_harness env VALUE        ORRERY_COMM_PROFILE=VALUE sbatch ...
 *   osp_harness plugstack ARG... plugstack.conf arguments (slurm_spank_init)
 *   osp_harness relay DIR JOBID  slurmstepd reading DIR/JOBID (user_init)
 *
 * Each slurm_error() line is printed to stderr as "error: LINE"; the exit
 * status is 1 when the plugin refused (sbatch would stop), 0 otherwise,
 * and the canonical profile that would enter the job is printed to stdout.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orrery.h>

#include "plugins/spank/orrery_spank.h"

static struct spank_option *registered;

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	fputs("error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
void slurm_verbose(const char *fmt, ...) { (void)fmt; }
void slurm_info(const char *fmt, ...) { (void)fmt; }
spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	registered = opt;
	return ESPANK_SUCCESS;
}
spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **val)
{
	(void)sp; (void)opt; (void)val;
	return ESPANK_ERROR;
}
const char *spank_strerror(spank_err_t err) { (void)err; return "stub"; }
spank_context_t spank_context(void) { return S_CTX_ALLOCATOR; }
spank_err_t spank_job_control_setenv(spank_t sp, const char *var,
				     const char *val, int overwrite)
{
	(void)sp; (void)overwrite;
	printf("%s=%s\n", var, val);
	return ESPANK_SUCCESS;
}

static int usage(void)
{
	fprintf(stderr, "usage: osp_harness option VALUE | env VALUE | plugstack ARG... | relay DIR JOBID\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	unsetenv(OSP_INPUT_ENV);
	unsetenv("SLURM_JOB_ID");
	if (!strcmp(argv[1], "plugstack"))
		return osp_args_parse(argc - 2, argv + 2, &osp_conf) < 0 ? 1 : 0;
	if (osp_args_parse(0, NULL, &osp_conf) < 0)
		return 2;
	if (!strcmp(argv[1], "option") && argc == 3) {
		if (osp_option_register(NULL) < 0 || !registered)
			return 2;
		if (registered->cb(registered->val, argv[2], 0) < 0)
			return 1;
		return osp_job_env_post_opt(NULL) < 0 ? 1 : 0;
	}
	if (!strcmp(argv[1], "env") && argc == 3) {
		setenv(OSP_INPUT_ENV, argv[2], 1);
		return osp_job_env_post_opt(NULL) < 0 ? 1 : 0;
	}
	if (!strcmp(argv[1], "relay") && argc == 4) {
		struct osp_relay r;
		int rc;

		free(osp_conf.runtime_dir);
		osp_conf.runtime_dir = strdup(argv[2]);
		rc = osp_relay_read("n1", (uint32_t)strtoul(argv[3], NULL, 10), &r);
		if (rc == 1)
			printf("profile=%s\nperiod_us=%s\nshift_us=%s\n", r.profile,
			       r.period_us, r.shift_us);
		return rc < 0 ? 1 : 0;
	}
	return usage();
}
