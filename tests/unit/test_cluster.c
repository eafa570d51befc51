/*
 * Cluster state through orrery.h: jobs, validation, the state file
 * (round trip, and every class of bad file: right code, cluster unchanged).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "orrery.h"
#include "unit_helpers.h"

#ifndef STATE_DATA_DIR
#error "STATE_DATA_DIR must name tests/data/state"
#endif

/* spine over leaf1..leaf4, node001..node016 (4 per leaf), 100 Gb/s leaf
 * uplinks. */
static orrery_topology_t *make_topo(int finalize)
{
	orrery_topology_t *t = orrery_topology_new();
	orrery_error_t err;
	char name[32], leaf[32];
	assert_non_null(t);
	assert_int_equal(orrery_topology_add_switch(t, "spine", NULL, &err), ORRERY_OK);
	for (int l = 1; l <= 4; l++) {
		snprintf(leaf, sizeof leaf, "leaf%d", l);
		assert_int_equal(orrery_topology_add_switch(t, leaf, "spine", &err), ORRERY_OK);
		assert_int_equal(orrery_topology_set_uplink(t, leaf, 100000, 100000, &err),
				 ORRERY_OK);
		for (int n = 0; n < 4; n++) {
			snprintf(name, sizeof name, "node%03d", (l - 1) * 4 + n + 1);
			assert_int_equal(orrery_topology_add_node(t, name, leaf, &err), ORRERY_OK);
		}
	}
	if (finalize)
		assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_OK);
	return t;
}

static orrery_cluster_t *make_cluster(void)
{
	orrery_topology_t *t = make_topo(1);
	orrery_cluster_t *c = NULL;
	orrery_error_t err;
	assert_int_equal(orrery_cluster_new(t, NULL, &c, &err), ORRERY_OK);
	orrery_topology_free(t);
	return c;
}

static void test_new(void **state)
{
	orrery_cluster_opts_t o;
	orrery_cluster_t *c = NULL;
	orrery_error_t err;
	orrery_cluster_opts_default(&o);
	assert_int_equal(o.max_candidates, 64);
	assert_int_equal(o.circle.bins, 360);

	orrery_topology_t *t = make_topo(0);
	assert_int_equal(orrery_cluster_new(t, &o, &c, &err), ORRERY_ESTATE);
	assert_null(c);
	assert_non_null(strstr(err.message, "finalize"));
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_OK);
	o.max_candidates = 0;
	assert_int_equal(orrery_cluster_new(t, &o, &c, &err), ORRERY_ERANGE);
	o.max_candidates = 8;
	assert_int_equal(orrery_cluster_new(t, &o, &c, &err), ORRERY_OK);
	/* The cluster owns a copy: freeing the caller's topology is fine. */
	orrery_topology_free(t);
	const orrery_topology_t *ct = orrery_cluster_topology(c);
	assert_int_equal(orrery_topology_node_count(ct), 16);
	assert_string_equal(orrery_topology_node_name(ct, 4), "node005");
	assert_int_equal(orrery_cluster_job_count(c), 0);
	assert_true(orrery_cluster_epoch_us(c) > 1600000000000000LL);
	orrery_cluster_free(c);
}

static void test_jobs(void **state)
{
	orrery_cluster_t *c = make_cluster();
	orrery_error_t err;
	uint32_t a[] = {4, 0, 1};
	uint32_t got[8];
	int64_t shift, period;
	uint64_t v0 = orrery_cluster_version(c);

	add_job(c, 20, a, 3, "period=100ms;up=0ms+50ms@100Gbps", 50000);
	assert_true(orrery_cluster_version(c) > v0);
	assert_int_equal(orrery_cluster_job_nodes(c, 20, got, 8), 3);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 4);
	assert_int_equal(orrery_cluster_job_shift_us(c, 20, &shift, &period), ORRERY_OK);
	assert_int_equal(shift, 50000);
	assert_int_equal(period, 100000);

	/* A node shared with job 20 (OverSubscribe) is accepted. */
	uint32_t b[] = {1, 2};
	add_job(c, 10, b, 2, "period=250ms;up=0ms+10ms@10Gbps", 0);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	assert_int_equal(orrery_cluster_job_id(c, 0), 10);
	assert_int_equal(orrery_cluster_job_id(c, 1), 20);

	orrery_profile_t *p = profile("period=100ms;up=0ms+50ms@100Gbps");
	uint64_t v1 = orrery_cluster_version(c);
	assert_int_equal(orrery_cluster_add_job(c, 20, b, 2, p, 0, &err), ORRERY_EINVAL);
	assert_non_null(strstr(err.message, "20"));
	uint32_t bad[] = {3, 16};
	assert_int_equal(orrery_cluster_add_job(c, 30, bad, 2, p, 0, &err), ORRERY_ERANGE);
	uint32_t twice[] = {3, 3};
	assert_int_equal(orrery_cluster_add_job(c, 30, twice, 2, p, 0, &err), ORRERY_EINVAL);
	assert_int_equal(orrery_cluster_add_job(c, 30, b, 0, p, 0, &err), ORRERY_EINVAL);
	assert_int_equal(orrery_cluster_add_job(c, 30, b, 2, p, -1, &err), ORRERY_ERANGE);
	orrery_profile_t *m = profile("resnet50");
	assert_int_equal(orrery_cluster_add_job(c, 30, b, 2, m, 0, &err), ORRERY_ESTATE);
	assert_non_null(strstr(err.message, "resolve"));
	orrery_profile_free(m);
	assert_int_equal(orrery_cluster_version(c), v1);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	assert_null(orrery_cluster_job_profile(c, 30));

	const orrery_profile_t *jp = orrery_cluster_job_profile(c, 20);
	assert_non_null(jp);
	assert_true(orrery_profile_equal(jp, p));
	orrery_profile_free(p);

	assert_int_equal(orrery_cluster_remove_job(c, 99), ORRERY_ENOENT);
	assert_int_equal(orrery_cluster_remove_job(c, 20), ORRERY_OK);
	assert_true(orrery_cluster_version(c) > v1);
	assert_int_equal(orrery_cluster_job_count(c), 1);
	assert_int_equal(orrery_cluster_job_shift_us(c, 20, &shift, NULL), ORRERY_ENOENT);
	assert_null(orrery_cluster_job_profile(c, 20));
	/* The id is free again. */
	add_job(c, 20, a, 3, "period=100ms;up=0ms+50ms@100Gbps", 0);
	orrery_cluster_free(c);
}

static char tmpdir[64];

static int setup_tmp(void **state)
{
	strcpy(tmpdir, "/tmp/orrery-test-cluster-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
	return 0;
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static void test_round_trip(void **state)
{
	orrery_cluster_t *c = make_cluster(), *d = make_cluster();
	orrery_error_t err;
	char path[256];
	uint32_t a[] = {0, 1, 4, 5}, b[] = {8, 12}, x[8], y[8];
	size_t dropped = 99;
	struct stat st;

	add_job(c, 1234, a, 4, "period=100ms;up=0ms+50ms@100Gbps", 50000);
	add_job(c, 77, b, 2, "period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a", 123457);
	/* pipeline stages and rails survive the state file */
	uint32_t pl[] = {2, 3, 6, 7};
	add_job(c, 900, pl, 4, "period=100ms;up=0ms+30ms@25Gbps/pp4;up=50ms+20ms@400Gbps/rail8", 7000);
	orrery_cluster_set_epoch_us(c, 1764460800000000LL);
	snprintf(path, sizeof path, "%s/state", tmpdir);
	assert_int_equal(orrery_cluster_save(c, path, &err), ORRERY_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_files(tmpdir), 1);  /* no temporary left */

	assert_int_equal(orrery_cluster_load(d, path, &dropped, &err), ORRERY_OK);
	assert_int_equal(dropped, 0);
	assert_int_equal(orrery_cluster_epoch_us(d), 1764460800000000LL);
	assert_int_equal(orrery_cluster_job_count(d), 3);
	for (size_t i = 0; i < 3; i++) {
		uint32_t id = orrery_cluster_job_id(c, i);
		int64_t s1, s2, p1, p2;
		assert_int_equal(orrery_cluster_job_id(d, i), id);
		size_t n = orrery_cluster_job_nodes(c, id, x, 8);
		assert_int_equal(orrery_cluster_job_nodes(d, id, y, 8), n);
		assert_memory_equal(x, y, n * sizeof x[0]);
		orrery_cluster_job_shift_us(c, id, &s1, &p1);
		orrery_cluster_job_shift_us(d, id, &s2, &p2);
		assert_int_equal(s1, s2);
		assert_int_equal(p1, p2);
		assert_true(orrery_profile_equal(orrery_cluster_job_profile(c, id),
						 orrery_cluster_job_profile(d, id)));
	}
	/* Saving again over the old file replaces it. */
	assert_int_equal(orrery_cluster_remove_job(c, 77), ORRERY_OK);
	assert_int_equal(orrery_cluster_save(c, path, &err), ORRERY_OK);
	assert_int_equal(orrery_cluster_load(d, path, NULL, &err), ORRERY_OK);
	assert_int_equal(orrery_cluster_job_count(d), 2);
	assert_int_equal(count_files(tmpdir), 1);

	/* An unwritable directory is an I/O error naming the path. */
	assert_int_equal(orrery_cluster_save(c, "/nonexistent-dir/state", &err), ORRERY_EIO);
	assert_non_null(strstr(err.message, "/nonexistent-dir/state"));
	orrery_cluster_free(c);
	orrery_cluster_free(d);
}

static void test_good_file(void **state)
{
	orrery_cluster_t *c = make_cluster();
	orrery_error_t err;
	size_t dropped = 99;
	uint32_t n[8];
	int64_t shift;
	int rc = orrery_cluster_load(c, STATE_DATA_DIR "/good.state", &dropped, &err);
	if (rc)
		fail_msg("%s", err.message);
	assert_int_equal(dropped, 0);
	assert_int_equal(orrery_cluster_epoch_us(c), 1764460800000000LL);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	assert_int_equal(orrery_cluster_job_nodes(c, 7, n, 8), 3);
	assert_int_equal(n[0], 0);
	assert_int_equal(n[1], 1);
	assert_int_equal(n[2], 4);
	assert_int_equal(orrery_cluster_job_shift_us(c, 7, &shift, NULL), ORRERY_OK);
	assert_int_equal(shift, 50000);
	assert_int_equal(orrery_profile_period_us(orrery_cluster_job_profile(c, 9)), 200000);
	orrery_cluster_free(c);
}

/* Load `path` into a cluster holding one job: expect `code`, the message to
 * contain `needle`, and the cluster untouched. */
static void expect_bad(const char *path, int code, const char *needle)
{
	orrery_cluster_t *c = make_cluster();
	orrery_error_t err;
	uint32_t a[] = {2, 3};
	size_t dropped = 42;
	add_job(c, 5, a, 2, "period=100ms;up=0ms+50ms@100Gbps", 25000);
	orrery_cluster_set_epoch_us(c, 111);
	uint64_t v = orrery_cluster_version(c);
	int rc = orrery_cluster_load(c, path, &dropped, &err);
	if (rc != code)
		fail_msg("%s: got %d (%s), want %d", path, rc, err.message, code);
	assert_int_equal(err.code, code);
	if (needle && !strstr(err.message, needle))
		fail_msg("%s: message '%s' lacks '%s'", path, err.message, needle);
	assert_int_equal(dropped, 42);
	assert_int_equal(orrery_cluster_version(c), v);
	assert_int_equal(orrery_cluster_epoch_us(c), 111);
	assert_int_equal(orrery_cluster_job_count(c), 1);
	assert_int_equal(orrery_cluster_job_id(c, 0), 5);
	assert_non_null(orrery_cluster_job_profile(c, 5));
	orrery_cluster_free(c);
}

static void test_bad_files(void **state)
{
	expect_bad(STATE_DATA_DIR "/empty.state", ORRERY_ECORRUPT, "empty");
	expect_bad(STATE_DATA_DIR "/garbage.state", ORRERY_ECORRUPT, "not an orrery state file");
	expect_bad(STATE_DATA_DIR "/truncated.state", ORRERY_ECORRUPT, "truncated");
	expect_bad(STATE_DATA_DIR "/flipped-byte.state", ORRERY_ECORRUPT, "checksum");
	expect_bad(STATE_DATA_DIR "/foreign-version.state", ORRERY_EVERSION, "version 2");
	expect_bad(STATE_DATA_DIR "/bad-line.state", ORRERY_ECORRUPT, "line 4");
	expect_bad(STATE_DATA_DIR "/bad-profile.state", ORRERY_ECORRUPT, "line 4");
	expect_bad(STATE_DATA_DIR "/count-mismatch.state", ORRERY_ECORRUPT, "3 jobs");
	expect_bad(STATE_DATA_DIR "/no-such-file.state", ORRERY_ENOENT, "no-such-file");
	expect_bad(STATE_DATA_DIR, ORRERY_EIO, "not a regular file");

	/* A FIFO in place of the state file is refused, not waited on:
	 * slurmctld would hang in open() (SIGALRM fails the test instead). */
	char fifo[256];
	snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	expect_bad(fifo, ORRERY_EIO, "not a regular file");
	alarm(0);
	unlink(fifo);
}

/* The whole of a file, malloc()ed to its exact size (no NUL after it). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* orrery_cluster_load_data: the same parser as the file, from a buffer
 * with no NUL after it; errors name the origin; a bad buffer leaves the
 * cluster as it was. */
static void test_load_data(void **state)
{
	orrery_cluster_t *c = make_cluster(), *d = make_cluster();
	orrery_error_t err;
	size_t len, dropped = 99;
	char *buf = slurp(STATE_DATA_DIR "/good.state", &len), *text = NULL;
	uint32_t n[8];
	uint64_t v;

	(void)state;
	if (orrery_cluster_load_data(c, buf, len, "mem", &dropped, &err))
		fail_msg("%s", err.message);
	assert_int_equal(dropped, 0);
	assert_int_equal(orrery_cluster_load(d, STATE_DATA_DIR "/good.state", NULL, &err),
			 ORRERY_OK);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	assert_int_equal(orrery_cluster_epoch_us(c), orrery_cluster_epoch_us(d));
	assert_int_equal(orrery_cluster_job_nodes(c, 7, n, 8), 3);
	assert_int_equal(n[2], 4);

	/* serialise -> load_data gives the same text again */
	assert_int_equal(orrery_cluster_serialise(c, &text, &len, &err), ORRERY_OK);
	assert_int_equal(orrery_cluster_load_data(d, text, len, NULL, NULL, &err),
			 ORRERY_OK);
	{
		char *again = NULL;
		size_t len2 = 0;
		assert_int_equal(orrery_cluster_serialise(d, &again, &len2, &err), ORRERY_OK);
		assert_int_equal(len2, len);
		assert_memory_equal(again, text, len);
		orrery_free(again);
	}

	/* one byte short of the end line's newline: truncated, named "mem" */
	v = orrery_cluster_version(c);
	assert_int_equal(orrery_cluster_load_data(c, text, len - 1, "mem", NULL, &err),
			 ORRERY_ECORRUPT);
	assert_non_null(strstr(err.message, "'mem'"));
	assert_non_null(strstr(err.message, "truncated"));
	assert_int_equal(orrery_cluster_version(c), v);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	/* no origin: "state data" */
	assert_int_equal(orrery_cluster_load_data(c, "", 0, NULL, NULL, &err),
			 ORRERY_ECORRUPT);
	assert_non_null(strstr(err.message, "'state data'"));
	assert_int_equal(orrery_cluster_load_data(c, NULL, 5, NULL, NULL, &err),
			 ORRERY_EINVAL);
	assert_int_equal(orrery_cluster_load_data(NULL, text, len, NULL, NULL, &err),
			 ORRERY_EINVAL);
	assert_int_equal(orrery_cluster_job_count(c), 2);
	orrery_free(text);
	free(buf);
	orrery_cluster_free(c);
	orrery_cluster_free(d);
}

static void test_huge_files(void **state)
{
	char path[256];
	FILE *f;
	/* One line longer than the per-line limit. */
	snprintf(path, sizeof path, "%s/huge-line", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("orrery-state 1\nepoch_us 1\njob 1 shift_us=0 nodes=", f);
	for (int i = 0; i < 5 * 1024 * 1024 / 8; i++)
		fputs("node001,", f);
	fputs("node002 profile=period=100ms;up=0ms+50ms@100Gbps\n", f);
	fclose(f);
	expect_bad(path, ORRERY_ELIMIT, "line 3");
	unlink(path);

	/* Over 64 MiB (sparse: costs no disk). */
	snprintf(path, sizeof path, "%s/oversized", tmpdir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "orrery-state 1\n", 15), 15);
	assert_int_equal(ftruncate(fd, (64 << 20) + 1), 0);
	close(fd);
	expect_bad(path, ORRERY_ELIMIT, "limit");
	unlink(path);
}

static void test_renamed_node(void **state)
{
	orrery_cluster_t *c = make_cluster();
	orrery_error_t err;
	size_t dropped = 0;
	assert_int_equal(orrery_cluster_load(c, STATE_DATA_DIR "/renamed-node.state",
					     &dropped, &err), ORRERY_OK);
	assert_int_equal(dropped, 1);
	assert_int_equal(orrery_cluster_job_count(c), 1);
	assert_int_equal(orrery_cluster_job_id(c, 0), 7);
	orrery_cluster_free(c);
}

static void test_fault_points(void **state)
{
	orrery_cluster_t *c = make_cluster();
	orrery_error_t err;
	orrery_profile_t *p = profile("period=100ms;up=0ms+50ms@100Gbps");
	uint32_t a[] = {0, 1};
	char path[256];
	snprintf(path, sizeof path, "%s/fault", tmpdir);
	setenv("ORRERY_FAULT", "cluster_add,state_save,state_load", 1);
	assert_int_equal(orrery_cluster_add_job(c, 1, a, 2, p, 0, &err), ORRERY_EINTERNAL);
	assert_int_equal(orrery_cluster_save(c, path, &err), ORRERY_EINTERNAL);
	assert_int_equal(orrery_cluster_load(c, STATE_DATA_DIR "/good.state", NULL, &err),
			 ORRERY_EINTERNAL);
	unsetenv("ORRERY_FAULT");
	assert_int_equal(orrery_cluster_job_count(c), 0);
	assert_int_equal(orrery_cluster_add_job(c, 1, a, 2, p, 0, &err), ORRERY_OK);
	orrery_profile_free(p);
	orrery_cluster_free(c);
}

/* ORRERY_FAULT=point:kind throws each kind of exception the C API's
 * barrier (api/guard.hpp) catches; the select plugin's stress test relies
 * on each reaching the caller as an error code and a message. */
static void test_fault_kinds(void **state)
{
	orrery_cluster_t *c = make_cluster();
	orrery_topology_t *t = make_topo(0);
	orrery_cluster_t *c2 = NULL;
	orrery_error_t err;
	orrery_profile_t *p = profile("period=100ms;up=0ms+50ms@100Gbps");
	orrery_profile_t *q = NULL;
	orrery_placement_t *pl = NULL;
	orrery_eval_t *ev = NULL;
	uint8_t free_nodes[16];
	uint32_t a[] = {0, 4};
	(void)state;
	memset(free_nodes, 1, sizeof free_nodes);

	setenv("ORRERY_FAULT", "evaluate,place:exception", 1);
	assert_true(orrery_fault_armed("place"));
	assert_false(orrery_fault_armed("pla"));
	assert_int_equal(orrery_cluster_place(c, free_nodes, 2, p, &pl, &err),
			 ORRERY_EINTERNAL);
	assert_string_equal(err.message, "unexpected exception injected at 'place'");
	assert_int_equal(orrery_cluster_evaluate(c, a, 2, p, &ev, &err), ORRERY_EINTERNAL);
	assert_string_equal(err.message, "fault injected at 'evaluate'");

	setenv("ORRERY_FAULT", "evaluate:bad_alloc,profile_parse:unknown", 1);
	assert_int_equal(orrery_cluster_evaluate(c, a, 2, p, &ev, &err), ORRERY_ENOMEM);
	assert_string_equal(err.message, "out of memory");
	assert_int_equal(orrery_profile_parse("period=100ms;up=0ms+50ms@100Gbps", &q, &err),
			 ORRERY_EINTERNAL);
	assert_string_equal(err.message, "unknown exception");
	assert_null(q);

	setenv("ORRERY_FAULT", "all:bad_alloc", 1);
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_ENOMEM);
	assert_int_equal(orrery_cluster_add_job(c, 1, a, 2, p, 0, &err), ORRERY_ENOMEM);
	unsetenv("ORRERY_FAULT");
	assert_int_equal(orrery_topology_finalize(t, &err), ORRERY_OK);
	setenv("ORRERY_FAULT", "cluster_new", 1);
	assert_int_equal(orrery_cluster_new(t, NULL, &c2, &err), ORRERY_EINTERNAL);
	assert_null(c2);
	unsetenv("ORRERY_FAULT");

	/* Nothing was left half-done: the same calls work unarmed. */
	assert_int_equal(orrery_cluster_job_count(c), 0);
	assert_int_equal(orrery_cluster_place(c, free_nodes, 2, p, &pl, &err), ORRERY_OK);
	assert_true(orrery_placement_count(pl) > 0);
	assert_int_equal(orrery_cluster_evaluate(c, a, 2, p, &ev, &err), ORRERY_OK);
	orrery_eval_free(ev);
	orrery_placement_free(pl);
	orrery_profile_free(p);
	orrery_topology_free(t);
	orrery_cluster_free(c);
}

/* The crossing rule reaches the score: a running /pp2 job on node001-002
 * and node005-006 (stages {001,002} and {005,006}; pairs 001-005 and
 * 002-006 both cross) puts 2 x 30 = 60 Gb/s on the 100 Gb/s uplinks of
 * leaf1 and leaf2 for 80 of every 100 ms.  A 50 Gb/s ring newcomer on
 * node003 + node007 overlaps it for at least 60 ms at any shift: 110 Gb/s,
 * over capacity.  Had the running job been a ring (30 Gb/s), the same
 * newcomer would fit (80 Gb/s): score 1. */
static void test_pipeline_scored(void **state)
{
	uint32_t run[] = {0, 1, 4, 5}, mine[] = {2, 6};
	const char *spec[] = {"period=100ms;up=0ms+80ms@30Gbps/pp2",
			      "period=100ms;up=0ms+80ms@30Gbps"};
	double score[2];
	for (int k = 0; k < 2; k++) {
		orrery_cluster_t *c = make_cluster();
		orrery_profile_t *p = profile("period=100ms;up=0ms+80ms@50Gbps");
		orrery_eval_t *e = NULL;
		orrery_error_t err;
		add_job(c, 1, run, 4, spec[k], 0);
		assert_int_equal(orrery_cluster_evaluate(c, mine, 2, p, &e, &err), ORRERY_OK);
		assert_int_equal(orrery_eval_link_count(e), 2);
		score[k] = orrery_eval_score_min(e);
		orrery_eval_free(e);
		orrery_profile_free(p);
		orrery_cluster_free(c);
	}
	assert_true(score[0] < 0.99);
	assert_true(score[1] > 0.999);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_pipeline_scored),
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_load_data),
		cmocka_unit_test(test_huge_files),
		cmocka_unit_test(test_renamed_node),
		cmocka_unit_test(test_fault_points),
		cmocka_unit_test(test_fault_kinds),
	};
	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
