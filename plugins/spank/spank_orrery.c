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

/* Every callback gets the plugstack arguments; slurm_spank_init is not
 * called in the job_script context (prolog/epilog), so parse them on first
 * use wherever that is. */
static int args(int ac, char **av)
{
	if (args_ok)
		return 0;
	if (osp_args_parse(ac, av, &osp_conf) < 0)
		return -1;
	args_ok = 1;
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (args(ac, av) < 0)
		return -1;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		if (osp_option_register(sp) < 0)
			return -1;
		return osp_gate_register(sp);
	default:
		return 0;
	}
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	if (args(ac, av) < 0)
		return -1;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return osp_job_env_post_opt(sp);
	case S_CTX_REMOTE:	/* slurmstepd, root; neither fails */
		osp_relay_load(sp);
		osp_channel_start(sp);
		return 0;
	default:
		return 0;
	}
}

int slurm_spank_job_prolog(spank_t sp, int ac, char **av)
{
	/* A bad configuration must not drain the node: init already
	 * reported it in every other context. */
	return args(ac, av) < 0 ? 0 : osp_prolog(sp);
}

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	return args(ac, av) < 0 ? 0 : osp_epilog(sp);
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	if (args(ac, av) < 0)
		return -1;
	if (!spank_remote(sp))
		return 0;
	if (osp_conf.nic_affinity)
		osp_nic_affinity(sp);	/* never fails the step */
	return osp_user_init(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	osp_channel_stop();	/* before the configuration it reads goes */
	osp_args_free(&osp_conf);
	osp_option_free();
	osp_gate_free();
	args_ok = 0;
	return 0;
}
