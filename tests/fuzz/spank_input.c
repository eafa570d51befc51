/*
 * spank_input - what the SPANK plugin accepts from outside: plugstack.conf
 * arguments (osp_args_parse), a --comm-profile / ORRERY_COMM_PROFILE /
 * SPANK_ORRERY_PROFILE value (osp_spec_canonical, as the prolog calls it:
 * files refused), the controller's numbers (osp_valid_int/_score) and the
 * node-local relay file that slurmstepd reads (osp_relay_read).  Slurm's
 * calls are stubbed as in tests/unit/test_spank.c.
 *
 * The first input byte picks the edge; the rest is the input.  Oracle:
 * bad input is refused with one log line; accepted values are within the
 * limits the plugin documents (canonical profile fits the relay, numbers
 * are plain digits).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <orrery.h>

#include "plugins/spank/orrery_spank.h"

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz check failed: %s\n", #cond); abort(); } } while (0)

static int errors;

void slurm_error(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	errors++;
}
void slurm_verbose(const char *fmt, ...) { (void)fmt; }
void slurm_info(const char *fmt, ...) { (void)fmt; }
spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp; (void)opt;
	return ESPANK_SUCCESS;
}
spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt, char **val)
{
	(void)sp; (void)opt; (void)val;
	return ESPANK_ERROR;
}
const char *spank_strerror(spank_err_t err) { (void)err; return "stub"; }

static void fuzz_args(char *s)
{
	struct osp_conf conf;
	char *av[64], *save = NULL, *t;
	int ac = 0, rc;

	for (t = strtok_r(s, " \t\n", &save); t && ac < 64;
	     t = strtok_r(NULL, " \t\n", &save))
		av[ac++] = t;
	errors = 0;
	rc = osp_args_parse(ac, av, &conf);
	if (rc < 0) {
		CHECK(errors == 1);
		CHECK(!conf.runtime_dir && !conf.default_profile);
		return;
	}
	CHECK(conf.runtime_dir && conf.runtime_dir[0] == '/');
	CHECK(strlen(conf.runtime_dir) <= OSP_PATH_MAX / 2);
	CHECK(!(conf.require_profile && conf.default_profile));
	osp_args_free(&conf);
}

static void fuzz_spec(const char *s)
{
	char msg[ORRERY_ERRMSG_MAX + 64];
	char *canonical = NULL;

	msg[0] = '\0';
	if (osp_spec_canonical(s, 0, &canonical, msg, sizeof(msg)) < 0) {
		CHECK(!canonical && msg[0]);
		return;
	}
	CHECK(canonical);
	/* the prolog relays at most this much */
	CHECK(strlen(canonical) <= 4096);
	free(canonical);
}

static void fuzz_numbers(const char *s)
{
	if (osp_valid_int(s)) {
		CHECK(strspn(s, "0123456789") == strlen(s) && strlen(s) <= 19);
	}
	if (osp_valid_score(s))
		CHECK(strspn(s, "0123456789.") == strlen(s));
}

static char relay_dir[64];

static void fuzz_relay(const uint8_t *data, size_t size)
{
	char path[OSP_PATH_MAX];
	struct osp_relay r;
	FILE *f;
	int rc;

	if (!relay_dir[0]) {
		snprintf(relay_dir, sizeof(relay_dir), "/tmp/orrery-fuzz-relay.XXXXXX");
		CHECK(mkdtemp(relay_dir));
		CHECK(chmod(relay_dir, 0755) == 0);
		osp_conf.runtime_dir = relay_dir;
	}
	CHECK(osp_relay_path("n1", 42, path, sizeof(path)) == 0);
	f = fopen(path, "w");
	CHECK(f);
	CHECK(fwrite(data, 1, size, f) == size);
	fclose(f);
	chmod(path, 0644);
	errors = 0;
	rc = osp_relay_read("n1", 42, &r);
	CHECK(rc >= -1 && rc <= 1);
	if (rc == 1) {
		/* Only checked values reach the task environment. */
		CHECK(!r.period_us[0] || osp_valid_int(r.period_us));
		CHECK(!r.epoch_us[0] || osp_valid_int(r.epoch_us));
		CHECK(!r.shift_us[0] || osp_valid_int(r.shift_us));
		CHECK(!r.job_score[0] || osp_valid_score(r.job_score));
		CHECK(!strchr(r.profile, '\n'));
	} else if (rc < 0) {
		CHECK(errors == 1);
	}
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size == 0)
		return 0;
	s = malloc(size);
	CHECK(s);
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0: fuzz_args(s); break;
	case 1: fuzz_spec(s); break;
	case 2: fuzz_numbers(s); break;
	case 3: fuzz_relay(data + 1, size - 1); break;
	}
	free(s);
	return 0;
}
