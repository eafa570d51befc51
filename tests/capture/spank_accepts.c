/*
 * spank_accepts.c - run the SPANK plugin's own --comm-profile validation
 * (plugins/spank/option.c, what sbatch calls when it parses the option, as
 * the submitting user) on one value, without Slurm:
 *
 *	spank_accepts SPEC|@FILE
 *
 * prints the canonical profile the plugin would store and exits 0, or
 * prints the plugin's error and exits 1.  Slurm's logging and option calls
 * are stubbed, as in tests/unit/test_spank.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include <orrery.h>

#include "plugins/spank/orrery_spank.h"

void slurm_error(const char *fmt, ...) { (void)fmt; }
void slurm_verbose(const char *fmt, ...) { (void)fmt; }
void slurm_info(const char *fmt, ...) { (void)fmt; }
spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	(void)opt;
	return ESPANK_SUCCESS;
}
spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **val)
{
	(void)sp;
	(void)opt;
	(void)val;
	return ESPANK_ERROR;
}
const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "stub";
}

int main(int argc, char **argv)
{
	char msg[ORRERY_ERRMSG_MAX + 64], *canonical = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: spank_accepts SPEC|@FILE\n");
		return 2;
	}
	/* allow_files = 1: sbatch's context, where @FILE is read. */
	if (osp_spec_canonical(argv[1], 1, &canonical, msg, sizeof msg) < 0) {
		printf("sbatch: error: orrery: --comm-profile: %s\n", msg);
		return 1;
	}
	printf("%s\n", canonical);
	free(canonical);
	return 0;
}
