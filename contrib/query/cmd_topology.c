/*
 * cmd_topology.c - "orrery-query topology": summarise a topology.conf or a
 * generated fabric (switches per level, nodes, uplink capacities and
 * oversubscription), optionally write it as topology.conf.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist_slurm.h"
#include "query.h"

static void help(FILE *out)
{
	fprintf(out,
		"Usage: orrery-query topology (--topology FILE | --generate SPEC)\n"
		"                             [--write FILE] [--list] [--linkspeed-unit CAP]\n"
		"                             [--node-link CAP] [--uplink LEVEL=[Kx]CAP|SWITCH=[Kx]CAP]... [--flows N]\n"
		"  SPEC: tiers=2|3,leaves=N,nodes-per-leaf=N[,leaves-per-pod=N]\n"
		"        [,link=100Gbps][,oversub=R][,pod-oversub=R][,prefix=node]\n");
}

/* Nodes below each switch. */
static size_t *count_below(const orrery_topology_t *t)
{
	size_t ns = orrery_topology_switch_count(t);
	size_t *below = calloc(ns ? ns : 1, sizeof *below);

	if (!below)
		return NULL;
	for (size_t n = 0; n < orrery_topology_node_count(t); n++)
		for (long s = orrery_topology_node_leaf(t, n); s >= 0;
		     s = orrery_topology_switch_parent(t, (size_t)s))
			below[s]++;
	return below;
}

/* "nodes node[001-008]" or "switches leaf[01-04]" for every switch, in
 * one pass over nodes and switches (a --list of 10,000 switches must not
 * scan 100,000 nodes per switch). */
static char **all_members(const orrery_topology_t *t)
{
	size_t nn = orrery_topology_node_count(t), ns = orrery_topology_switch_count(t);
	const char **names = malloc((nn + ns + 1) * sizeof *names);
	size_t *start = calloc(ns + 1, sizeof *start), *fill = calloc(ns + 1, sizeof *fill);
	char **out = calloc(ns + 1, sizeof *out);
	int *has_nodes = calloc(ns + 1, sizeof *has_nodes);

	if (!names || !start || !fill || !out || !has_nodes)
		goto done;
	/* Bucket members by switch: count, prefix sums, then place in order. */
	for (size_t n = 0; n < nn; n++) {
		start[orrery_topology_node_leaf(t, n)]++;
		has_nodes[orrery_topology_node_leaf(t, n)] = 1;
	}
	for (size_t c = 0; c < ns; c++) {
		long p = orrery_topology_switch_parent(t, c);
		if (p >= 0 && !has_nodes[p])
			start[p]++;
	}
	for (size_t s = 0, sum = 0; s < ns; s++) {
		size_t k = start[s];
		start[s] = fill[s] = sum;
		sum += k;
	}
	for (size_t n = 0; n < nn; n++)
		names[fill[orrery_topology_node_leaf(t, n)]++] = orrery_topology_node_name(t, n);
	for (size_t c = 0; c < ns; c++) {
		long p = orrery_topology_switch_parent(t, c);
		if (p >= 0 && !has_nodes[p])
			names[fill[p]++] = orrery_topology_switch_name(t, c);
	}
	for (size_t s = 0; s < ns; s++) {
		char *hl = hostlist_slurm_compress(names + start[s], fill[s] - start[s]);
		size_t len = (hl ? strlen(hl) : 1) + 16;
		out[s] = malloc(len);
		if (out[s])
			snprintf(out[s], len, "%s %s", has_nodes[s] ? "nodes" : "switches",
				 hl ? hl : "?");
		free(hl);
	}
done:
	free(names);
	free(start);
	free(fill);
	free(has_nodes);
	return out;
}

static void ratio(char *buf, size_t n, size_t below, uint64_t node_link,
		  uint64_t up)
{
	if (!up)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.2f:1", (double)below * (double)node_link / (double)up);
}

static void summary(const orrery_topology_t *t, const char *source, int list)
{
	size_t ns = orrery_topology_switch_count(t);
	size_t *below = count_below(t);
	uint64_t link = orrery_topology_node_link(t);
	int top = 0;
	long root = -1;
	char a[FMT_N], b[FMT_N], c[FMT_N];

	if (!below)
		return;
	for (size_t s = 0; s < ns; s++) {
		if (orrery_topology_switch_level(t, s) > top)
			top = orrery_topology_switch_level(t, s);
		if (orrery_topology_switch_parent(t, s) < 0)
			root = (long)s;
	}
	printf("topology   %s\n", source);
	printf("nodes      %zu (node link %s)\n", orrery_topology_node_count(t),
	       fmt_bw(a, sizeof a, link));
	printf("switches   %zu in %d level%s, root %s\n\n", ns, top + 1,
	       top ? "s" : "", orrery_topology_switch_name(t, (size_t)root));

	printf("%-5s  %-8s  %-11s  %-21s  %s\n", "level", "switches",
	       "nodes below", "uplink capacity", "oversubscription");
	for (int l = 0; l <= top; l++) {
		size_t cnt = 0, bmin = (size_t)-1, bmax = 0, unknown = 0;
		uint64_t umin = UINT64_MAX, umax = 0;
		double omin = 1e300, omax = 0;
		int is_root = 0;
		for (size_t s = 0; s < ns; s++) {
			if (orrery_topology_switch_level(t, s) != l)
				continue;
			cnt++;
			if ((long)s == root)
				is_root = 1;
			bmin = below[s] < bmin ? below[s] : bmin;
			bmax = below[s] > bmax ? below[s] : bmax;
			uint64_t up = orrery_topology_uplink_mbps(t, s);
			if ((long)s == root)
				continue;
			if (!up) {
				unknown++;
				continue;
			}
			umin = up < umin ? up : umin;
			umax = up > umax ? up : umax;
			double o = (double)below[s] * (double)link / (double)up;
			omin = o < omin ? o : omin;
			omax = o > omax ? o : omax;
		}
		char nb[32], cap[64], over[48], sw[32];
		snprintf(sw, sizeof sw, "%zu%s", cnt, is_root ? " (root)" : "");
		if (bmin == bmax)
			snprintf(nb, sizeof nb, "%zu", bmin);
		else
			snprintf(nb, sizeof nb, "%zu-%zu", bmin, bmax);
		if (is_root && cnt == 1) {
			snprintf(cap, sizeof cap, "- (no uplink)");
			snprintf(over, sizeof over, "-");
		} else if (!umax) {
			snprintf(cap, sizeof cap, "unknown");
			snprintf(over, sizeof over, "-");
		} else {
			if (umin == umax)
				snprintf(cap, sizeof cap, "%s", fmt_bw(a, sizeof a, umin));
			else
				snprintf(cap, sizeof cap, "%s to %s",
					 fmt_bw(a, sizeof a, umin), fmt_bw(b, sizeof b, umax));
			if (unknown)
				snprintf(cap + strlen(cap), sizeof cap - strlen(cap),
					 ", %zu unknown", unknown);
			if (omax - omin < 0.005)
				snprintf(over, sizeof over, "%.2f:1", omin);
			else
				snprintf(over, sizeof over, "%.2f:1 to %.2f:1", omin, omax);
		}
		printf("%-5d  %-8s  %-11s  %-21s  %s\n", l, sw, nb, cap, over);
	}

	if (list) {
		int wn = 6, wm = 7;
		char **mem = all_members(t);
		if (!mem)
			goto out;
		for (size_t s = 0; s < ns; s++) {
			int l = (int)strlen(orrery_topology_switch_name(t, s));
			wn = l > wn ? l : wn;
			l = mem[s] ? (int)strlen(mem[s]) : 1;
			wm = l > wm ? l : wm;
		}
		printf("\n%-*s  %-5s  %-*s  %-*s  %-10s  %s\n", wn, "switch", "level",
		       wn, "parent", wm, "members", "uplink", "oversub");
		for (int l = 0; l <= top; l++) {
			for (size_t s = 0; s < ns; s++) {
				if (orrery_topology_switch_level(t, s) != l)
					continue;
				long p = orrery_topology_switch_parent(t, s);
				uint64_t up = orrery_topology_uplink_mbps(t, s);
				ratio(c, sizeof c, below[s], link, up);
				printf("%-*s  %-5d  %-*s  %-*s  %-10s  %s\n", wn,
				       orrery_topology_switch_name(t, s), l, wn,
				       p < 0 ? "-" : orrery_topology_switch_name(t, (size_t)p),
				       wm, mem[s] ? mem[s] : "?",
				       p < 0 ? "-" : fmt_bw(a, sizeof a, up),
				       p < 0 ? "-" : c);
			}
		}
		for (size_t s = 0; s < ns; s++)
			free(mem[s]);
		free(mem);
	}
out:
	free(below);
}

struct topology_args {
	struct topo_opts to;
	const char *write;
	int list;
};

static int take(int ch, const char *name, const char *arg, void *ctx)
{
	struct topology_args *ta = ctx;

	if (ch == 0)
		return topo_opt(&ta->to, name, arg) > 0 ? 0 : -1;
	if (ch == 'w')
		ta->write = arg;
	else if (ch == 'l')
		ta->list = 1;
	else
		return -1;
	return 0;
}

int cmd_topology(int argc, char **argv)
{
	static const struct option opts[] = {
		TOPO_LONG_OPTIONS,
		{ "write", required_argument, NULL, 'w' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct topology_args ta = { .list = -1 };
	const struct topo_opts *to = &ta.to;
	const char *write;
	int list;
	orrery_topology_t *t;
	orrery_error_t err;
	int rc;

	topo_opts_init(&ta.to);
	rc = query_getopt(argc, argv, opts, help, take, &ta, QUERY_NO_OPERANDS);
	if (rc != QUERY_GO)
		return rc;
	rc = 0;
	write = ta.write;
	list = ta.list;
	if (!to->path && !to->generate) {
		help(stderr);
		return EXIT_USAGE;
	}
	t = topo_load(to);
	if (!t)
		return EXIT_INPUT;
	if (write) {
		FILE *f = strcmp(write, "-") ? fopen(write, "w") : stdout;
		if (!f) {
			qerr("--write %s: cannot create the file", write);
			orrery_topology_free(t);
			return EXIT_INPUT;
		}
		rc = orrery_topology_write_slurm(t, f, &err);
		if (f != stdout && fclose(f) && !rc) {
			rc = ORRERY_EIO;
			snprintf(err.message, sizeof err.message, "write error");
		}
		if (rc) {
			qerr("--write %s: %s", write, err.message);
			orrery_topology_free(t);
			return EXIT_INPUT;
		}
		if (f == stdout) {
			orrery_topology_free(t);
			return 0;
		}
		printf("wrote %s\n\n", write);
	}
	if (list < 0)
		list = orrery_topology_switch_count(t) <= 32;
	summary(t, to->path ? to->path : to->generate, list);
	orrery_topology_free(t);
	return rc ? EXIT_INPUT : 0;
}
