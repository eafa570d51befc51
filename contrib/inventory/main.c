/*
 * orrery-inventory - what this node has for the network: RDMA ports with
 * their link layer and active rate, Ethernet rates, GPUs and which NICs
 * are nearest to each on PCIe.  Prints a table, or orrery.conf / gres.conf
 * snippets for an administrator to review and install.  See
 * orrery-inventory(8).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "locality.h"
#include "rdma.h"

static char *opt_xml, *opt_root, *opt_format, *opt_rdma, *opt_host;

static GOptionEntry entries[] = {
	{ "hwloc-xml", 'x', 0, G_OPTION_ARG_FILENAME, &opt_xml,
	  "read the PCI topology from this hwloc XML export (default: this node)", "FILE" },
	{ "sysfs-root", 's', 0, G_OPTION_ARG_FILENAME, &opt_root,
	  "read sysfs below DIR (default /sys); implies --rdma=sysfs", "DIR" },
	{ "rdma", 'r', 0, G_OPTION_ARG_STRING, &opt_rdma,
	  "RDMA ports from 'verbs' (libibverbs, default) or 'sysfs'", "SOURCE" },
	{ "format", 'f', 0, G_OPTION_ARG_STRING, &opt_format,
	  "table (default), orrery-conf or gres-conf", "FORMAT" },
	{ "hostname", 'H', 0, G_OPTION_ARG_STRING, &opt_host,
	  "node name in the snippets (default: this host's short name)", "NAME" },
	{ NULL }
};

struct inventory {
	struct inv_rdma_port ports[INV_PORTS_MAX];
	int nports;
	struct inv_netdev nets[64];
	int nnets;
	struct inv_topo *topo;		/* NULL: no PCI information */
	const char *host;
};

static char *rate(uint64_t mbps)
{
	if (!mbps)
		return g_strdup("-");
	if (mbps % 1000 == 0)
		return g_strdup_printf("%" PRIu64 "Gbps", mbps / 1000);
	return g_strdup_printf("%" PRIu64 "Mbps", mbps);
}

/* The topology's NIC for an RDMA device name, or -1. */
static int nic_index(const struct inventory *inv, const char *dev)
{
	if (!inv->topo)
		return -1;
	for (size_t i = 0; i < inv_topo_nic_count(inv->topo); i++)
		if (strcmp(inv_topo_nic(inv->topo, i)->name, dev) == 0)
			return (int) i;
	return -1;
}

/* Is this RDMA port one a GPU job would use: nearest NIC of some GPU (the
 * NICs NCCL picks), or, on a node without GPUs, any active port? */
static int compute_port(const struct inventory *inv, const struct inv_rdma_port *p)
{
	size_t ng = inv->topo ? inv_topo_gpu_count(inv->topo) : 0;
	int k = nic_index(inv, p->dev);

	if (!p->active)
		return 0;
	if (ng == 0 || k < 0)
		return 1;
	for (size_t g = 0; g < ng; g++) {
		size_t nics[INV_NICS_MAX];
		unsigned gi = (unsigned) g;
		size_t n = inv_nearest_nics(inv->topo, &gi, 1, nics, INV_NICS_MAX);

		for (size_t i = 0; i < n; i++)
			if (nics[i] == (size_t) k)
				return 1;
	}
	return 0;
}

static GString *nearest_gpus(const struct inventory *inv, int k)
{
	GString *s = g_string_new(NULL);

	for (size_t g = 0; inv->topo && k >= 0 && g < inv_topo_gpu_count(inv->topo); g++) {
		enum inv_near d = inv_topo_near(inv->topo, g, (size_t) k);

		if (d <= INV_NEAR_HOSTBRIDGE)
			g_string_append_printf(s, "%s%zu(%s)", s->len ? "," : "", g,
					       inv_near_name(d));
	}
	if (!s->len)
		g_string_append(s, "-");
	return s;
}

static void print_table(const struct inventory *inv)
{
	printf("RDMA ports\n%-10s %-4s %-10s %-6s %-8s %-14s %-12s %-4s %s\n",
	       "DEVICE", "PORT", "LAYER", "STATE", "RATE", "NETDEV", "PCI", "NUMA",
	       "NEAR_GPUS");
	for (int i = 0; i < inv->nports; i++) {
		const struct inv_rdma_port *p = &inv->ports[i];
		int k = nic_index(inv, p->dev);
		const struct inv_nic *n = k >= 0 ? inv_topo_nic(inv->topo, (size_t) k) : NULL;
		g_autofree char *r = rate(p->rate_mbps);
		g_autofree char *numa = n && n->numa >= 0 ? g_strdup_printf("%d", n->numa) : g_strdup("-");
		GString *near = nearest_gpus(inv, k);

		printf("%-10s %-4u %-10s %-6s %-8s %-14s %-12s %-4s %s\n", p->dev, p->port,
		       inv_link_layer_name(p->layer), p->active ? "ACTIVE" : "DOWN", r,
		       n && n->netdev[0] ? n->netdev : "-", n ? n->busid : "-", numa,
		       near->str);
		g_string_free(near, TRUE);
	}
	printf("\nEthernet interfaces\n%-16s %-5s %s\n", "NAME", "STATE", "SPEED");
	for (int i = 0; i < inv->nnets; i++) {
		g_autofree char *r = rate(inv->nets[i].speed_mbps);

		if (inv->nets[i].type != 1)
			continue;
		printf("%-16s %-5s %s\n", inv->nets[i].name,
		       inv->nets[i].up ? "up" : "down", r);
	}
	printf("\nGPUs\n%-5s %-12s %-9s %-4s %-10s %s\n", "INDEX", "PCI", "ID", "NUMA",
	       "CORES", "NEAREST_NICS");
	for (size_t g = 0; inv->topo && g < inv_topo_gpu_count(inv->topo); g++) {
		const struct inv_gpu *gp = inv_topo_gpu(inv->topo, g);
		size_t nics[INV_NICS_MAX];
		unsigned gi = (unsigned) g;
		size_t n = inv_nearest_nics(inv->topo, &gi, 1, nics, INV_NICS_MAX);
		GString *s = g_string_new(NULL);

		for (size_t i = 0; i < n; i++)
			g_string_append_printf(s, "%s%s(%s)", i ? "," : "",
					       inv_topo_nic(inv->topo, nics[i])->name,
					       inv_near_name(inv_topo_near(inv->topo, g, nics[i])));
		printf("%-5zu %-12s %04x:%04x %-4d %-10s %s\n", g, gp->busid, gp->vendor,
		       gp->device, gp->numa, gp->cores[0] ? gp->cores : "-",
		       s->len ? s->str : "-");
		g_string_free(s, TRUE);
	}
}

static void print_orrery_conf(const struct inventory *inv)
{
	uint64_t sum = 0;
	int used = 0;

	printf("# orrery.conf(5) snippet from orrery-inventory on %s.\n", inv->host);
	printf("# Review before installing: node_link is the sum of the active RDMA\n"
	       "# ports nearest to the node's GPUs (all active ports on a node\n"
	       "# without GPUs), per direction.\n");
	for (int i = 0; i < inv->nports; i++) {
		const struct inv_rdma_port *p = &inv->ports[i];
		g_autofree char *r = rate(p->rate_mbps);
		int use = compute_port(inv, p);

		printf("#   %s port %u: %s %s%s\n", p->dev, p->port,
		       inv_link_layer_name(p->layer), p->active ? r : "down",
		       use ? "" : p->active ? " (not near a GPU: not counted)" : "");
		if (use) {
			sum += p->rate_mbps;
			used++;
		}
	}
	if (!used) {
		printf("# No active RDMA port: node_link not derived.\n");
		return;
	}
	{
		g_autofree char *r = rate(sum);

		printf("[orrery]\nnode_link=%s\n", r);
	}
}

static const char *gpu_type(unsigned vendor, unsigned device)
{
	static const struct { unsigned dev; const char *type; } nv[] = {
		{ 0x2330, "h100" }, { 0x2331, "h100" }, { 0x2322, "h800" },
		{ 0x20b0, "a100" }, { 0x20b2, "a100" }, { 0x20b5, "a100" },
		{ 0x20f1, "a100" }, { 0x26b9, "l40s" }, { 0x1db4, "v100" },
		{ 0x1db5, "v100" }, { 0x1db6, "v100" },
	};

	if (vendor != 0x10de)
		return NULL;
	for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++)
		if (nv[i].dev == device)
			return nv[i].type;
	return NULL;
}

static void print_gres_conf(const struct inventory *inv)
{
	size_t ng = inv->topo ? inv_topo_gpu_count(inv->topo) : 0;

	printf("# gres.conf(5) snippet from orrery-inventory on %s.\n", inv->host);
	if (!ng) {
		printf("# No GPU found.\n");
		return;
	}
	printf("# Review before installing: File= assumes device minor numbers in PCI\n"
	       "# bus order (check: nvidia-smi --query-gpu=pci.bus_id --format=csv);\n"
	       "# Cores= are the cores of the GPU's NUMA node.\n");
	for (size_t g = 0; g < ng; g++) {
		const struct inv_gpu *gp = inv_topo_gpu(inv->topo, g);
		const char *type = gpu_type(gp->vendor, gp->device);

		printf("NodeName=%s Name=gpu%s%s File=/dev/%s%zu%s%s  # %s\n", inv->host,
		       type ? " Type=" : "", type ? type : "",
		       gp->vendor == 0x1002 ? "dri/renderD" : "nvidia",
		       gp->vendor == 0x1002 ? g + 128 : g,
		       gp->cores[0] ? " Cores=" : "", gp->cores, gp->busid);
	}
}

int main(int argc, char **argv)
{
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("- RDMA NICs, link rates and GPU locality of this node");
	g_autoptr(GError) gerr = NULL;
	static struct inventory inv;
	struct inv_rdma_ops ops;
	char err[512], host[256];
	const char *root;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		fprintf(stderr, "orrery-inventory: %s (try --help)\n", gerr->message);
		return 2;
	}
	if (argc > 1) {
		fprintf(stderr, "orrery-inventory: unexpected argument '%s' (try --help)\n", argv[1]);
		return 2;
	}
	if (!opt_format)
		opt_format = "table";
	if (strcmp(opt_format, "table") && strcmp(opt_format, "orrery-conf") &&
	    strcmp(opt_format, "gres-conf")) {
		fprintf(stderr, "orrery-inventory: --format=%s: accepted are table, orrery-conf, gres-conf\n",
			opt_format);
		return 2;
	}
	if (!opt_rdma)
		opt_rdma = opt_root ? "sysfs" : "verbs";
	if (strcmp(opt_rdma, "verbs") && strcmp(opt_rdma, "sysfs")) {
		fprintf(stderr, "orrery-inventory: --rdma=%s: accepted are verbs, sysfs\n", opt_rdma);
		return 2;
	}
	root = opt_root ? opt_root : "/sys";
	if (opt_host) {
		inv.host = opt_host;
	} else if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		inv.host = host;
	} else {
		inv.host = "localhost";
	}
	if (strcmp(opt_rdma, "verbs") == 0)
		inv_rdma_verbs_ops(&ops);
	else
		inv_rdma_sysfs_ops(&ops, root);
	inv.nports = inv_rdma_list(&ops, inv.ports, INV_PORTS_MAX, err, sizeof(err));
	if (inv.nports < 0) {
		fprintf(stderr, "orrery-inventory: %s%s\n", err,
			strcmp(opt_rdma, "verbs") == 0 ? " (no libibverbs or no RDMA stack; try --rdma=sysfs)" : "");
		return 1;
	}
	inv.nnets = inv_netdev_list(root, inv.nets, 64, err, sizeof(err));
	if (inv.nnets < 0) {
		fprintf(stderr, "orrery-inventory: warning: %s: no Ethernet rates\n", err);
		inv.nnets = 0;
	}
	if (inv_topo_load(opt_xml, &inv.topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "orrery-inventory: %s\n", err);
		return 1;
	}
	if (strcmp(opt_format, "table") == 0)
		print_table(&inv);
	else if (strcmp(opt_format, "orrery-conf") == 0)
		print_orrery_conf(&inv);
	else
		print_gres_conf(&inv);
	inv_topo_free(inv.topo);
	return 0;
}
