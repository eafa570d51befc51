/*
 * node_records - what the SPANK plugin's epilog reads as root from files a
 * job's user wrote (the runtime's statistics files, gate_stats=1), and the
 * per-node AdminComment records it publishes (ORRS1: gate statistics,
 * ORRC1: congestion counters), as the publisher merges them and
 * orrery-sacct sums them.
 *
 * Oracle: a refused statistics file adds nothing; an accepted one adds one
 * task; a record that parses formats back to one that parses to the same
 * values; merging leaves exactly one record of the node, the one given,
 * and every other token in order.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contrib/inventory/counters.h"
#include "contrib/inventory/gate_stats.h"

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz check failed: %s\n", #cond); abort(); } } while (0)

static void merge_keeps_others(const char *old, const char *merged,
			       const char *tag, const char *node,
			       const char *record)
{
	char *copy = strdup(old), *save = NULL, *t;
	size_t mine = strlen(tag) + 5 + strlen(node);
	const char *m = merged;
	int seen = 0;

	CHECK(copy);
	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const char *at;

		if (!strncmp(t, tag, strlen(tag)) && !strncmp(t + strlen(tag), "node=", 5) &&
		    !strncmp(t + strlen(tag) + 5, node, strlen(node)) &&
		    (t[mine] == '\0' || t[mine] == ','))
			continue;	/* the node's own: replaced */
		at = strstr(m, t);
		CHECK(at != NULL);
		m = at + strlen(t);
	}
	free(copy);
	/* the record, once, as a whole token */
	for (const char *p = merged; (p = strstr(p, record)); p++)
		if ((p == merged || p[-1] == ' ') &&
		    (p[strlen(record)] == '\0' || p[strlen(record)] == ' '))
			seen++;
	CHECK(seen == 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct ogs_totals t, before, back;
	struct orc_totals c, cback;
	char err[128], node[ORC_DEV_MAX], node2[ORC_DEV_MAX];
	char rec[OGS_RECORD_MAX], crec[ORC_RECORD_MAX];
	char *merged;
	int rc;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';

	/* the epilog: one statistics file */
	memset(&t, 0, sizeof(t));
	t.tasks = 5;
	before = t;
	rc = ogs_stats_add(s, &t, err, sizeof(err));
	CHECK(rc == 0 || rc == -1);
	if (rc < 0)
		CHECK(!memcmp(&t, &before, sizeof(t)) && err[0]);
	else
		CHECK(t.tasks == 6 && t.gated <= 1 && t.off <= t.gated);

	/* one record, either kind */
	rc = ogs_record_parse(s, &t, node, sizeof(node));
	CHECK(rc == 1 || rc == -1);
	if (rc == 1) {
		CHECK(ogs_record_format(node, &t, rec, sizeof(rec)) == 0);
		CHECK(ogs_record_parse(rec, &back, node2, sizeof(node2)) == 1);
		CHECK(!strcmp(node, node2) && !memcmp(&t, &back, sizeof(t)));
	}
	rc = orc_record_parse(s, &c, node, sizeof(node));
	CHECK(rc == 1 || rc == -1);
	if (rc == 1) {
		CHECK(orc_record_format(node, &c, crec, sizeof(crec)) == 0);
		CHECK(orc_record_parse(crec, &cback, node2, sizeof(node2)) == 1);
		CHECK(!strcmp(node, node2) && c.have == cback.have &&
		      !memcmp(c.v, cback.v, sizeof(c.v)) && c.ports == cback.ports &&
		      c.wrapped == cback.wrapped);
	}

	/* an AdminComment: sums, and a node's records merged into it */
	rc = ogs_comment_sum(s, &t);
	CHECK(rc >= -1 && (rc < 0 || (unsigned) rc == t.nodes));
	rc = orc_comment_sum(s, &c);
	CHECK(rc >= -1 && (rc < 0 || (unsigned) rc == c.nodes));
	if (!strchr(s, '\n') && !strchr(s, '\t')) {
		memset(&t, 0, sizeof(t));
		t.tasks = 8;
		t.gated = 8;
		t.phases = 1000;
		CHECK(ogs_record_format("node7", &t, rec, sizeof(rec)) == 0);
		merged = ogs_comment_merge(s, "node7", rec);
		CHECK(merged);
		merge_keeps_others(s, merged, OGS_TAG, "node7", rec);
		free(merged);
		memset(&c, 0, sizeof(c));
		c.ports = 1;
		CHECK(orc_record_format("node7", &c, crec, sizeof(crec)) == 0);
		merged = orc_comment_merge(s, "node7", crec);
		CHECK(merged);
		merge_keeps_others(s, merged, ORC_TAG, "node7", crec);
		free(merged);
	}
	free(s);
	return 0;
}
