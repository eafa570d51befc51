/*
 * state_file - slurmctld's StateSaveLocation/orrery_state, loaded at start
 * and after reconfigure (orrery_cluster_load).
 *
 * The SHA-256 end line would stop almost every mutated input at the
 * checksum, so when the first byte is odd the harness replaces the input's
 * end line by a correct one ("end jobs=N sha256=...", N = the number of
 * "job " lines): the parser behind the checksum is fuzzed too.  Oracle: a
 * failed load leaves the cluster unchanged; a successful one holds jobs on
 * known nodes with shifts in range, and serialises and reloads to the same
 * jobs.
 *
 * The bytes go to orrery_cluster_load_data, the parser behind
 * orrery_cluster_load, from memory: a temporary file per input (create,
 * write, read, unlink, and the save's fsyncs) cost a quarter of the time
 * and the file path adds nothing to parse (tests/unit/test_cluster.c loads
 * and saves real files: FIFO, missing, renamed node, atomic write).
 */
#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include "fuzz_util.h"

static orrery_cluster_t *cluster;

/* spine over leaf1..leaf4, node001..node016: the topology of
 * tests/data/state/good.state. */
static orrery_cluster_t *make_cluster(void)
{
	orrery_topology_t *t = orrery_topology_new();
	orrery_cluster_t *c = NULL;
	orrery_error_t err;
	char leaf[16], node[16];

	FUZZ_CHECK(t && !orrery_topology_add_switch(t, "spine", NULL, &err), "spine");
	for (int l = 1; l <= 4; l++) {
		snprintf(leaf, sizeof leaf, "leaf%d", l);
		FUZZ_CHECK(!orrery_topology_add_switch(t, leaf, "spine", &err), "leaf");
		FUZZ_CHECK(!orrery_topology_set_uplink(t, leaf, 100000, 100000, &err), "up");
		for (int n = 0; n < 4; n++) {
			snprintf(node, sizeof node, "node%03d", (l - 1) * 4 + n + 1);
			FUZZ_CHECK(!orrery_topology_add_node(t, node, leaf, &err), "node");
		}
	}
	FUZZ_CHECK(!orrery_topology_finalize(t, &err), "finalize");
	FUZZ_CHECK(!orrery_cluster_new(t, NULL, &c, &err), "cluster");
	orrery_topology_free(t);
	return c;
}

static GString *with_checksum(const uint8_t *data, size_t size)
{
	GString *s = g_string_new_len((const char *)data, (gssize)size);
	size_t jobs = 0;
	char *sum, *end;

	/* drop an end line the input may carry, then count job lines */
	end = strstr(s->str, "\nend ");
	if (end && (size_t)(end - s->str) < s->len)
		g_string_truncate(s, (gsize)(end - s->str) + 1);
	if (s->len && s->str[s->len - 1] != '\n')
		g_string_append_c(s, '\n');
	for (const char *p = s->str; p && p < s->str + s->len; ) {
		if (!strncmp(p, "job ", 4))
			jobs++;
		p = memchr(p, '\n', s->len - (size_t)(p - s->str));
		if (p)
			p++;
	}
	sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
					  (const guchar *)s->str, s->len);
	g_string_append_printf(s, "end jobs=%zu sha256=%s\n", jobs, sum);
	g_free(sum);
	return s;
}

/* The cluster is built once: each load replaces its jobs only. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	cluster = make_cluster();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	orrery_error_t err;
	size_t dropped = 0, before;
	uint64_t version;
	GString *s;
	int rc;

	if (size == 0)
		return 0;
	if (data[0] & 1)
		s = with_checksum(data + 1, size - 1);
	else
		s = g_string_new_len((const char *)data + 1, (gssize)size - 1);

	before = orrery_cluster_job_count(cluster);
	version = orrery_cluster_version(cluster);
	memset(&err, 0, sizeof(err));
	rc = orrery_cluster_load_data(cluster, s->str, s->len, "fuzz", &dropped, &err);
	g_string_free(s, TRUE);
	if (rc != ORRERY_OK) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(orrery_cluster_job_count(cluster) == before &&
			   orrery_cluster_version(cluster) == version,
			   "failed load changed the cluster");
	} else {
		size_t n = orrery_cluster_job_count(cluster);
		char *text = NULL;
		size_t len = 0;

		for (size_t i = 0; i < n; i++) {
			uint32_t id = orrery_cluster_job_id(cluster, i), nodes[32];
			int64_t shift = -1, period = 0;
			size_t k = orrery_cluster_job_nodes(cluster, id, nodes, 32);

			FUZZ_CHECK(!orrery_cluster_job_shift_us(cluster, id, &shift, &period),
				   "job %u", id);
			FUZZ_CHECK(shift >= 0 && shift <= ORRERY_MAX_PERIOD_US,
				   "shift %lld", (long long)shift);
			FUZZ_CHECK(k >= 1 && k <= 16, "job %u on %zu nodes", id, k);
			for (size_t j = 0; j < k && j < 32; j++)
				FUZZ_CHECK(nodes[j] < 16, "node index %u", nodes[j]);
		}
		/* What was loaded serialises (the text select/orrery writes)
		 * and loads back to the same jobs. */
		FUZZ_CHECK(!orrery_cluster_serialise(cluster, &text, &len, &err),
			   "serialise: %s", err.message);
		FUZZ_CHECK(!orrery_cluster_load_data(cluster, text, len, "fuzz reload",
						     NULL, &err),
			   "reload: %s", err.message);
		orrery_free(text);
		FUZZ_CHECK(orrery_cluster_job_count(cluster) == n, "reload count");
	}
	return 0;
}
