/*
 * test_spank.c - the SPANK plugin's pure parts, without Slurm: strict
 * plugstack arguments, profile validation, and the relay file (what root
 * writes in the prolog and each step reads back).  Slurm's logging and
 * option calls are stubbed; the last error line is captured so tests
 * assert on what an admin would read.
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
#include <unistd.h>

#include <orrery.h>

#include "plugins/spank/orrery_spank.h"

/* ---------------------------------------------------------------- stubs */
static char last_error[2048];

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
}
void slurm_verbose(const char *fmt, ...) { (void)fmt; }
void slurm_info(const char *fmt, ...) { (void)fmt; }
spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	return ESPANK_SUCCESS;
}
spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **val)
{
	return ESPANK_ERROR;
}
const char *spank_strerror(spank_err_t err) { return "stub"; }

static int parse(const char *line)
{
	char buf[1024], *av[16], *save = NULL, *t;
	int ac = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (t = strtok_r(buf, " ", &save); t && ac < 16; t = strtok_r(NULL, " ", &save))
		av[ac++] = t;
	last_error[0] = '\0';
	osp_args_free(&osp_conf);
	return osp_args_parse(ac, av, &osp_conf);
}

/* ---------------------------------------------------------------- args */
static void args_defaults(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_string_equal(osp_conf.runtime_dir, "/run/orrery");
	assert_null(osp_conf.default_profile);
	assert_int_equal(osp_conf.require_profile, 0);
	assert_int_equal(osp_conf.verbose, 0);
	assert_int_equal(osp_conf.test_controller, 0);
	/* NCCL gating is off unless the admin or the user asks */
	assert_int_equal(osp_conf.comm_gate, 0);
	assert_string_equal(osp_conf.gate_library, "/usr/lib/orrery/liborrery-nccl.so");
}

static void args_gate(void **state)
{
	assert_int_equal(parse("comm_gate=auto gate_library=/opt/orrery/lib/liborrery-nccl.so"), 0);
	assert_int_equal(osp_conf.comm_gate, 1);
	assert_string_equal(osp_conf.gate_library, "/opt/orrery/lib/liborrery-nccl.so");
	assert_int_equal(parse("comm_gate=off"), 0);
	assert_int_equal(osp_conf.comm_gate, 0);
}

static void args_all_keys(void **state)
{
	assert_int_equal(parse("runtime_dir=/var/run/o/%n verbose=1 require_profile=yes"), 0);
	assert_string_equal(osp_conf.runtime_dir, "/var/run/o/%n");
	assert_int_equal(osp_conf.verbose, 1);
	assert_int_equal(osp_conf.require_profile, 1);
}

/* gate_margin=PERCENT, in ppm for the tasks' ORRERY_GATE_MARGIN_PPM. */
static void args_gate_margin(void **state)
{
	assert_int_equal(parse(""), 0);
	assert_int_equal(osp_conf.gate_margin_ppm, 0);
	assert_int_equal(parse("gate_margin=1"), 0);
	assert_int_equal(osp_conf.gate_margin_ppm, 10000);
	assert_int_equal(parse("gate_margin=0.5"), 0);
	assert_int_equal(osp_conf.gate_margin_ppm, 5000);
	assert_int_equal(parse("gate_margin=2.25"), 0);
	assert_int_equal(osp_conf.gate_margin_ppm, 22500);
	assert_int_equal(parse("gate_margin=20"), 0);
	assert_int_equal(osp_conf.gate_margin_ppm, 200000);
}

static void args_default_profile_is_canonical(void **state)
{
	orrery_profile_t *p = NULL;
	char *canon;

	assert_int_equal(parse("default_profile=period=250ms;up=0ms+80ms@45Gbps"), 0);
	assert_int_equal(orrery_profile_parse("period=250ms;up=0ms+80ms@45Gbps", &p, NULL), ORRERY_OK);
	canon = orrery_profile_canonical(p);
	assert_string_equal(osp_conf.default_profile, canon);
	orrery_free(canon);
	orrery_profile_free(p);
}

static void args_rejected(void **state)
{
	static const struct {
		const char *line, *needle;
	} bad[] = {
		{ "colour=blue", "unknown plugstack argument 'colour'" },
		{ "verbose", "expected key=value" },
		{ "=1", "expected key=value" },
		{ "verbose=2", "verbose=2" },
		{ "require_profile=true", "require_profile=true" },
		{ "runtime_dir=run/orrery", "absolute path" },
		{ "runtime_dir=/run/%u", "only %n" },
		{ "default_profile=period=0ms;up=0ms+1ms@1Gbps", "default_profile" },
		{ "default_profile=@/etc/shadow", "profile file" },
		{ "default_profile=resnet50 require_profile=1", "contradict" },
		{ "verbose=1 Verbose=1", "'Verbose'" },
		{ "comm_gate=on", "comm_gate=on: accepted values are auto and off" },
		{ "comm_gate=", "comm_gate=" },
		{ "gate_library=liborrery-nccl.so", "absolute path" },
		{ "gate_library=/a.so:/tmp/evil.so", "without ':'" },
		{ "gate_library=/a.so\t/tmp/evil.so", "without ':'" },
		{ "gate_margin=20.01", "gate_margin=20.01: expected a percentage 0 to 20" },
		{ "gate_margin=1.234", "gate_margin=1.234" },
		{ "gate_margin=-1", "gate_margin=-1" },
		{ "gate_margin=.5", "gate_margin=.5" },
		{ "gate_margin=1%", "gate_margin=1%" },
		{ "gate_margin=", "gate_margin=" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].line), -1);
		if (!strstr(last_error, bad[i].needle))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].line, last_error, bad[i].needle);
		assert_non_null(strstr(last_error, "orrery: "));
	}
}

/* Counters and NIC affinity keys (tests/discover has the rest). */
static void args_discover_keys(void **state)
{
	static const struct {
		const char *line, *needle;
	} bad[] = {
		{ "counters=on", "counters=on" },
		{ "gate_stats=2", "gate_stats=2" },
		{ "sysfs_root=sys", "absolute path" },
		{ "sysfs_root=/fake/%u", "only %n" },
		{ "counters_publisher=/usr/libexec/%n/pub", "no % expansions" },
		{ "nic_affinity=maybe", "nic_affinity=maybe" },
		{ "hwloc_xml=topo.xml", "absolute path" },
	};

	assert_int_equal(parse(""), 0);
	assert_int_equal(osp_conf.counters, 0);
	assert_int_equal(osp_conf.gate_stats, 0);
	assert_int_equal(osp_conf.nic_affinity, 0);
	assert_string_equal(osp_conf.sysfs_root, "/sys");
	assert_non_null(strstr(osp_conf.counters_publisher, "orrery-counters-publish"));
	assert_null(osp_conf.hwloc_xml);
	assert_int_equal(parse("counters=1 sysfs_root=/var/tmp/fake/%n counters_publisher=/opt/o/pub "
			       "nic_affinity=yes hwloc_xml=/etc/orrery/%n.xml gate_stats=1"), 0);
	assert_int_equal(osp_conf.counters, 1);
	assert_int_equal(osp_conf.gate_stats, 1);
	assert_string_equal(osp_conf.sysfs_root, "/var/tmp/fake/%n");
	assert_string_equal(osp_conf.counters_publisher, "/opt/o/pub");
	assert_int_equal(osp_conf.nic_affinity, 1);
	assert_string_equal(osp_conf.hwloc_xml, "/etc/orrery/%n.xml");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].line), -1);
		if (!strstr(last_error, bad[i].needle))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].line, last_error, bad[i].needle);
	}
}

/* ---------------------------------------------------------------- spec */
static void spec_canonical(void **state)
{
	char msg[600], *c = NULL, *c2 = NULL;

	assert_int_equal(osp_spec_canonical("resnet50", 0, &c, msg, sizeof(msg)), 0);
	/* canonical is a fixed point */
	assert_int_equal(osp_spec_canonical(c, 0, &c2, msg, sizeof(msg)), 0);
	assert_string_equal(c, c2);
	free(c);
	free(c2);

	assert_int_equal(osp_spec_canonical("period=250ms;up=0ms+80ms@45Gfoo", 1, &c, msg, sizeof(msg)), -1);
	assert_null(c);
	assert_non_null(strstr(msg, "45Gfoo"));
	assert_int_equal(osp_spec_canonical("@", 1, &c, msg, sizeof(msg)), -1);
	assert_int_equal(osp_spec_canonical("@/nonexistent/x.profile", 1, &c, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "/nonexistent/x.profile"));
	assert_int_equal(osp_spec_canonical("file:/nonexistent/x", 0, &c, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "sbatch, salloc or srun"));
}

static void spec_too_long(void **state)
{
	char *big = malloc(ORRERY_SPEC_MAX_LEN + 2), msg[600], *c = NULL;

	memset(big, 'a', ORRERY_SPEC_MAX_LEN + 1);
	big[ORRERY_SPEC_MAX_LEN + 1] = '\0';
	assert_int_equal(osp_spec_canonical(big, 1, &c, msg, sizeof(msg)), -1);
	assert_non_null(strstr(msg, "longer than"));
	free(big);
}

/* ---------------------------------------------------------------- gate */
static void gate_option_values(void **state)
{
	assert_int_equal(osp_gate_parse("auto"), 1);
	assert_int_equal(osp_gate_parse("off"), 0);
	assert_int_equal(osp_gate_parse("on"), -1);
	assert_int_equal(osp_gate_parse("AUTO"), -1);
	assert_int_equal(osp_gate_parse(""), -1);
	assert_int_equal(osp_gate_parse(NULL), -1);
}

static void gate_preload(void **state)
{
	const char *lib = "/usr/lib/orrery/liborrery-nccl.so";
	char out[256];

	assert_int_equal(osp_preload_value(lib, NULL, out, sizeof(out)), 1);
	assert_string_equal(out, lib);
	assert_int_equal(osp_preload_value(lib, "", out, sizeof(out)), 1);
	assert_string_equal(out, lib);
	/* the interposer goes first, the user's libraries stay */
	assert_int_equal(osp_preload_value(lib, "/home/u/libx.so", out, sizeof(out)), 1);
	assert_string_equal(out, "/usr/lib/orrery/liborrery-nccl.so:/home/u/libx.so");
	/* already there (a step started from a gated task): unchanged */
	assert_int_equal(osp_preload_value(lib, "/a.so /usr/lib/orrery/liborrery-nccl.so", out, sizeof(out)), 0);
	assert_int_equal(osp_preload_value(lib, "/usr/lib/orrery/liborrery-nccl.so:/b.so", out, sizeof(out)), 0);
	/* a longer name containing it is not it */
	assert_int_equal(osp_preload_value(lib, "/usr/lib/orrery/liborrery-nccl.so.bak", out, sizeof(out)), 1);
	assert_int_equal(osp_preload_value(lib, "/x.so", out, 20), -1);
}

static void gate_phase_geometry(void **state)
{
	char msg[600], list[OSP_PHASES_MAX];
	int64_t off = -1, span = -1;

	/* two Up phases: first at 0 ms, last ends at 170 ms */
	assert_int_equal(osp_phase_geometry("period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a",
					    4, &off, &span, list, msg, sizeof(msg)), 0);
	assert_int_equal(off, 0);
	assert_int_equal(span, 170000);
	assert_string_equal(list, "0+80000,150000+20000");
	/* compute first: the Up phase at 120 ms of 200 ms */
	assert_int_equal(osp_phase_geometry("period=200ms;up=120ms+50ms@10Gbps", 2, &off, &span,
					    list, msg, sizeof(msg)), 0);
	assert_int_equal(off, 120000);
	assert_int_equal(span, 50000);
	assert_string_equal(list, "0+50000");
	/* given out of order: the list is in offset order, from the first */
	assert_int_equal(osp_phase_geometry("period=200ms;up=130ms+10ms@1Gbps;up=30ms+20ms@2Gbps",
					    2, &off, &span, list, msg, sizeof(msg)), 0);
	assert_int_equal(off, 30000);
	assert_int_equal(span, 110000);
	assert_string_equal(list, "0+20000,100000+10000");
	/* a catalogue model resolves for the job's node count */
	assert_int_equal(osp_phase_geometry("resnet50", 4, &off, &span, list, msg, sizeof(msg)), 0);
	assert_true(off >= 0 && span > 0);
	assert_true(strncmp(list, "0+", 2) == 0);
	assert_int_equal(osp_phase_geometry("period=10ms;up=0ms+20ms@1Gbps", 1, &off, &span,
					    list, msg, sizeof(msg)), -1);
	assert_true(msg[0] != '\0');
	assert_string_equal(list, "");
	/* a model on one node has no network phase: nothing to gate, no error */
	msg[0] = '\0';
	assert_int_equal(osp_phase_geometry("resnet50", 1, &off, &span, list, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "the profile has no Up phase");
}

/* ---------------------------------------------------------------- numbers */
static void numbers(void **state)
{
	static const char *good_int[] = { "0", "7", "250000", "1795990792540921",
					  "9223372036854775807" };
	static const char *bad_int[] = { "", "-1", "+1", "1e5", "12a", " 1", "1 ",
					 "0x10", "9223372036854775808",
					 "99999999999999999999", "1.0" };
	static const char *good_score[] = { "0", "1", "0.5", "0.9876", "1.000000000" };
	static const char *bad_score[] = { "", ".5", "1.", "-0.5", "1e0", "nan", "inf",
					   "0.1234567890", "1,5", "99999999" };
	size_t i;

	for (i = 0; i < sizeof(good_int) / sizeof(*good_int); i++)
		if (!osp_valid_int(good_int[i]))
			fail_msg("int '%s' rejected", good_int[i]);
	for (i = 0; i < sizeof(bad_int) / sizeof(*bad_int); i++)
		if (osp_valid_int(bad_int[i]))
			fail_msg("int '%s' accepted", bad_int[i]);
	for (i = 0; i < sizeof(good_score) / sizeof(*good_score); i++)
		if (!osp_valid_score(good_score[i]))
			fail_msg("score '%s' rejected", good_score[i]);
	for (i = 0; i < sizeof(bad_score) / sizeof(*bad_score); i++)
		if (osp_valid_score(bad_score[i]))
			fail_msg("score '%s' accepted", bad_score[i]);
}

/* ---------------------------------------------------------------- relay */
static char tmpdir[256];

static int relay_setup(void **state)
{
	char line[512];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/orrery-spank-test.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	chmod(tmpdir, 0755);
	/* like SlurmdSpoolDir=.../%n: the node's parent directory exists */
	snprintf(line, sizeof(line), "%s/n1", tmpdir);
	mkdir(line, 0755);
	snprintf(line, sizeof(line), "runtime_dir=%s/%%n/relay", tmpdir);
	return parse(line);
}

static int relay_teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void relay_dir_expansion(void **state)
{
	char out[OSP_PATH_MAX], want[OSP_PATH_MAX];

	snprintf(want, sizeof(want), "%s/node07/relay", tmpdir);
	assert_int_equal(osp_relay_dir("node07", out, sizeof(out)), 0);
	assert_string_equal(out, want);
	assert_int_equal(osp_relay_dir(NULL, out, sizeof(out)), -1);
	assert_int_equal(osp_relay_dir("", out, sizeof(out)), -1);
	assert_int_equal(osp_relay_dir("../etc", out, sizeof(out)), -1);
	assert_int_equal(osp_relay_dir("a/b", out, sizeof(out)), -1);
	assert_int_equal(osp_relay_dir("node07", out, 8), -1);
	assert_int_equal(parse("runtime_dir=/a%%b"), 0);
	assert_int_equal(osp_relay_dir(NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "/a%b");
	relay_setup(state);
}

/* Write a raw relay file for job 42 on node "n1". */
static void raw(const char *content, mode_t mode)
{
	char dir[OSP_PATH_MAX], path[OSP_PATH_MAX + 8];
	FILE *f;

	assert_int_equal(osp_relay_dir("n1", dir, sizeof(dir)), 0);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/42", dir);
	unlink(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	chmod(path, mode);
}

static void relay_round_trip(void **state)
{
	struct osp_relay w, r;
	char path[OSP_PATH_MAX];
	struct stat st;

	if (geteuid() != 0)
		skip();
	memset(&w, 0, sizeof(w));
	strcpy(w.profile, "period=250ms;up=0s+80ms@45Gbps");
	strcpy(w.period_us, "250000");
	strcpy(w.epoch_us, "1795990792540921");
	strcpy(w.shift_us, "62500");
	strcpy(w.job_score, "0.9876");
	assert_int_equal(osp_relay_write("n1", 42, &w), 0);
	/* root's alone: others on the node do not read a job's slot */
	assert_int_equal(osp_relay_path("n1", 42, path, sizeof(path)), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(osp_relay_read("n1", 42, &r), 1);
	assert_memory_equal(&w, &r, sizeof(w));
	/* another node, another job: nothing there */
	assert_int_equal(osp_relay_read("n2", 42, &r), 0);
	assert_int_equal(osp_relay_read("n1", 43, &r), 0);
	assert_int_equal(osp_relay_remove("n1", 42), 0);
	assert_int_equal(osp_relay_read("n1", 42, &r), 0);
	/* removing twice is fine (epilog after a failed prolog) */
	assert_int_equal(osp_relay_remove("n1", 42), 0);
}

static void relay_partial(void **state)
{
	struct osp_relay r;

	if (geteuid() != 0)
		skip();
	raw("job_id=42\nprofile=resnet50\n", 0644);
	assert_int_equal(osp_relay_read("n1", 42, &r), 1);
	assert_string_equal(r.profile, "resnet50");
	assert_string_equal(r.shift_us, "");
}

static void relay_rejects(void **state)
{
	static const char *bad[] = {
		"profile=resnet50\n",                          /* no job_id */
		"job_id=41\nshift_us=5\n",                     /* other job */
		"job_id=42\njob_id=42\n",                      /* twice */
		"job_id=42\nshift_us=5\nshift_us=6\n",
		"job_id=42\nshift_us=-5\n",
		"job_id=42\nshift_us=5us\n",
		"job_id=42\nperiod_us=\n",
		"job_id=42\nepoch_us=1e9\n",
		"job_id=42\njob_score=nan\n",
		"job_id=42\nLD_PRELOAD=/tmp/x.so\n",           /* unknown key */
		"job_id=42\nshift_us\n",
	};
	struct osp_relay r;
	size_t i;

	if (geteuid() != 0)
		skip();
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		raw(bad[i], 0644);
		last_error[0] = '\0';
		if (osp_relay_read("n1", 42, &r) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_int_equal(r.shift_us[0], '\0');
		assert_non_null(strstr(last_error, "orrery: "));
	}
}

static void relay_rejects_unsafe_files(void **state)
{
	char dir[OSP_PATH_MAX], path[OSP_PATH_MAX + 8], big[OSP_RELAY_MAX + 64];
	struct osp_relay r;

	if (geteuid() != 0)
		skip();
	/* writable by others */
	raw("job_id=42\nshift_us=5\n", 0666);
	assert_int_equal(osp_relay_read("n1", 42, &r), -1);
	/* owned by a user */
	raw("job_id=42\nshift_us=5\n", 0644);
	osp_relay_dir("n1", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/42", dir);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(osp_relay_read("n1", 42, &r), -1);
	/* a symbolic link to a root-owned file */
	unlink(path);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(osp_relay_read("n1", 42, &r), -1);
	unlink(path);
	/* too large */
	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	raw(big, 0644);
	assert_int_equal(osp_relay_read("n1", 42, &r), -1);
	/* the writer refuses a directory others can write */
	chmod(dir, 0777);
	memset(&r, 0, sizeof(r));
	strcpy(r.shift_us, "1");
	assert_int_equal(osp_relay_write("n1", 42, &r), -1);
	assert_non_null(strstr(last_error, "writable only by root"));
	chmod(dir, 0755);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(args_defaults),
		cmocka_unit_test(args_all_keys),
		cmocka_unit_test(args_default_profile_is_canonical),
		cmocka_unit_test(args_rejected),
		cmocka_unit_test(args_gate_margin),
		cmocka_unit_test(args_gate),
		cmocka_unit_test(gate_option_values),
		cmocka_unit_test(gate_preload),
		cmocka_unit_test(gate_phase_geometry),
		cmocka_unit_test(args_discover_keys),
		cmocka_unit_test(spec_canonical),
		cmocka_unit_test(spec_too_long),
		cmocka_unit_test(numbers),
		cmocka_unit_test_setup_teardown(relay_dir_expansion, relay_setup, relay_teardown),
		cmocka_unit_test_setup_teardown(relay_round_trip, relay_setup, relay_teardown),
		cmocka_unit_test_setup_teardown(relay_partial, relay_setup, relay_teardown),
		cmocka_unit_test_setup_teardown(relay_rejects, relay_setup, relay_teardown),
		cmocka_unit_test_setup_teardown(relay_rejects_unsafe_files, relay_setup, relay_teardown),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	osp_args_free(&osp_conf);
	return rc;
}
