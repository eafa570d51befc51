/*
 * locality.c - GPUs and RDMA NICs with their PCIe locality from hwloc.
 *
 * GPUs are PCI functions of class 0x0302 (3D controller), or 0x0300 (VGA)
 * from NVIDIA or AMD (a BMC's VGA function is not a GPU), numbered in PCI
 * bus order: the order of nvidia-smi, of CUDA_DEVICE_ORDER=PCI_BUS_ID and
 * of Slurm's gres.conf with AutoDetect=nvml.  RDMA NICs are hwloc's
 * OpenFabrics OS devices (mlx5_0, ...); their network interface is the
 * network OS device on the same PCI function.
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality.h"

struct inv_topo {
	hwloc_topology_t topo;
	size_t ngpus, nnics;
	struct inv_gpu gpus[INV_GPUS_MAX];
	struct inv_nic nics[INV_NICS_MAX];
	hwloc_obj_t gpu_obj[INV_GPUS_MAX];
	hwloc_obj_t nic_obj[INV_NICS_MAX];
};

static int is_gpu(hwloc_obj_t pci)
{
	unsigned cls = pci->attr->pcidev.class_id;
	unsigned ven = pci->attr->pcidev.vendor_id;

	return cls == 0x0302 || (cls == 0x0300 && (ven == 0x10de || ven == 0x1002));
}

static void busid(hwloc_obj_t pci, char *out, size_t len)
{
	snprintf(out, len, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
		 pci->attr->pcidev.bus, pci->attr->pcidev.dev,
		 pci->attr->pcidev.func);
}

static int numa_of(hwloc_topology_t topo, hwloc_obj_t io)
{
	hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, io);

	if (!a || !a->nodeset || hwloc_bitmap_weight(a->nodeset) != 1)
		return -1;
	return hwloc_bitmap_first(a->nodeset);
}

/* Logical indexes of the cores below io's non-I/O ancestor, as a list of
 * ranges ("0-3,8-11"); "" if it does not fit. */
static void local_cores(hwloc_topology_t topo, hwloc_obj_t io, char *out,
			size_t len)
{
	hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, io), c = NULL;
	size_t o = 0;
	int first = -1, last = -2;

	out[0] = '\0';
	if (!a)
		return;
	for (;;) {
		int idx;

		c = hwloc_get_next_obj_inside_cpuset_by_type(topo, a->cpuset,
							    HWLOC_OBJ_CORE, c);
		idx = c ? (int) c->logical_index : -1;
		if (c && idx == last + 1) {
			last = idx;
			continue;
		}
		if (first >= 0) {
			int n = first == last ?
				snprintf(out + o, len - o, "%s%d", o ? "," : "", first) :
				snprintf(out + o, len - o, "%s%d-%d", o ? "," : "", first, last);

			if (n < 0 || (size_t) n >= len - o) {
				out[0] = '\0';
				return;
			}
			o += (size_t) n;
		}
		if (!c)
			return;
		first = last = idx;
	}
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct inv_gpu *) a)->busid,
		      ((const struct inv_gpu *) b)->busid);
}

/* First port with hwloc's "PortNState" = 4 (IB_PORT_ACTIVE); 0 if hwloc
 * recorded no port states, -1 if it recorded only inactive ones. */
static int active_port(hwloc_obj_t osdev)
{
	int seen = 0;

	for (unsigned i = 0; i < osdev->infos_count; i++) {
		unsigned p;
		char rest[8];

		if (sscanf(osdev->infos[i].name, "Port%uStat%7s", &p, rest) == 2 &&
		    strcmp(rest, "e") == 0) {
			seen = 1;
			if (strcmp(osdev->infos[i].value, "4") == 0)
				return (int) p;
		}
	}
	return seen ? -1 : 0;
}

int inv_topo_load(const char *xml, struct inv_topo **out, char *err, size_t errlen)
{
	struct inv_topo *t = calloc(1, sizeof(*t));
	hwloc_obj_t o = NULL;

	*out = NULL;
	if (!t || hwloc_topology_init(&t->topo) < 0) {
		snprintf(err, errlen, "out of memory");
		free(t);
		return -1;
	}
	if (xml && hwloc_topology_set_xml(t->topo, xml) < 0) {
		snprintf(err, errlen, "%s: cannot be read as an hwloc XML topology", xml);
		goto fail;
	}
	hwloc_topology_set_io_types_filter(t->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	if (hwloc_topology_load(t->topo) < 0) {
		snprintf(err, errlen, "%s: hwloc cannot load it", xml ? xml : "this node's topology");
		goto fail;
	}
	while ((o = hwloc_get_next_pcidev(t->topo, o)) && t->ngpus < INV_GPUS_MAX) {
		struct inv_gpu *g = &t->gpus[t->ngpus];

		if (!is_gpu(o))
			continue;
		busid(o, g->busid, sizeof(g->busid));
		g->vendor = o->attr->pcidev.vendor_id;
		g->device = o->attr->pcidev.device_id;
		g->numa = numa_of(t->topo, o);
		local_cores(t->topo, o, g->cores, sizeof(g->cores));
		for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling)
			if (c->type == HWLOC_OBJ_OS_DEVICE && c->name &&
			    c->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU && !g->osdev[0])
				snprintf(g->osdev, sizeof(g->osdev), "%s", c->name);
		t->ngpus++;
	}
	qsort(t->gpus, t->ngpus, sizeof(t->gpus[0]), cmp_gpu);
	for (size_t i = 0; i < t->ngpus; i++) {
		unsigned d, b, s, f;

		t->gpus[i].index = (unsigned) i;
		sscanf(t->gpus[i].busid, "%x:%x:%x.%x", &d, &b, &s, &f);
		t->gpu_obj[i] = hwloc_get_pcidev_by_busid(t->topo, d, b, s, f);
	}
	o = NULL;
	while ((o = hwloc_get_next_osdev(t->topo, o)) && t->nnics < INV_NICS_MAX) {
		struct inv_nic *n = &t->nics[t->nnics];
		hwloc_obj_t pci = o->parent;

		if (o->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS || !o->name ||
		    !pci || pci->type != HWLOC_OBJ_PCI_DEVICE)
			continue;
		snprintf(n->name, sizeof(n->name), "%s", o->name);
		busid(pci, n->busid, sizeof(n->busid));
		n->vendor = pci->attr->pcidev.vendor_id;
		n->device = pci->attr->pcidev.device_id;
		n->numa = numa_of(t->topo, pci);
		n->active_port = active_port(o);
		for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
			if (c->type == HWLOC_OBJ_OS_DEVICE && c->name &&
			    c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK && !n->netdev[0])
				snprintf(n->netdev, sizeof(n->netdev), "%s", c->name);
		t->nic_obj[t->nnics] = pci;
		t->nnics++;
	}
	*out = t;
	return 0;
fail:
	hwloc_topology_destroy(t->topo);
	free(t);
	return -1;
}

void inv_topo_free(struct inv_topo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t);
}

size_t inv_topo_gpu_count(const struct inv_topo *t) { return t->ngpus; }
size_t inv_topo_nic_count(const struct inv_topo *t) { return t->nnics; }

const struct inv_gpu *inv_topo_gpu(const struct inv_topo *t, size_t i)
{
	return i < t->ngpus ? &t->gpus[i] : NULL;
}

const struct inv_nic *inv_topo_nic(const struct inv_topo *t, size_t i)
{
	return i < t->nnics ? &t->nics[i] : NULL;
}

const char *inv_near_name(enum inv_near n)
{
	static const char *names[] = { "PIX", "PHB", "NODE", "SYS" };

	return n <= INV_NEAR_SYS ? names[n] : "?";
}

/* hwloc_get_common_ancestor_obj() does not work on I/O objects (their
 * depths are negative): walk the parents instead. */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b)
{
	for (hwloc_obj_t x = a; x; x = x->parent)
		for (hwloc_obj_t y = b; y; y = y->parent)
			if (x == y)
				return x;
	return NULL;
}

enum inv_near inv_topo_near(const struct inv_topo *t, size_t gpu, size_t nic)
{
	hwloc_obj_t a, g, n;

	if (gpu >= t->ngpus || nic >= t->nnics || !t->gpu_obj[gpu])
		return INV_NEAR_SYS;
	g = t->gpu_obj[gpu];
	n = t->nic_obj[nic];
	a = common_ancestor(g, n);
	if (a && a->type == HWLOC_OBJ_BRIDGE) {
		/* A PCI-PCI bridge above both: a PCIe switch.  The host
		 * bridge: the same root complex. */
		return a->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI ?
			INV_NEAR_SWITCH : INV_NEAR_HOSTBRIDGE;
	}
	if (a && a->type == HWLOC_OBJ_PCI_DEVICE)
		return INV_NEAR_SWITCH;		/* functions of one device */
	if (t->gpus[gpu].numa >= 0 && t->gpus[gpu].numa == t->nics[nic].numa)
		return INV_NEAR_NUMA;
	return INV_NEAR_SYS;
}

size_t inv_nearest_nics(const struct inv_topo *t, const unsigned *gpus,
			size_t ngpus, size_t *nics, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ngpus; i++) {
		enum inv_near best = INV_NEAR_SYS + 1;

		if (gpus[i] >= t->ngpus)
			continue;
		for (size_t k = 0; k < t->nnics; k++)
			if (t->nics[k].active_port >= 0 &&
			    inv_topo_near(t, gpus[i], k) < best)
				best = inv_topo_near(t, gpus[i], k);
		for (size_t k = 0; k < t->nnics && n < max; k++) {
			size_t j;

			if (t->nics[k].active_port < 0 ||
			    inv_topo_near(t, gpus[i], k) != best)
				continue;
			for (j = 0; j < n && nics[j] != k; j++)
				;
			if (j == n)
				nics[n++] = k;
		}
	}
	return n;
}
