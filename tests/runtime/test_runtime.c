/*
 * test_runtime.c - liborrery-runtime as a training process sees it.
 *
 * The runtime reads its environment once per process, so every case runs
 * in a forked child with its own environment and stderr captured to a
 * file; the child reports failures through its exit status and the
 * parent asserts on that and on what the child printed or wrote.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate_stats.h"
#include "orrery_runtime.h"

#define MS ((int64_t)1000)
#define E0 1800000000000000LL  /* an epoch, µs */

static char dir[256];
static char err_path[300];

/* In the child: a failed check exits with the line number. */
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "CHECK FAILED line %d: %s\n", __LINE__, #c); fflush(stderr); _exit(100); } } while (0)

static void clear_env(void)
{
	static const char *const v[] = { "ORRERY_PERIOD_US", "ORRERY_EPOCH_US",
		"ORRERY_SHIFT_US", "ORRERY_PHASE_OFFSET_US", "ORRERY_GATE",
		"ORRERY_RUNTIME_STATS", "ORRERY_RUNTIME_VERBOSE", "ORRERY_RECORD",
		"ORRERY_RECORD_MAX_LINES", "SLURM_PROCID", "RANK",
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "ORRERY_CHANNEL", "SLURM_JOB_ID" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(*v); i++)
		unsetenv(v[i]);
}

/* Run body in a child with env "K=V" pairs (NULL-terminated); return its
 * exit status (128 + the signal that killed it); its stderr goes to
 * err_path. */
static int child(void (*body)(void), ...)
{
	va_list ap;
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		const char *kv;

		if (!freopen(err_path, "w", stderr))
			_exit(99);
		clear_env();
		va_start(ap, body);
		while ((kv = va_arg(ap, const char *))) {
			const char *eq = strchr(kv, '=');
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
			setenv(name, eq + 1, 1);
		}
		va_end(ap);
		body();
		exit(0);        /* runs the runtime's atexit handler */
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0) {
		char line[512];
		FILE *f = fopen(err_path, "r");

		while (f && fgets(line, sizeof(line), f))
			fprintf(stderr, "  child: %s", line);
		if (f)
			fclose(f);
	}
	return WEXITSTATUS(st);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The files in d: how many; the paths of the first max in paths. */
#define TEST_PATH 800
static int dir_files(const char *d, char (*paths)[TEST_PATH], int max)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n < max)
			snprintf(paths[n], TEST_PATH, "%s/%s", d, e->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

/* A job's environment for the runtime: its epoch, a statistics directory
 * DIR/SUB made here, and a record prefix DIR/REC (REC may be NULL). */
struct job_env {
	char epoch[64], dir[320], stats[400], record[400];
};

static void job_env(struct job_env *j, const char *sub, const char *rec)
{
	snprintf(j->epoch, sizeof(j->epoch), "ORRERY_EPOCH_US=%lld", E0);
	snprintf(j->dir, sizeof(j->dir), "%s/%s", dir, sub);
	assert_int_equal(mkdir(j->dir, 0700), 0);
	snprintf(j->stats, sizeof(j->stats), "ORRERY_RUNTIME_JOB_STATS=%s", j->dir);
	snprintf(j->record, sizeof(j->record), "ORRERY_RECORD=%s/%s", dir, rec ? rec : "-");
}

/* Every statistics file in d summed into *t, as the epilog sums them;
 * returns how many. */
static int sum_dir(const char *d, struct ogs_totals *t)
{
	char paths[8][TEST_PATH], err[128];
	int n = dir_files(d, paths, 8);

	assert_true(n <= 8);
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n; i++) {
		assert_non_null(slurp(paths[i]));
		assert_int_equal(ogs_stats_add(slurp(paths[i]), t, err, sizeof(err)), 0);
	}
	return n;
}

/* The records in the timelines DIR/REC.*.timeline; *files: how many. */
static int timeline_lines(const char *rec, int *files)
{
	char cmd[400], line[400];
	int lines = 0;
	FILE *p;

	*files = 0;
	snprintf(cmd, sizeof(cmd), "cat %s/%s.*.timeline 2>/dev/null", dir, rec);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strncmp(line, "# orrery-timeline", 17) == 0)
			(*files)++;
		else if (line[0] != '#')
			lines++;
	}
	pclose(p);
	return lines;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/orrery-rt-test.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- no-op */
static void body_noop(void)
{
	orrery_runtime_stats_t s;
	int64_t now = orrery_runtime_now_us();

	CHECK(orrery_runtime_init() == 0);
	CHECK(orrery_runtime_active() == 0);
	CHECK(orrery_runtime_release_at(now + 5) == now + 5);
	CHECK(orrery_runtime_wait_for_slot() == 0);
	CHECK(orrery_runtime_record(1, 2, 3, "c", "allreduce") == 0);
	orrery_runtime_stats(&s);
	CHECK(s.active == 0 && s.phases == 0 && s.period_us == 0);
	CHECK(orrery_runtime_finish() == 0);
}

static void noop_without_env(void **state)
{
	assert_int_equal(child(body_noop, NULL), 0);
	/* silent unless asked */
	assert_string_equal(slurp(err_path), "");
	assert_int_equal(child(body_noop, "ORRERY_RUNTIME_VERBOSE=1", NULL), 0);
	assert_non_null(strstr(slurp(err_path), "not gating: no ORRERY_PERIOD_US"));
}

/* Each bad environment: a no-op runtime and a line naming the problem. */
static void noop_on_bad_env(void **state)
{
	static const struct {
		const char *a, *b, *c, *d, *needle;
	} bad[] = {
		{ "ORRERY_PERIOD_US=abc", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=0", "ORRERY_GATE=on", "ORRERY_PERIOD_US='abc'" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=100000", "ORRERY_GATE=on", "shift must be in [0, period)" },
		{ "ORRERY_PERIOD_US=10", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=0", "ORRERY_GATE=on", "period out of range" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=5", "ORRERY_GATE=off", "ORRERY_GATE=off" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=5", "ORRERY_GATE=yes", "neither on nor off" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_SHIFT_US=5", "ORRERY_GATE=on", "ORRERY_GATE=on", "ORRERY_EPOCH_US not set" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=-5", "ORRERY_GATE=on", "ORRERY_SHIFT_US='-5'" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=5", "ORRERY_PHASE_OFFSET_US=100000", "ORRERY_PHASE_OFFSET_US=100000 is not below" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=99999999999999999999", "ORRERY_SHIFT_US=5", "ORRERY_GATE=on", "ORRERY_EPOCH_US=" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=5", "ORRERY_GATE_MARGIN_PPM=300000", "ORRERY_GATE_MARGIN_PPM=300000 is above 200000" },
		{ "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=0", "ORRERY_SHIFT_US=5", "ORRERY_GATE_MARGIN_PPM=1%", "ORRERY_GATE_MARGIN_PPM='1%'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *out;

		assert_int_equal(child(body_noop, bad[i].a, bad[i].b, bad[i].c, bad[i].d,
				       "ORRERY_RUNTIME_VERBOSE=1", NULL), 0);
		out = slurp(err_path);
		if (!strstr(out, bad[i].needle) || !strstr(out, "orrery-runtime: not gating"))
			fail_msg("case %zu: stderr '%s' lacks '%s'", i, out, bad[i].needle);
	}
}

/* ---------------------------------------------------------------- gating */

/* period 100 ms, shift 30 ms, phase offset 20 ms: slots at E0 + 50 ms + k*100 ms */
static void body_decisions(void)
{
	orrery_runtime_stats_t s;

	CHECK(orrery_runtime_init() == 1);
	CHECK(orrery_runtime_release_at(E0 + 10 * MS) == E0 + 50 * MS);
	/* 5 ms past the 150 ms slot: within the 10 ms tolerance, at once */
	CHECK(orrery_runtime_release_at(E0 + 155 * MS) == E0 + 155 * MS);
	/* 30 ms past the 250 ms slot: missed, wait for 350 ms */
	CHECK(orrery_runtime_release_at(E0 + 280 * MS) == E0 + 350 * MS);
	/* a second phase in the period whose slot is used: next one */
	CHECK(orrery_runtime_release_at(E0 + 360 * MS) == E0 + 450 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.active == 1);
	CHECK(s.period_us == 100 * MS);
	CHECK(s.slot_base_us == E0 + 50 * MS);
	CHECK(s.phases == 4 && s.on_slot == 2 && s.late == 1 && s.missed == 1);
	CHECK(s.total_wait_us == 40 * MS + 70 * MS + 90 * MS);
	CHECK(s.max_wait_us == 90 * MS);
	CHECK(s.total_late_us == 5 * MS);
}

static void gate_decisions(void **state)
{
	char e[64];

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", E0);
	assert_int_equal(child(body_decisions, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=30000", "ORRERY_PHASE_OFFSET_US=20000",
			       NULL), 0);
	/* ORRERY_GATE=on is the default spelled out */
	assert_int_equal(child(body_decisions, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=30000", "ORRERY_PHASE_OFFSET_US=20000",
			       "ORRERY_GATE=on", NULL), 0);
}

/* The same job with the site's 10 % margin (gate_margin=10): its first
 * Up phase's slot (shift + offset, 50 ms) and the period stretched about
 * the epoch: slots at E0 + 55 ms + k * 110 ms, tolerance 11 ms. */
static void body_margin(void)
{
	orrery_runtime_stats_t s;

	CHECK(orrery_runtime_init() == 1);
	CHECK(orrery_runtime_release_at(E0 + 10 * MS) == E0 + 55 * MS);
	/* 10 ms past the 165 ms slot: within 11 ms, at once */
	CHECK(orrery_runtime_release_at(E0 + 175 * MS) == E0 + 175 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.active == 1);
	CHECK(s.period_us == 100 * MS && s.period_now_us == 110 * MS);
	CHECK(s.slot_base_us == E0 + 55 * MS);
	CHECK(s.on_slot == 1 && s.late == 1 && s.missed == 0);
}

static void gate_margin(void **state)
{
	char e[64];

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", E0);
	assert_int_equal(child(body_margin, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=30000", "ORRERY_PHASE_OFFSET_US=20000",
			       "ORRERY_GATE_MARGIN_PPM=100000", NULL), 0);
}

/* The real clock: wait_for_slot never releases before the slot, and
 * releases within one period of being asked. */
static void body_wait(void)
{
	int64_t period = 20 * MS, base = atoll(getenv("ORRERY_EPOCH_US")) + 7 * MS;
	int i;

	CHECK(orrery_runtime_init() == 1);
	for (i = 0; i < 5; i++) {
		int64_t before = orrery_runtime_now_us(), waited, after, k, slot;

		waited = orrery_runtime_wait_for_slot();
		after = orrery_runtime_now_us();
		/* the slot the gate chose: the last one at or before "after" */
		k = (after - base) / period;
		slot = base + k * period;
		CHECK(waited >= 0);
		CHECK(slot >= before - period / 10);   /* never an old slot */
		CHECK(after >= slot);                  /* never before it */
		CHECK(waited <= period + 50 * MS);
		usleep(3000);
	}
}

static void wait_for_slot_real_clock(void **state)
{
	char e[64];

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", (long long)orrery_runtime_now_us());
	assert_int_equal(child(body_wait, "ORRERY_PERIOD_US=20000", e,
			       "ORRERY_SHIFT_US=7000", NULL), 0);
}

/* ---------------------------------------------------------------- threads */
static void *thread_phases(void *arg)
{
	int64_t t0 = *(int64_t *)arg;
	int i;

	for (i = 0; i < 1000; i++)
		orrery_runtime_release_at(t0 + i);
	return NULL;
}

static void body_threads(void)
{
	pthread_t th[4];
	orrery_runtime_stats_t s;
	int64_t t0 = E0;
	int i;

	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, thread_phases, &t0) == 0);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	orrery_runtime_stats(&s);
	CHECK(s.phases == 4000);
	CHECK(s.on_slot + s.late + s.missed + s.passthrough == 4000);
}

static void threads_share_one_gate(void **state)
{
	char e[64];

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", E0);
	assert_int_equal(child(body_threads, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=0", NULL), 0);
}

/* ---------------------------------------------------------------- stats file */
static void body_two_phases(void)
{
	CHECK(orrery_runtime_init() == 1);
	orrery_runtime_release_at(E0 + 10 * MS);
	orrery_runtime_release_at(E0 + 110 * MS);
	/* a caller's phase rule: counting, one stall passed, one period
	 * gated short, a re-lock, an unknown event (ignored) */
	orrery_runtime_phase_event(ORRERY_RUNTIME_PHASES_COUNTED);
	orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_STALL);
	orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_SHORT);
	orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_RELOCK);
	orrery_runtime_phase_event(77);
	/* no finish(): the atexit handler writes the file */
}

static void stats_file_at_exit(void **state)
{
	char e[64], path[400], want[400];
	const char *s;

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", E0);
	snprintf(path, sizeof(path), "ORRERY_RUNTIME_STATS=%s/stats.%%r", dir);
	assert_int_equal(child(body_two_phases, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=30000", path, "SLURM_PROCID=3",
			       "ORRERY_RUNTIME_VERBOSE=1", NULL), 0);
	snprintf(want, sizeof(want), "%s/stats.3", dir);
	s = slurp(want);
	assert_non_null(s);
	assert_non_null(strstr(s, "# orrery-runtime stats 1\n"));
	assert_non_null(strstr(s, "\nrank=3\n"));
	assert_non_null(strstr(s, "\nactive=1\n"));
	assert_non_null(strstr(s, "\nphases=2\n"));
	assert_non_null(strstr(s, "\non_slot=2\n"));
	assert_non_null(strstr(s, "\ntotal_wait_us=40000\n"));
	assert_non_null(strstr(s, "\nperiod_us=100000\n"));
	assert_non_null(strstr(s, "\nbursts_counted=on\nstalls_passed=1\nshort_periods=1\nrelocked=1\n"));
	/* the summary line */
	assert_non_null(strstr(slurp(err_path), "rank 3: 2 phases: 2 on slot"));
	/* no temporary file left beside it */
	snprintf(want, sizeof(want), "ls %s | grep -q tmp", dir);
	assert_int_not_equal(system(want), 0);
}

/* Nine phases on a 100 ms grid, each 92 ms of work plus a varying part
 * after the release before it (a neighbour's traffic): the first eight
 * works complete the gate's first window, and the file says its
 * shortest (min_work_us=, what orrery-sacct's Iteration comes from) and
 * its longest minus shortest (range_us=, IterRange): 113 - 95 ms. */
static void body_window(void)
{
	static const int extra[8] = { 9, 4, 3, 12, 7, 5, 21, 6 };
	int64_t rel;

	CHECK(orrery_runtime_init() == 1);
	rel = orrery_runtime_release_at(E0 + 10 * MS);
	for (int i = 0; i < 8; i++)
		rel = orrery_runtime_release_at(rel + (92 + extra[i]) * MS);
}

static void stats_file_min_work(void **state)
{
	char e[64], path[400], want[400];
	const char *s;

	snprintf(e, sizeof(e), "ORRERY_EPOCH_US=%lld", E0);
	snprintf(path, sizeof(path), "ORRERY_RUNTIME_STATS=%s/win.stats", dir);
	assert_int_equal(child(body_window, "ORRERY_PERIOD_US=100000", e,
			       "ORRERY_SHIFT_US=0", path, NULL), 0);
	snprintf(want, sizeof(want), "%s/win.stats", dir);
	s = slurp(want);
	assert_non_null(s);
	assert_non_null(strstr(s, "\nphases=9\n"));
	assert_non_null(strstr(s, "\nmin_work_us=95000\n"));
	assert_non_null(strstr(s, "\nrange_us=18000\n"));
}

/* ORRERY_RUNTIME_JOB_STATS (spank-orrery(8), gate_stats=1): a second copy,
 * HOST.PID.stats in the job's directory, beside the user's own file, and
 * the epilog's reader takes it. */
static void job_stats_copy_at_exit(void **state)
{
	struct job_env j;
	char path[400], own[400], file[1][TEST_PATH];
	char *text;
	struct ogs_totals t;

	job_env(&j, "job", NULL);
	snprintf(path, sizeof(path), "ORRERY_RUNTIME_STATS=%s/own.stats", dir);
	assert_int_equal(child(body_two_phases, "ORRERY_PERIOD_US=100000", j.epoch,
			       "ORRERY_SHIFT_US=30000", path, j.stats, "SLURM_PROCID=1",
			       "SLURM_STEP_ID=7", NULL), 0);
	/* exactly one file, named HOST.STEP.PID.stats, nothing temporary */
	assert_int_equal(dir_files(j.dir, file, 1), 1);
	assert_non_null(strstr(file[0] + strlen(j.dir), ".7."));
	assert_string_equal(file[0] + strlen(file[0]) - 6, ".stats");
	snprintf(own, sizeof(own), "%s/own.stats", dir);
	assert_non_null(slurp(own));
	assert_non_null(slurp(file[0]));
	text = strdup(slurp(file[0]));
	assert_string_equal(text, slurp(own));	/* the same statistics */
	free(text);
	assert_int_equal(sum_dir(j.dir, &t), 1);
	assert_int_equal(t.tasks, 1);
	assert_int_equal(t.gated, 1);
	assert_int_equal(t.phases, 2);
	assert_int_equal(t.on_slot, 2);
	assert_int_equal(t.wait_us, 40000);
	assert_int_equal(t.relocked, 1);
	/* a relative directory: refused, said, the user's own file still written */
	snprintf(path, sizeof(path), "ORRERY_RUNTIME_STATS=%s/own2.stats", dir);
	assert_int_equal(child(body_two_phases, "ORRERY_PERIOD_US=100000", j.epoch,
			       "ORRERY_SHIFT_US=30000", path,
			       "ORRERY_RUNTIME_JOB_STATS=job", "ORRERY_RUNTIME_VERBOSE=1",
			       NULL), 0);
	assert_non_null(strstr(slurp(err_path), "ORRERY_RUNTIME_JOB_STATS='job': not an absolute path"));
	snprintf(path, sizeof(path), "%s/own2.stats", dir);
	assert_non_null(slurp(path));
}

/* fork() without exec: the child counts from the fork.  The parent had
 * two phases and two collectives; a child with one phase and one
 * collective writes only those, under its pid; a child that does nothing
 * writes no file; the parent's own files hold its phases and lines once. */
static void body_fork(void)
{
	pid_t pid;
	int st;

	CHECK(orrery_runtime_init() == 1);
	orrery_runtime_release_at(E0 + 100 * MS);	/* on slots: no wait */
	orrery_runtime_release_at(E0 + 200 * MS);
	CHECK(orrery_runtime_record(100, 200, 4096, "p", "allreduce") == 1);
	CHECK(orrery_runtime_record(300, 400, 4096, "p", "allreduce") == 1);
	orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_STALL);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		orrery_runtime_stats_t s;

		orrery_runtime_stats(&s);
		if (s.phases != 0 || s.recorded != 0)
			_exit(101);
		orrery_runtime_release_at(E0 + 290 * MS);	/* waits 10 ms */
		orrery_runtime_record(500, 600, 8, "c", "send");
		exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	pid = fork();
	if (pid == 0)
		exit(0);	/* did nothing: writes nothing */
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0);
	orrery_runtime_release_at(E0 + 400 * MS);	/* the parent's third */
}

static void fork_child_counts_its_own(void **state)
{
	struct job_env j;
	struct ogs_totals t;
	int timelines;

	char user[400], path[TEST_PATH];

	job_env(&j, "forkjob", "fk");
	/* the user's file too, one per pid (%p): the child's is its own */
	snprintf(user, sizeof(user), "ORRERY_RUNTIME_STATS=%s/forkuser/%%p.stats", dir);
	snprintf(path, sizeof(path), "%s/forkuser", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(child(body_fork, "ORRERY_PERIOD_US=100000", j.epoch,
			       "ORRERY_SHIFT_US=0", j.stats, j.record, "SLURM_STEP_ID=0",
			       user, NULL), 0);
	assert_int_equal(sum_dir(path, &t), 2);
	assert_int_equal(t.phases, 4);
	/* two statistics files (parent, first child), summed as the epilog does */
	assert_int_equal(sum_dir(j.dir, &t), 2);
	assert_int_equal(t.tasks, 2);
	assert_int_equal(t.phases, 4);		/* 3 + 1, not 3 + 3 */
	assert_int_equal(t.on_slot, 4);
	assert_int_equal(t.wait_us, 10 * MS);	/* only the child waited */
	/* two timelines; the parent's two lines are in one of them, once */
	assert_int_equal(timeline_lines("fk", &timelines), 3);
	assert_int_equal(timelines, 2);
}

/* In a child: wait up to 10 s for a shell test to pass (what the
 * runtime's writer thread writes after a phase hands it over). */
static void child_wait_for(const char *cmd)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (system(cmd) == 0)
			return;
		usleep(10000);
	}
	CHECK(!"written within 10 s");
}

/* Killed (scancel, the time limit): no atexit.  The statistics are
 * rewritten and the timeline's buffer appended from the phases and the
 * collectives, 2 s after the first and then at most every 2 s of the
 * caller's clock, so the job's directory holds what the process had done up to
 * the last write: phases 1-4 of 5, collectives 1-3 of 5 (the phase at
 * 2.2 s handed over what came before it; what came after is lost).  The
 * writer thread writes it just after that phase: the process is killed
 * once it has.  A process that is not gating writes its file (active=0)
 * when it starts. */
static void body_killed(void)
{
	static const int64_t at[] = { 10, 110, 1000, 2200, 2300 };
	char cmd[1200];
	size_t i;

	CHECK(orrery_runtime_init() == 1);
	for (i = 0; i < sizeof(at) / sizeof(*at); i++) {
		int64_t t = E0 + at[i] * MS;

		orrery_runtime_release_at(t);	/* at 2200 ms: written */
		CHECK(orrery_runtime_record(t, t + MS, 4096, "k", "allreduce") == 1);
	}
	snprintf(cmd, sizeof(cmd), "grep -qsx phases=4 %s/*.stats && test \"$(grep -hvc '^#' %s.*.timeline)\" = 3",
		 getenv("ORRERY_RUNTIME_JOB_STATS"), getenv("ORRERY_RECORD"));
	child_wait_for(cmd);
	raise(SIGKILL);
}

/* A statistics file on a file system that stalls (NFS): the temporary
 * file the rewrite opens is a FIFO with no reader, so opening it blocks
 * until one comes.  The phases go on being released at once meanwhile
 * (the write is the writer thread's); once the FIFO is read, the writer
 * has written the 21 phases it was handed at 2.01 s, and the next phase
 * hands it the newest, which the process leaves when it is killed. */
static void body_stalled(void)
{
	const char *path = getenv("ORRERY_RUNTIME_STATS");
	char fifo[600], got[4096] = "";
	size_t n = 0;
	int fd, i, polls;

	alarm(30);	/* before the writer thread: a phase blocked here fails */
	snprintf(fifo, sizeof(fifo), "%s.tmp.%ld", path, (long)getpid());
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(orrery_runtime_init() == 1);
	for (i = 0; i <= 50; i++) {	/* 10 ms .. 5.01 s: writes due at 2.01, 4.01 */
		int64_t w0 = orrery_runtime_now_us();

		orrery_runtime_release_at(E0 + (10 + 100 * i) * MS);
		CHECK(orrery_runtime_now_us() - w0 < 1000000);
	}
	fd = open(fifo, O_RDONLY | O_NONBLOCK);	/* the stalled open returns */
	CHECK(fd >= 0);
	for (polls = 0; polls < 1000 && !strstr(got, "\nrelocked="); polls++) {
		ssize_t r;

		got[n] = '\0';
		r = read(fd, got + n, sizeof(got) - 1 - n);
		if (r > 0)
			n += (size_t)r;
		else
			usleep(10000);
		got[n] = '\0';
	}
	close(fd);
	CHECK(strstr(got, "\nphases=21\n"));
	/* The writer was busy at 4.01 s: the phase after it is done hands
	 * over (52 phases then, or more if the writer is slow to finish). */
	for (i = 51; i < 1051; i++) {	/* up to 10 s of wall time */
		struct stat st;
		const char *now;

		orrery_runtime_release_at(E0 + (10 + 100 * i) * MS);
		usleep(10000);
		now = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? slurp(path) : NULL;
		if (now && strstr(now, "\nphases=") && atoi(strstr(now, "\nphases=") + 8) >= 52)
			break;
	}
	CHECK(i < 1051);
	raise(SIGKILL);
}

static void stalled_file_system_releases_on_time(void **state)
{
	char env[400];

	snprintf(env, sizeof(env), "ORRERY_RUNTIME_STATS=%s/stalled.stats", dir);
	assert_int_equal(child(body_stalled, "ORRERY_PERIOD_US=100000",
			       "ORRERY_EPOCH_US=1800000000000000", "ORRERY_SHIFT_US=0",
			       env, NULL), 128 + SIGKILL);
}

static void body_noop_killed(void)
{
	CHECK(orrery_runtime_init() == 0);
	orrery_runtime_release_at(E0 + 10 * MS);
	raise(SIGKILL);
}

static void stats_rewritten_while_running(void **state)
{
	struct job_env j;
	struct ogs_totals t;
	char file[1][TEST_PATH];
	int timelines;

	job_env(&j, "killed", "kt");
	assert_int_equal(child(body_killed, "ORRERY_PERIOD_US=100000", j.epoch,
			       "ORRERY_SHIFT_US=0", j.stats, j.record, "SLURM_STEP_ID=0",
			       NULL), 128 + SIGKILL);
	assert_int_equal(sum_dir(j.dir, &t), 1);
	assert_int_equal(t.tasks, 1);
	assert_int_equal(t.gated, 1);
	assert_int_equal(t.phases, 4);
	assert_int_equal(timeline_lines("kt", &timelines), 3);
	assert_int_equal(timelines, 1);
	/* not gating (ORRERY_GATE=off): its file from the start */
	assert_int_equal(dir_files(j.dir, file, 1), 1);
	assert_int_not_equal(unlink(file[0]), -1);
	assert_int_equal(child(body_noop_killed, j.stats, "ORRERY_GATE=off",
			       "SLURM_STEP_ID=0", NULL), 128 + SIGKILL);
	assert_int_equal(dir_files(j.dir, file, 1), 1);
	assert_non_null(strstr(slurp(file[0]), "\nactive=0\nreason=ORRERY_GATE=off\n"));
	assert_int_equal(sum_dir(j.dir, &t), 1);
	assert_int_equal(t.tasks, 1);
	assert_int_equal(t.gated, 0);
}

static void stats_file_noop_says_why(void **state)
{
	char path[400], want[400];
	const char *s;

	snprintf(path, sizeof(path), "ORRERY_RUNTIME_STATS=%s/noop.stats", dir);
	assert_int_equal(child(body_noop, path, "ORRERY_GATE=off", NULL), 0);
	snprintf(want, sizeof(want), "%s/noop.stats", dir);
	s = slurp(want);
	assert_non_null(s);
	assert_non_null(strstr(s, "\nactive=0\nreason=ORRERY_GATE=off\n"));
	assert_non_null(strstr(s, "\nbursts_counted=none\n"));
}

/* ---------------------------------------------------------------- record */
static void body_record(void)
{
	orrery_runtime_stats_t s;

	CHECK(orrery_runtime_set_source("fake") == 0);
	CHECK(orrery_runtime_set_source("bad source") == -1);
	CHECK(orrery_runtime_recording() == 1);
	CHECK(orrery_runtime_record(100, 200, 4096, "comm 0", "allreduce") == 1);
	CHECK(orrery_runtime_record(300, 450, 8, "c1", "send") == 1);
	CHECK(orrery_runtime_record(300, 250, 8, "c1", "send") == -1);  /* ends before start */
	CHECK(orrery_runtime_record(300, 350, 8, "c1", "gather") == -1); /* unknown op */
	CHECK(orrery_runtime_record(500, 600, 1, NULL, "recv") == 1);
	CHECK(orrery_runtime_record(700, 800, 1, "c", "alltoall") == 0); /* over the limit */
	orrery_runtime_stats(&s);
	CHECK(s.recorded == 3 && s.record_dropped == 1);
	CHECK(orrery_runtime_finish() == 0);
}

static void record_mode_timeline(void **state)
{
	char prefix[400], cmd[600], path[600];
	const char *s;
	FILE *p;

	snprintf(prefix, sizeof(prefix), "ORRERY_RECORD=%s/tl", dir);
	assert_int_equal(child(body_record, prefix, "ORRERY_RECORD_MAX_LINES=3",
			       "RANK=5", NULL), 0);
	snprintf(cmd, sizeof(cmd), "ls %s/tl.*.timeline", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(path, sizeof(path), p));
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	s = slurp(path);
	assert_non_null(s);
	assert_non_null(strstr(s, "# orrery-timeline 1\n# host="));
	assert_non_null(strstr(s, " rank=5 source=fake\n"));
	assert_non_null(strstr(s, "\n100 200 4096 comm_0 allreduce\n300 450 8 c1 send\n500 600 1 - recv\n# dropped 1"));
}

/* -------------------------------------------------------------- channel */
/* The live channel's file, as the node's poller writes it: text under a
 * temporary name, then renamed (mode as given). */
static char chan_path[320];

static void chan_write_pub(uint32_t job, uint64_t gen, int gate, int64_t period,
			   int64_t shift, int64_t apply, int64_t pub, mode_t mode)
{
	char tmp[340];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", chan_path);
	f = fopen(tmp, "w");
	CHECK(f);
	fprintf(f, "job_id=%u\ngen=%" PRIu64 "\ngate=%s\nperiod_us=%" PRId64 "\nshift_us=%" PRId64
		"\nepoch_us=1000000\napply_us=%" PRId64 "\npub_us=%" PRId64 "\nmode=%s\n",
		job, gen, gate ? "on" : "off", period, shift, apply, pub,
		gate ? "divide" : "alone");
	CHECK(fclose(f) == 0);
	CHECK(chmod(tmp, mode) == 0);
	CHECK(rename(tmp, chan_path) == 0);
}

/* A record published channel_lead_ms (2 s) ahead of its apply-at time. */
static void chan_write(uint32_t job, uint64_t gen, int gate, int64_t period,
		       int64_t shift, int64_t apply, mode_t mode)
{
	chan_write_pub(job, gen, gate, period, shift, apply, apply - 2000 * MS, mode);
}

static void body_channel(void)
{
	const int64_t T = 5000000 * MS;	/* on the 100 ms grid of epoch 1 s */
	orrery_runtime_stats_t s;
	int64_t r;

	CHECK(orrery_runtime_init() == 1);
	r = orrery_runtime_release_at(T + 20 * MS);	/* no file yet */
	CHECK(r == T + 100 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.channel_gate == 1 && s.updates_received == 0);

	/* gen 2: gate off from T+1 s.  Read, held until then. */
	chan_write(77, 2, 0, 0, 0, T + 1000 * MS, 0644);
	r = orrery_runtime_release_at(T + 320 * MS);
	CHECK(r == T + 400 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.updates_received == 1 && s.updates_applied == 0);
	/* First boundary at or after apply_us: switched, released at once. */
	r = orrery_runtime_release_at(T + 1020 * MS);
	CHECK(r == T + 1020 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.updates_applied == 1 && s.channel_gate == 0 && s.channel_gen == 2);
	CHECK(s.late_switches == 0 && s.last_apply_us == T + 1020 * MS);

	/* An older generation, another job's record, a file others may
	 * write: all ignored, the gate stays off. */
	chan_write(77, 1, 1, 100 * MS, 0, T, 0644);
	CHECK(orrery_runtime_release_at(T + 1310 * MS) == T + 1310 * MS);
	chan_write(78, 5, 1, 100 * MS, 0, T, 0644);
	CHECK(orrery_runtime_release_at(T + 1610 * MS) == T + 1610 * MS);
	chan_write(77, 6, 1, 100 * MS, 0, T, 0666);
	CHECK(orrery_runtime_release_at(T + 1910 * MS) == T + 1910 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.updates_received == 1 && s.channel_gen == 2 && s.channel_gate == 0);

	/* gen 3, read after its apply-at time: switched at once, counted late;
	 * the new gate: 150 ms period, slot 50 ms. */
	chan_write(77, 3, 1, 150 * MS, 50 * MS, T + 1500 * MS, 0644);
	r = orrery_runtime_release_at(T + 2220 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.updates_received == 2 && s.updates_applied == 2 && s.late_switches == 1);
	CHECK(s.channel_gate == 1 && s.channel_gen == 3 && s.period_us == 150 * MS);
	/* slots at 1.05 s + k * 150 ms: T + 2.2 s is 20 ms back (over the
	 * 15 ms tolerance), the next is T + 2.35 s */
	CHECK(r == T + 2350 * MS);
}

/* A newcomer alone: its gen 1 turns the launch gate off with no lead
 * (apply_us = pub_us, both before the first iteration).  Its first phase
 * is released at once, and the switch is not late. */
static void body_channel_at_launch(void)
{
	const int64_t T = 5000000 * MS;
	orrery_runtime_stats_t s;

	chan_write_pub(77, 1, 0, 0, 0, T - 500 * MS, T - 500 * MS, 0644);
	CHECK(orrery_runtime_init() == 1);
	CHECK(orrery_runtime_release_at(T + 20 * MS) == T + 20 * MS);
	orrery_runtime_stats(&s);
	CHECK(s.updates_applied == 1 && s.channel_gate == 0 && s.channel_gen == 1);
	CHECK(s.late_switches == 0 && s.last_apply_us == T + 20 * MS);
	CHECK(s.phases == 1 && s.passthrough == 1);
}

/* BODY in a child process, root only (the runtime accepts only
 * root-owned channel files), gated on a 100 ms grid of epoch 1 s, job 77,
 * with its channel file in the test directory; 0 when BODY passed. */
static int channel_child(void (*body)(void))
{
	char env_chan[400];

	snprintf(chan_path, sizeof(chan_path), "%s/77.channel", dir);
	snprintf(env_chan, sizeof(env_chan), "ORRERY_CHANNEL=%s", chan_path);
	return child(body, "ORRERY_PERIOD_US=100000", "ORRERY_EPOCH_US=1000000",
		     "ORRERY_SHIFT_US=0", "SLURM_JOB_ID=77", env_chan,
		     "ORRERY_RUNTIME_VERBOSE=1", NULL);
}

static void channel_off_at_launch(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(channel_child(body_channel_at_launch), 0);
	assert_null(strstr(slurp(err_path), "(late: read after it)"));
	unlink(chan_path);
}

static void channel_updates(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(channel_child(body_channel), 0);
	assert_non_null(strstr(slurp(err_path), "channel gen 3 applied"));
	assert_non_null(strstr(slurp(err_path), "(late: read after it)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(noop_without_env),
		cmocka_unit_test(noop_on_bad_env),
		cmocka_unit_test(gate_decisions),
		cmocka_unit_test(gate_margin),
		cmocka_unit_test(wait_for_slot_real_clock),
		cmocka_unit_test(threads_share_one_gate),
		cmocka_unit_test(stats_file_at_exit),
		cmocka_unit_test(stats_file_min_work),
		cmocka_unit_test(stats_file_noop_says_why),
		cmocka_unit_test(job_stats_copy_at_exit),
		cmocka_unit_test(fork_child_counts_its_own),
		cmocka_unit_test(stats_rewritten_while_running),
		cmocka_unit_test(stalled_file_system_releases_on_time),
		cmocka_unit_test(record_mode_timeline),
		cmocka_unit_test(channel_updates),
		cmocka_unit_test(channel_off_at_launch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
