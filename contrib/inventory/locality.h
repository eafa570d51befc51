/*
 * locality.h - GPUs, RDMA NICs and their PCIe locality, from hwloc (the
 * node's live topology or an XML export).  Used by orrery-inventory and by
 * the SPANK plugin's nic_affinity.  Plain C, no GLib, no Slurm.
 */
#ifndef ORRERY_LOCALITY_H
#define ORRERY_LOCALITY_H

#include <stddef.h>

#define INV_NAME_MAX  64
#define INV_GPUS_MAX  64
#define INV_NICS_MAX  64

/* How close a NIC is to a GPU, nearest first. */
enum inv_near {
	INV_NEAR_SWITCH = 0,	/* below the same PCIe switch (PIX/PXB) */
	INV_NEAR_HOSTBRIDGE,	/* same PCIe root complex (PHB)         */
	INV_NEAR_NUMA,		/* same NUMA node / package (NODE)      */
	INV_NEAR_SYS,		/* across the inter-socket link (SYS)   */
};

struct inv_gpu {
	unsigned index;			/* in PCI bus order: Slurm's GPU index */
	char busid[16];			/* "0000:1a:00.0"                      */
	unsigned vendor, device;
	int numa;			/* os_index of its NUMA node, -1       */
	char osdev[INV_NAME_MAX];	/* "card1", "nvml0", or ""             */
	char cores[128];		/* local cores as Slurm's Cores= list  */
};

struct inv_nic {
	char name[INV_NAME_MAX];	/* RDMA device, "mlx5_0"               */
	char netdev[INV_NAME_MAX];	/* its network interface, or ""        */
	char busid[16];
	unsigned vendor, device;
	int numa;
	int active_port;		/* first port hwloc saw ACTIVE, 0: none
					 * known (no PortNState info)          */
};

struct inv_topo;

/* xml: an hwloc XML file, or NULL for this node's live topology.  0, or
 * -1 with a message. */
int inv_topo_load(const char *xml, struct inv_topo **t, char *err, size_t errlen);
void inv_topo_free(struct inv_topo *t);

size_t inv_topo_gpu_count(const struct inv_topo *t);
size_t inv_topo_nic_count(const struct inv_topo *t);
const struct inv_gpu *inv_topo_gpu(const struct inv_topo *t, size_t i);
const struct inv_nic *inv_topo_nic(const struct inv_topo *t, size_t i);

enum inv_near inv_topo_near(const struct inv_topo *t, size_t gpu, size_t nic);
const char *inv_near_name(enum inv_near n);	/* "PIX", "PHB", "NODE", "SYS" */

/* The NICs nearest to a set of GPUs (indices into the topology's GPUs):
 * for each GPU, every usable NIC at the smallest distance; the union in
 * GPU order, without repeats.  NICs known to have no active port are not
 * usable.  nics[] receives NIC indices; returns their number (0 if no GPU
 * index is valid or no NIC is usable). */
size_t inv_nearest_nics(const struct inv_topo *t, const unsigned *gpus,
			size_t ngpus, size_t *nics, size_t max);

#endif /* ORRERY_LOCALITY_H */
