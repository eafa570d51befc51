/*
 * nic_affinity.c - remote context (user_init): point NCCL and UCX at the
 * RDMA NICs nearest to the step's GPUs (plugstack nic_affinity=1).
 *
 * The step's GPUs are Slurm's indices in SLURM_STEP_GPUS (srun steps) or
 * SLURM_JOB_GPUS (batch step), taken to be in PCI bus order (gres.conf with
 * AutoDetect=nvml; orrery-inventory(8) --format=gres-conf writes it so).
 * The PCI tree is this node's hwloc topology, or the admin's hwloc_xml=.
 * Only two fixed names are ever set, and only when the user has set
 * neither: NCCL_IB_HCA ("=dev:port,..." exact match) and UCX_NET_DEVICES
 * ("dev:port,...").  Every failure leaves the environment as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orrery_spank.h"

#ifdef ORRERY_HAVE_HWLOC
#include "locality.h"

#define ENV_NCCL "NCCL_IB_HCA"
#define ENV_UCX  "UCX_NET_DEVICES"

/* "0,1,4-5" -> indices; -1 on anything else. */
static int parse_gpus(const char *s, unsigned *out, size_t max, size_t *n)
{
	*n = 0;
	if (!*s || strlen(s) > 512 || strspn(s, "0123456789,-") != strlen(s))
		return -1;
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s || a >= INV_GPUS_MAX)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a || b >= INV_GPUS_MAX)
				return -1;
		}
		for (unsigned long i = a; i <= b; i++) {
			if (*n == max)
				return -1;
			out[(*n)++] = (unsigned) i;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return *n ? 0 : -1;
}

int osp_nic_affinity(spank_t sp)
{
	char buf[600], node[256] = "", xml[OSP_PATH_MAX], err[512];
	char nccl[1024] = "=", ucx[1024] = "";
	unsigned gpus[INV_GPUS_MAX];
	size_t ng, nn, nics[INV_NICS_MAX];
	struct inv_topo *t = NULL;

	if (spank_getenv(sp, ENV_NCCL, buf, sizeof(buf)) == ESPANK_SUCCESS ||
	    spank_getenv(sp, ENV_UCX, buf, sizeof(buf)) == ESPANK_SUCCESS)
		return 0;	/* the user chose */
	if (spank_getenv(sp, "SLURM_STEP_GPUS", buf, sizeof(buf)) != ESPANK_SUCCESS &&
	    spank_getenv(sp, "SLURM_JOB_GPUS", buf, sizeof(buf)) != ESPANK_SUCCESS)
		return 0;	/* no GPUs in this step */
	if (parse_gpus(buf, gpus, INV_GPUS_MAX, &ng) < 0) {
		slurm_error(OSP_LOG_PREFIX "nic_affinity: GPU list '%.64s' not understood; NCCL_IB_HCA not set",
			    buf);
		return 0;
	}
	if (getenv("SLURMD_NODENAME"))
		snprintf(node, sizeof(node), "%s", getenv("SLURMD_NODENAME"));
	if (osp_conf.hwloc_xml &&
	    osp_expand_node(osp_conf.hwloc_xml, node, xml, sizeof(xml)) < 0) {
		slurm_error(OSP_LOG_PREFIX "nic_affinity: hwloc_xml=%s: cannot form the path for node '%s'",
			    osp_conf.hwloc_xml, node);
		return 0;
	}
	if (inv_topo_load(osp_conf.hwloc_xml ? xml : NULL, &t, err, sizeof(err)) < 0) {
		slurm_error(OSP_LOG_PREFIX "nic_affinity: %s", err);
		return 0;
	}
	nn = inv_nearest_nics(t, gpus, ng, nics, INV_NICS_MAX);
	for (size_t i = 0; i < nn; i++) {
		const struct inv_nic *n = inv_topo_nic(t, nics[i]);
		int port = n->active_port > 0 ? n->active_port : 1;
		size_t lu = strlen(ucx), ln = strlen(nccl);

		snprintf(ucx + lu, sizeof(ucx) - lu, "%s%s:%d", i ? "," : "", n->name, port);
		snprintf(nccl + ln, sizeof(nccl) - ln, "%s%s:%d", i ? "," : "", n->name, port);
	}
	inv_topo_free(t);
	if (!nn)
		return 0;
	if (spank_setenv(sp, ENV_NCCL, nccl, 0) != ESPANK_SUCCESS ||
	    spank_setenv(sp, ENV_UCX, ucx, 0) != ESPANK_SUCCESS)
		slurm_error(OSP_LOG_PREFIX "nic_affinity: cannot set " ENV_NCCL "/" ENV_UCX);
	else if (osp_conf.verbose)
		slurm_info(OSP_LOG_PREFIX "nic_affinity: GPUs %s -> " ENV_NCCL "=%s", buf, nccl);
	return 0;
}
#else
int osp_nic_affinity(spank_t sp)
{
	if (osp_conf.nic_affinity)
		slurm_error(OSP_LOG_PREFIX "nic_affinity=1: built without hwloc; nothing set");
	return 0;
}
#endif
