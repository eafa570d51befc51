/*
 * jobs_file.c - the running-jobs file of orrery-query (place, solve):
 *
 *   # JOBID  NODES (hostlist)   COMM PROFILE                      [shift=]
 *   101      node[001-004,009-012]  gpt2                          shift=0ms
 *   102      node[013-016,021-024]  period=200ms;up=0ms+60ms@80Gbps
 *
 * One job per line, whitespace-separated fields, '#' starts a comment.
 * Catalogue models are resolved for the job's node count, --gpus-per-node
 * and the topology's node link.  A missing shift= means 0.  The file is
 * input from a user: sizes are capped and every error names file:line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hostlist_slurm.h"
#include "query.h"

#define JOBS_FILE_MAX (16 * 1024 * 1024)
#define JOBS_LINE_MAX (ORRERY_SPEC_MAX_LEN + 65536)

struct node_list {
	const orrery_topology_t *t;
	uint32_t *idx;
	size_t n, cap;
	const char *unknown;  /* first name not in the topology */
	char unknown_buf[256];
	int nomem;
};

static void add_node(const char *host, void *ctx)
{
	struct node_list *l = ctx;
	long i = orrery_topology_node_index(l->t, host);

	if (i < 0) {
		if (!l->unknown) {
			snprintf(l->unknown_buf, sizeof l->unknown_buf, "%s", host);
			l->unknown = l->unknown_buf;
		}
		return;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 64;
		uint32_t *p = realloc(l->idx, nc * sizeof *p);
		if (!p) {
			l->nomem = 1;
			return;
		}
		l->idx = p;
		l->cap = nc;
	}
	l->idx[l->n++] = (uint32_t)i;
}

/* Expand a hostlist into topology node indices; -1 with a message. */
int expand_nodes(const orrery_topology_t *t, const char *expr, uint32_t **out,
		 size_t *n, char *msg, size_t msg_n)
{
	struct node_list l = { .t = t };

	if (hostlist_slurm_expand(expr, NULL, add_node, &l)) {
		snprintf(msg, msg_n, "'%s' is not a valid hostlist", expr);
		goto fail;
	}
	if (l.nomem) {
		snprintf(msg, msg_n, "out of memory");
		goto fail;
	}
	if (l.unknown) {
		snprintf(msg, msg_n, "node '%s' is not in the topology", l.unknown);
		goto fail;
	}
	*out = l.idx;
	*n = l.n;
	return 0;
fail:
	free(l.idx);
	return -1;
}

static int load_line(orrery_cluster_t *c, char *line, uint32_t gpus_per_node,
		     char *msg, size_t msg_n)
{
	const orrery_topology_t *t = orrery_cluster_topology(c);
	char *f[5], *save = NULL, *end;
	int nf = 0;
	uint32_t *nodes = NULL;
	size_t n = 0;
	int64_t shift = 0;
	unsigned long long id;
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_error_t err;
	int rc = -1;

	for (char *tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (nf == 4) {
			snprintf(msg, msg_n, "unexpected '%s' after the shift "
				 "(fields: JOBID NODES PROFILE [shift=TIME])", tok);
			return -1;
		}
		f[nf++] = tok;
	}
	if (nf == 0)
		return 0;
	if (nf < 3) {
		snprintf(msg, msg_n, "expected JOBID NODES PROFILE [shift=TIME]");
		return -1;
	}
	errno = 0;
	id = strtoull(f[0], &end, 10);
	if (errno || *end || f[0][0] == '-' || id == 0 || id > 0xfffffffeULL) {
		snprintf(msg, msg_n, "job id '%s': expected a number from 1 to 4294967294",
			 f[0]);
		return -1;
	}
	if (nf == 4 && (strncmp(f[3], "shift=", 6) || parse_duration(f[3] + 6, &shift))) {
		snprintf(msg, msg_n, "'%s': expected shift=TIME, e.g. shift=20ms", f[3]);
		return -1;
	}
	if (expand_nodes(t, f[1], &nodes, &n, msg, msg_n))
		return -1;
	if (orrery_profile_parse(f[2], &p, &err)) {
		snprintf(msg, msg_n, "%s", err.message);
		goto out;
	}
	if (orrery_profile_is_model(p)) {
		orrery_shape_t shape = { (uint32_t)n, gpus_per_node,
					 orrery_topology_node_link(t) };
		if (orrery_profile_resolve(p, &shape, &r, &err)) {
			snprintf(msg, msg_n, "%s", err.message);
			goto out;
		}
	}
	if (orrery_cluster_add_job(c, (uint32_t)id, nodes, n, r ? r : p, shift, &err)) {
		snprintf(msg, msg_n, "%s", err.message);
		goto out;
	}
	rc = 0;
out:
	orrery_profile_free(r);
	orrery_profile_free(p);
	free(nodes);
	return rc;
}

int jobs_file_load(orrery_cluster_t *c, const char *path, uint32_t gpus_per_node)
{
	FILE *f = fopen(path, "r");
	struct stat st;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	char msg[1024];
	int rc = 0;

	if (!f) {
		qerr("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > JOBS_FILE_MAX) {
		qerr("%s: not a regular file of at most %d MiB", path, JOBS_FILE_MAX >> 20);
		fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) != -1) {
		lineno++;
		if (len > JOBS_LINE_MAX) {
			qerr("%s:%zu: line longer than %d bytes", path, lineno, JOBS_LINE_MAX);
			rc = -1;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (load_line(c, line, gpus_per_node, msg, sizeof msg)) {
			qerr("%s:%zu: %s", path, lineno, msg);
			rc = -1;
			break;
		}
	}
	free(line);
	fclose(f);
	return rc;
}
