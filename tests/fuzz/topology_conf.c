/*
 * topology_conf - Slurm's topology.conf as orrery-query reads it
 * (orrery_topology_read_slurm).  slurmctld itself reads topology.conf with
 * Slurm's own parser; orrery's reader runs in the tools, so a crash here
 * is a tool crash, but the file is still untrusted input.
 *
 * The hostlist callback is a small stand-in for libslurm's: comma lists
 * and one numeric range per name ("n[01-16]"), at most 256 hosts per
 * expression, so that the fuzzer exercises the reader rather than Slurm.
 * (With 4096, a long run spent a quarter of its time expanding and storing
 * ranges of thousands of hosts, the same few branches per host; the
 * 100,000-node limit is still reachable through many expressions and is
 * tested in tests/unit/test_topology_read.)
 * Oracle: an accepted topology is finalized (every node below exactly one
 * leaf, parents form a tree rooted at one switch).
 *
 * The bytes go to orrery_topology_parse_slurm, the parser behind
 * orrery_topology_read_slurm, from memory: a temporary file per input cost
 * a quarter of the time (tests/unit/test_topology_read.c reads real files).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

#define MAX_HOSTS 256  /* per hostlist expression */

static int expand_one(const char *name, size_t len,
		      void (*emit)(const char *, void *), void *ectx, size_t *count)
{
	char buf[256], host[320];
	const char *lb, *rb, *dash;
	unsigned long lo, hi;
	char *end;
	int width;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	lb = strchr(buf, '[');
	if (!lb) {
		if (strchr(buf, ']'))
			return -1;
		emit(buf, ectx);
		return ++*count > MAX_HOSTS ? -1 : 0;
	}
	rb = strchr(lb, ']');
	if (!rb || rb[1] != '\0')
		return -1;
	dash = strchr(lb, '-');
	lo = strtoul(lb + 1, &end, 10);
	if (end == lb + 1 || (dash && end != dash) || (!dash && end != rb))
		return -1;
	hi = lo;
	if (dash) {
		hi = strtoul(dash + 1, &end, 10);
		if (end == dash + 1 || end != rb)
			return -1;
	}
	if (hi < lo || hi - lo > MAX_HOSTS)
		return -1;
	width = (int)(dash ? dash - lb - 1 : rb - lb - 1);
	for (unsigned long v = lo; v <= hi; v++) {
		snprintf(host, sizeof(host), "%.*s%0*lu", (int)(lb - buf), buf,
			 width, v);
		emit(host, ectx);
		if (++*count > MAX_HOSTS)
			return -1;
	}
	return 0;
}

static int expand(const char *expr, void *ctx,
		  void (*emit)(const char *host, void *ectx), void *ectx)
{
	size_t count = 0;
	const char *p = expr;

	(void)ctx;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (expand_one(p, len, emit, ectx, &count) < 0)
			return -1;
		if (!c)
			return 0;
		p = c + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	orrery_topology_t *t = NULL;
	orrery_error_t err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = orrery_topology_parse_slurm((const char *)data, size, "fuzz", expand,
					 NULL, 1000, &t, &err);
	if (rc != ORRERY_OK) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(t == NULL, "object left behind on error");
		return 0;
	}
	{
		size_t ns = orrery_topology_switch_count(t);
		size_t nn = orrery_topology_node_count(t);
		size_t roots = 0;

		FUZZ_CHECK(ns >= 1, "no switch");
		for (size_t i = 0; i < ns; i++) {
			long p = orrery_topology_switch_parent(t, i);
			size_t hops = 0;

			if (p < 0)
				roots++;
			/* walking up ends at the root: no cycle */
			for (long q = p; q >= 0; q = orrery_topology_switch_parent(t, (size_t)q))
				FUZZ_CHECK(++hops <= ns, "cycle above switch %zu", i);
		}
		FUZZ_CHECK(roots == 1, "%zu roots", roots);
		for (size_t i = 0; i < nn; i++) {
			long leaf = orrery_topology_node_leaf(t, i);

			FUZZ_CHECK(leaf >= 0 && (size_t)leaf < ns, "node %zu leaf %ld",
				   i, leaf);
			FUZZ_CHECK(orrery_topology_node_index(
					   t, orrery_topology_node_name(t, i)) == (long)i,
				   "node %zu index", i);
		}
	}
	orrery_topology_free(t);
	return 0;
}
