/*
 * cmd_place.c - "orrery-query place": where would a new job go?  Loads the
 * topology and the running jobs, ranks candidate node sets the way the
 * select plugin does (locality first, then the compatibility score on the
 * uplinks the job would cross), shows the links the best candidate
 * crosses with the jobs already on them, and can draw each link's circle.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "query.h"

static void help(FILE *out)
{
	fprintf(out,
		"Usage: orrery-query place (--topology FILE | --generate SPEC)\n"
		"                          [--jobs JOBSFILE | --state STATEFILE]\n"
		"                          --nodes N --profile SPEC [--free HOSTLIST]\n"
		"                          [--candidates K] [--show N] [--gpus-per-node G]\n"
		"                          [--svg-dir DIR] [--linkspeed-unit CAP]\n"
		"                          [--node-link CAP] [--uplink LEVEL=[Kx]CAP|SWITCH=[Kx]CAP]...\n"
		"                          [--flows N] [--rank-spread N]\n");
}

/* The jobs whose traffic crosses the uplink of sw. */
static size_t jobs_on_link(const orrery_cluster_t *c, size_t sw, uint32_t *ids,
			   uint32_t *ms, uint32_t *ns, size_t max)
{
	const orrery_topology_t *t = orrery_cluster_topology(c);
	size_t k = 0, cap = orrery_topology_node_count(t);
	uint32_t *nodes = malloc((cap ? cap : 1) * sizeof *nodes);

	if (!nodes)
		return 0;
	for (size_t j = 0; j < orrery_cluster_job_count(c) && k < max; j++) {
		uint32_t id = orrery_cluster_job_id(c, j);
		size_t n = orrery_cluster_job_nodes(c, id, nodes, cap);
		uint32_t m = nodes_below(t, sw, nodes, n);
		if (m > 0 && m < n) {
			ids[k] = id;
			ms[k] = m;
			ns[k] = (uint32_t)n;
			k++;
		}
	}
	free(nodes);
	return k;
}

/* One SVG: the running jobs on the link at their shifts and the newcomer at
 * the shift the evaluation chose. */
static int link_svg(const orrery_cluster_t *c, const char *dir, size_t sw,
		    uint64_t cap, const orrery_profile_t *newp, const uint32_t *nodes,
		    size_t n_nodes, int64_t new_shift)
{
	const orrery_topology_t *t = orrery_cluster_topology(c);
	enum { MAXJ = 64 };
	uint32_t ids[MAXJ], ms[MAXJ], ns[MAXJ];
	size_t k = jobs_on_link(c, sw, ids, ms, ns, MAXJ - 1);
	orrery_profile_t *prof[MAXJ] = { NULL };
	int64_t shifts[MAXJ];
	char lab[MAXJ][24], path[4096], title[256], bw[FMT_N];
	const char *labels[MAXJ];
	orrery_link_result_t *res = NULL;
	orrery_circle_opts_t copts;
	orrery_error_t err;
	FILE *f = NULL;
	int rc = -1;

	orrery_circle_opts_default(&copts);
	for (size_t i = 0; i < k; i++) {
		int64_t period;
		uint32_t *jn = malloc((ns[i] ? ns[i] : 1) * sizeof *jn);
		if (!jn)
			goto out;
		orrery_cluster_job_nodes(c, ids[i], jn, ns[i]);
		prof[i] = profile_on_link(t, sw, orrery_cluster_job_profile(c, ids[i]),
					  jn, ns[i]);
		free(jn);
		if (!prof[i])
			goto out;
		orrery_cluster_job_shift_us(c, ids[i], &shifts[i], &period);
		snprintf(lab[i], sizeof lab[i], "job %u", ids[i]);
		labels[i] = lab[i];
	}
	prof[k] = profile_on_link(t, sw, newp, nodes, n_nodes);
	if (!prof[k])
		goto out;
	shifts[k] = new_shift;
	snprintf(lab[k], sizeof lab[k], "new job");
	labels[k] = lab[k];
	if (orrery_link_score((const orrery_profile_t *const *)prof, k + 1, cap,
			      shifts, &copts, &res, &err)) {
		qerr("SVG for %s: %s", orrery_topology_switch_name(t, sw), err.message);
		goto out;
	}
	snprintf(path, sizeof path, "%s/link-%s.svg", dir,
		 orrery_topology_switch_name(t, sw));
	snprintf(title, sizeof title, "uplink of %s, %s",
		 orrery_topology_switch_name(t, sw), fmt_bw(bw, sizeof bw, cap));
	f = fopen(path, "w");
	if (!f) {
		qerr("%s: cannot create: %s", path, strerror(errno));
		goto out;
	}
	if (orrery_link_result_write_svg(res, labels, title, f, &err)) {
		qerr("%s: %s", path, err.message);
		goto out;
	}
	rc = 0;
	printf("  wrote %s\n", path);
out:
	if (f && fclose(f) && !rc) {
		qerr("%s: write error", path);
		rc = -1;
	}
	orrery_link_result_free(res);
	for (size_t i = 0; i <= k; i++)
		orrery_profile_free(prof[i]);
	return rc;
}

static void print_links(const orrery_cluster_t *c, const orrery_eval_t *e)
{
	const orrery_topology_t *t = orrery_cluster_topology(c);
	size_t nl = orrery_eval_link_count(e);
	char a[FMT_N];
	int wn = 6, ecmp = 0;

	if (!nl) {
		printf("\nThe best candidate stays below one switch: it crosses no uplink.\n");
		return;
	}
	for (size_t i = 0; i < nl; i++) {
		orrery_link_eval_t l;
		orrery_eval_link(e, i, &l);
		int w = (int)strlen(orrery_topology_switch_name(t, l.switch_index));
		wn = w > wn ? w : wn;
	}
	printf("\nUplinks crossed by the best candidate:\n");
	printf("  %-*s  %-5s  %-10s  %-6s  %-9s  %-8s  %s\n", wn, "uplink", "level",
	       "capacity", "score", "unshifted", "over cap", "other jobs");
	for (size_t i = 0; i < nl; i++) {
		orrery_link_eval_t l;
		uint32_t ids[16], ms[16], ns[16];
		char others[160] = "";
		orrery_eval_link(e, i, &l);
		size_t k = jobs_on_link(c, l.switch_index, ids, ms, ns, 16);
		for (size_t j = 0; j < k; j++)
			snprintf(others + strlen(others), sizeof others - strlen(others),
				 "%s%u", j ? ", " : "", ids[j]);
		if (!k)
			snprintf(others, sizeof others, "none");
		else if (l.other_jobs > k)
			snprintf(others + strlen(others), sizeof others - strlen(others),
				 " (+%u more)", l.other_jobs - (uint32_t)k);
		char over[16], capb[48];
		uint32_t nlinks = orrery_topology_uplink_links(t, l.switch_index);
		snprintf(over, sizeof over, "%.1f %%", 100.0 * l.over_fraction);
		if (nlinks > 1) {
			snprintf(capb, sizeof capb, "%ux%s", nlinks,
				 fmt_bw(a, sizeof a, l.capacity_mbps / nlinks));
			ecmp++;
		} else {
			snprintf(capb, sizeof capb, "%s",
				 fmt_bw(a, sizeof a, l.capacity_mbps));
		}
		printf("  %-*s  %-5d  %-10s  %-6.3f  %-9.3f  %-8s  %s\n", wn,
		       orrery_topology_switch_name(t, l.switch_index),
		       orrery_topology_switch_level(t, l.switch_index),
		       capb, l.score, l.score_unshifted, over, others);
	}
	if (ecmp)
		printf("\nKxC: K parallel links of C (ECMP).  Their scores count the "
		       "expected collisions\nof %u flows per job across an uplink "
		       "(all-to-all: per node pair), hashed\nuniformly onto the K "
		       "links (orrery-score(7), ECMP); a single pipe of K*C\nwould "
		       "count none below K*C.\n", orrery_topology_flows(t));
}

struct place_args {
	struct cluster_args ca;
	const char *spec, *free_expr, *svg_dir;
	uint64_t nodes, cand, show;
	int spread;
};

static int take(int ch, const char *name, const char *arg, void *ctx)
{
	struct place_args *pa = ctx;
	int taken = cluster_opt(&pa->ca, ch, name, arg);
	uint64_t v;

	if (taken)
		return taken < 0 ? -1 : 0;
	switch (ch) {
	case 'p': pa->spec = arg; return 0;
	case 'f': pa->free_expr = arg; return 0;
	case 'd': pa->svg_dir = arg; return 0;
	case 'N': return query_positive("nodes", arg, &pa->nodes);
	case 'k': return query_positive("candidates", arg, &pa->cand);
	case 'S': return query_positive("show", arg, &pa->show);
	case 'r':
		if (parse_uint(arg, ORRERY_RANK_SPREAD_MAX, &v)) {
			qerr("--rank-spread '%s': expected a whole number 0..%d (0: locality first)",
			     arg, ORRERY_RANK_SPREAD_MAX);
			return -1;
		}
		pa->spread = (int)v;
		return 0;
	}
	return -1;
}

int cmd_place(int argc, char **argv)
{
	static const struct option opts[] = {
		CLUSTER_LONG_OPTIONS,
		{ "nodes", required_argument, NULL, 'N' },
		{ "profile", required_argument, NULL, 'p' },
		{ "free", required_argument, NULL, 'f' },
		{ "candidates", required_argument, NULL, 'k' },
		{ "rank-spread", required_argument, NULL, 'r' },
		{ "show", required_argument, NULL, 'S' },
		{ "svg-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct place_args pa = { .show = 10, .spread = -1 };
	orrery_cluster_t *c = NULL;
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_placement_t *pl = NULL;
	uint8_t *free_mask = NULL;
	uint32_t *buf = NULL;
	orrery_error_t err;
	int rc;
	char a[FMT_N], b[FMT_N];

	cluster_args_init(&pa.ca);
	rc = query_getopt(argc, argv, opts, help, take, &pa, QUERY_NO_OPERANDS);
	if (rc != QUERY_GO)
		return rc;
	rc = EXIT_INPUT;
	if (!pa.nodes || !pa.spec) {
		qerr("--nodes and --profile are required");
		help(stderr);
		return EXIT_USAGE;
	}
	c = cluster_load(&pa.ca, (uint32_t)pa.cand, pa.spread);
	if (!c)
		return EXIT_INPUT;
	const orrery_topology_t *t = orrery_cluster_topology(c);
	size_t nn = orrery_topology_node_count(t);

	if (orrery_profile_parse(pa.spec, &p, &err)) {
		qerr("--profile: %s", err.message);
		goto out;
	}
	if (orrery_profile_is_model(p)) {
		orrery_shape_t shape = { (uint32_t)pa.nodes, (uint32_t)pa.ca.gpus_per_node,
					 orrery_topology_node_link(t) };
		if (orrery_profile_resolve(p, &shape, &r, &err)) {
			qerr("--profile: %s", err.message);
			goto out;
		}
	} else {
		r = orrery_profile_copy(p);
	}
	free_mask = calloc(nn ? nn : 1, 1);
	buf = malloc((nn ? nn : 1) * sizeof *buf);
	if (!r || !free_mask || !buf) {
		qerr("out of memory");
		goto out;
	}
	if (pa.free_expr) {
		uint32_t *idxs;
		size_t n;
		char msg[512];
		if (expand_nodes(t, pa.free_expr, &idxs, &n, msg, sizeof msg)) {
			qerr("--free: %s", msg);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			free_mask[idxs[i]] = 1;
		free(idxs);
	} else {
		memset(free_mask, 1, nn);
		for (size_t j = 0; j < orrery_cluster_job_count(c); j++) {
			size_t n = orrery_cluster_job_nodes(c, orrery_cluster_job_id(c, j), buf, nn);
			for (size_t i = 0; i < n && i < nn; i++)
				free_mask[buf[i]] = 0;
		}
	}
	size_t n_free = 0;
	for (size_t i = 0; i < nn; i++)
		n_free += free_mask[i];

	char *canon = orrery_profile_canonical(r);
	printf("topology     %s: %zu nodes, %zu switches\n",
	       pa.ca.to.path ? pa.ca.to.path : pa.ca.to.generate, nn, orrery_topology_switch_count(t));
	printf("running      %zu job%s%s%s; %zu nodes free\n", orrery_cluster_job_count(c),
	       orrery_cluster_job_count(c) == 1 ? "" : "s",
	       pa.ca.jobs || pa.ca.state ? " from " : "", pa.ca.jobs ? pa.ca.jobs : pa.ca.state ? pa.ca.state : "", n_free);
	printf("new job      %llu nodes, %s\n", (unsigned long long)pa.nodes,
	       canon ? canon : "?");
	printf("             period %s, duty cycle %.1f %%, mean %s per node\n",
	       fmt_time(a, sizeof a, orrery_profile_period_us(r)),
	       100.0 * orrery_profile_duty_cycle(r),
	       fmt_bw(b, sizeof b, (uint64_t)(orrery_profile_mean_demand_mbps(r) + 0.5)));
	orrery_free(canon);

	if (orrery_cluster_place(c, free_mask, (uint32_t)pa.nodes, r, &pl, &err)) {
		qerr("%s", err.message);
		goto out;
	}
	size_t np = orrery_placement_count(pl);
	printf("candidates   %zu scored of %zu enumerated\n", np,
	       orrery_placement_enumerated(pl));
	if (!np) {
		printf("\nNo candidate: %zu free nodes for a %llu-node job.\n", n_free,
		       (unsigned long long)pa.nodes);
		rc = EXIT_NOPLACE;
		goto out;
	}

	/* Column width for the node lists. */
	int wn = 5;
	char **hl = calloc(np, sizeof *hl);
	if (!hl)
		goto out;
	for (size_t i = 0; i < np && i < pa.show; i++) {
		size_t n = orrery_placement_nodes(pl, i, buf, nn);
		hl[i] = nodes_hostlist(t, buf, n);
		int w = hl[i] ? (int)strlen(hl[i]) : 1;
		wn = w > wn ? w : wn;
	}
	printf("\n  %-4s  %-*s  %-3s  %-6s  %-9s  %-6s  %-9s  %-11s  %s\n", "rank", wn,
	       "nodes", "lca", "leaves", "score min", "mean", "slowdown", "shift",
	       "gate period");
	for (size_t i = 0; i < np && i < pa.show; i++) {
		const orrery_eval_t *e = orrery_placement_eval(pl, i);
		double cost = orrery_placement_cost(pl, i);
		char cb[16] = "-";
		if (cost >= 0)
			snprintf(cb, sizeof cb, "+%.3f", cost);
		printf("  %-4zu  %-*s  %-3d  %-6u  %-9.3f  %-6.3f  %-9s  %-11s  %s\n", i + 1,
		       wn, hl[i] ? hl[i] : "?", orrery_placement_lca_level(pl, i),
		       orrery_placement_leaf_count(pl, i), orrery_eval_score_min(e),
		       orrery_eval_score_mean(e), cb,
		       fmt_time(a, sizeof a, orrery_eval_shift_us(e)),
		       fmt_time(b, sizeof b, orrery_eval_period_us(e)));
		free(hl[i]);
	}
	for (size_t i = 0; i < np && i < pa.show; i++)
		if (orrery_placement_cost(pl, i) >= 0) {
			printf("  slowdown: what placing the job there is predicted to add (itself and\n"
			       "  the running jobs on its contended uplinks, orrery-score(7)); '-': not predicted\n");
			break;
		}
	free(hl);
	if (np > pa.show)
		printf("  (%zu more; --show N lists more)\n", np - pa.show);

	const orrery_eval_t *best = orrery_placement_eval(pl, 0);
	print_links(c, best);
	if (pa.svg_dir && orrery_eval_link_count(best)) {
		size_t n = orrery_placement_nodes(pl, 0, buf, nn);
		struct stat st;
		if (stat(pa.svg_dir, &st) || !S_ISDIR(st.st_mode)) {
			qerr("--svg-dir %s: not a directory", pa.svg_dir);
			goto out;
		}
		printf("\n");
		for (size_t i = 0; i < orrery_eval_link_count(best); i++) {
			orrery_link_eval_t l;
			orrery_eval_link(best, i, &l);
			if (!l.capacity_mbps) {
				printf("  %s: capacity unknown, no SVG\n",
				       orrery_topology_switch_name(t, l.switch_index));
				continue;
			}
			if (link_svg(c, pa.svg_dir, l.switch_index, l.capacity_mbps, r, buf, n,
				     orrery_eval_shift_us(best)))
				goto out;
		}
	}
	rc = 0;
out:
	orrery_placement_free(pl);
	orrery_profile_free(r);
	orrery_profile_free(p);
	orrery_cluster_free(c);
	free(free_mask);
	free(buf);
	return rc;
}
