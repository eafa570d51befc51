/*
 * spank_orrery.c - the orrery SPANK plugin: --comm-profile for sbatch,
 * salloc and srun, and ORRERY_* in every task.  This file only identifies
 * the plugin and dispatches each SPANK callback to the file that handles
 * its context; see orrery_spank.h for the map and spank-orrery(8).
 */
#include <string.h>

#include <slurm/spank.h>

#include "orrery_spank.h"

SPANK_PLUGIN(orrery, 1);

static int args_ok;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (osp_args_parse(ac, av, &osp_conf) < 0)
		return -1;
	args_ok = 1;
	switch (ctx) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		return osp_option_register(sp);
	default:
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return osp_job_env_post_opt(sp);
	default:
		return 0;
	}
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	/* init runs first in every context; guard anyway. */
	return args_ok ? osp_prolog(sp) : 0;
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	return args_ok ? osp_epilog(sp) : 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	return (args_ok && spank_remote(sp)) ? osp_user_init(sp) : 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	osp_args_free(&osp_conf);
	args_ok = 0;
	return 0;
}
