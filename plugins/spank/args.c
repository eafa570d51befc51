/*
 * args.c - plugstack.conf arguments of the orrery SPANK plugin.
 *
 *   required spank_orrery.so [default_profile=SPEC] [runtime_dir=DIR]
 *                            [require_profile=0|1] [verbose=0|1]
 *                            [comm_gate=auto|off] [gate_library=PATH]
 *                            [test_controller=0|1]
 *                            [counters=0|1] [gate_stats=0|1]
 *                            [sysfs_root=DIR]
 *                            [counters_publisher=PATH]
 *                            [nic_affinity=0|1] [hwloc_xml=FILE]
 *                            [channel_poll_ms=MS] [gate_margin=PERCENT]
 *
 * Strict: every argument is key=value with a known key, and a bad value or
 * an unknown key fails the plugin's init with one line naming it (a typo in
 * plugstack.conf must not silently disable a setting).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <orrery.h>

#include "orrery_spank.h"

struct osp_conf osp_conf;

static int parse_bool(const char *key, const char *val, int *out)
{
	if (strcmp(val, "0") == 0 || strcmp(val, "no") == 0) {
		*out = 0;
		return 0;
	}
	if (strcmp(val, "1") == 0 || strcmp(val, "yes") == 0) {
		*out = 1;
		return 0;
	}
	slurm_error(OSP_LOG_PREFIX "plugstack argument %s=%s: accepted values are 0, 1, no, yes",
		    key, val);
	return -1;
}

/* An absolute path in which only %n (node name) and %% are expanded. */
static int set_path(const char *key, const char *val, int allow_n, char **out)
{
	const char *p;

	if (val[0] != '/') {
		slurm_error(OSP_LOG_PREFIX "plugstack argument %s=%s: must be an absolute path",
			    key, val);
		return -1;
	}
	if (strlen(val) > OSP_PATH_MAX / 2) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument %s: longer than %d characters",
			    key, OSP_PATH_MAX / 2);
		return -1;
	}
	for (p = strchr(val, '%'); p; p = strchr(p + 2, '%')) {
		if (!((p[1] == 'n' && allow_n) || p[1] == '%')) {
			slurm_error(OSP_LOG_PREFIX "plugstack argument %s=%s: %s",
				    key, val, allow_n ? "only %n (node name) may be expanded" :
				    "no % expansions here");
			return -1;
		}
	}
	free(*out);
	*out = strdup(val);
	return *out ? 0 : -1;
}

static int set_runtime_dir(const char *val, struct osp_conf *conf)
{
	const char *p;

	if (val[0] != '/') {
		slurm_error(OSP_LOG_PREFIX "plugstack argument runtime_dir=%s: must be an absolute path",
			    val);
		return -1;
	}
	if (strlen(val) > OSP_PATH_MAX / 2) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument runtime_dir: longer than %d characters",
			    OSP_PATH_MAX / 2);
		return -1;
	}
	/* Only %n (node name) and %% are expanded. */
	for (p = strchr(val, '%'); p; p = strchr(p + 2, '%')) {
		if (p[1] != 'n' && p[1] != '%') {
			slurm_error(OSP_LOG_PREFIX "plugstack argument runtime_dir=%s: only %%n (node name) may be expanded",
				    val);
			return -1;
		}
	}
	free(conf->runtime_dir);
	conf->runtime_dir = strdup(val);
	return conf->runtime_dir ? 0 : -1;
}

/* Only the admin names the library every task preloads: an absolute path
 * without LD_PRELOAD's separators. */
static int set_gate_library(const char *val, struct osp_conf *conf)
{
	if (val[0] != '/' || strpbrk(val, ": \t")) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument gate_library=%s: must be an absolute path without ':' or blanks",
			    val);
		return -1;
	}
	if (strlen(val) > OSP_PATH_MAX / 2) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument gate_library: longer than %d characters",
			    OSP_PATH_MAX / 2);
		return -1;
	}
	free(conf->gate_library);
	conf->gate_library = strdup(val);
	return conf->gate_library ? 0 : -1;
}

static int set_comm_gate(const char *val, struct osp_conf *conf)
{
	int v = osp_gate_parse(val);

	if (v < 0) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument comm_gate=%s: accepted values are auto and off",
			    val);
		return -1;
	}
	conf->comm_gate = v;
	return 0;
}

/* The live channel's poll of slurmctld (channel.c): 0 (off) or
 * 100..600000 ms. */
static int set_poll_ms(const char *val, struct osp_conf *conf)
{
	size_t n = strlen(val);
	long v = -1;

	if (n >= 1 && n <= 6 && strspn(val, "0123456789") == n)
		v = strtol(val, NULL, 10);
	if (v < 0 || (v != 0 && (v < 100 || v > 600000))) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument channel_poll_ms=%s: expected 0 (no live channel) or 100..600000",
			    val);
		return -1;
	}
	conf->channel_poll_ms = (int)v;
	return 0;
}

/* gate_margin=PERCENT: 0 to 20, at most two decimals (1.5 is 15000 ppm).
 * Every gate of the cluster needs the same margin (orrery-runtime(7)),
 * which is why it is the admin's and not the job's. */
static int set_gate_margin(const char *val, struct osp_conf *conf)
{
	const char *dot = strchr(val, '.');
	size_t ni = dot ? (size_t)(dot - val) : strlen(val);
	size_t nf = dot ? strlen(dot + 1) : 0;
	long ppm = -1;

	if (ni >= 1 && ni <= 2 && strspn(val, "0123456789") == ni &&
	    (!dot || (nf >= 1 && nf <= 2 && strspn(dot + 1, "0123456789") == nf))) {
		ppm = strtol(val, NULL, 10) * 10000;
		if (dot)
			ppm += strtol(dot + 1, NULL, 10) * (nf == 1 ? 1000 : 100);
	}
	if (ppm < 0 || ppm > ORRERY_GATE_MAX_MARGIN_PPM) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument gate_margin=%s: expected a percentage 0 to 20 with at most two decimals (e.g. 1 or 0.5)",
			    val);
		return -1;
	}
	conf->gate_margin_ppm = (uint32_t)ppm;
	return 0;
}

static int set_default_profile(const char *val, struct osp_conf *conf)
{
	char msg[512];
	char *canonical = NULL;

	/* The default is read by root in every context: no files. */
	if (osp_spec_canonical(val, 0, &canonical, msg, sizeof(msg)) < 0) {
		slurm_error(OSP_LOG_PREFIX "plugstack argument default_profile: %s", msg);
		return -1;
	}
	free(conf->default_profile);
	conf->default_profile = canonical;
	return 0;
}

int osp_args_parse(int ac, char **av, struct osp_conf *conf)
{
	int i;

	memset(conf, 0, sizeof(*conf));
	conf->runtime_dir = strdup(OSP_DEFAULT_RUNTIME_DIR);
	conf->gate_library = strdup(OSP_GATE_LIBRARY_DEFAULT);
	conf->sysfs_root = strdup(OSP_DEFAULT_SYSFS_ROOT);
	conf->counters_publisher = strdup(OSP_DEFAULT_PUBLISHER);
	conf->channel_poll_ms = OSP_DEFAULT_CHANNEL_POLL_MS;
	if (!conf->runtime_dir || !conf->gate_library || !conf->sysfs_root ||
	    !conf->counters_publisher) {
		osp_args_free(conf);
		return -1;
	}

	for (i = 0; i < ac; i++) {
		const char *arg = av[i];
		const char *eq = strchr(arg, '=');
		const char *val;
		size_t klen;
		int rc;

		if (!eq || eq == arg) {
			slurm_error(OSP_LOG_PREFIX "plugstack argument '%s': expected key=value (keys: default_profile, runtime_dir, require_profile, verbose, comm_gate, gate_library, test_controller, counters, gate_stats, sysfs_root, counters_publisher, nic_affinity, hwloc_xml, channel_poll_ms, gate_margin)",
				    arg);
			goto fail;
		}
		klen = (size_t)(eq - arg);
		val = eq + 1;
#define KEY(k) (klen == sizeof(k) - 1 && strncmp(arg, k, klen) == 0)
		if (KEY("default_profile"))
			rc = set_default_profile(val, conf);
		else if (KEY("runtime_dir"))
			rc = set_runtime_dir(val, conf);
		else if (KEY("require_profile"))
			rc = parse_bool("require_profile", val, &conf->require_profile);
		else if (KEY("verbose"))
			rc = parse_bool("verbose", val, &conf->verbose);
		else if (KEY("comm_gate"))
			rc = set_comm_gate(val, conf);
		else if (KEY("gate_library"))
			rc = set_gate_library(val, conf);
		else if (KEY("test_controller"))
			rc = parse_bool("test_controller", val, &conf->test_controller);
		else if (KEY("counters"))
			rc = parse_bool("counters", val, &conf->counters);
		else if (KEY("gate_stats"))
			rc = parse_bool("gate_stats", val, &conf->gate_stats);
		else if (KEY("sysfs_root"))
			rc = set_path("sysfs_root", val, 1, &conf->sysfs_root);
		else if (KEY("counters_publisher"))
			rc = set_path("counters_publisher", val, 0, &conf->counters_publisher);
		else if (KEY("nic_affinity"))
			rc = parse_bool("nic_affinity", val, &conf->nic_affinity);
		else if (KEY("channel_poll_ms"))
			rc = set_poll_ms(val, conf);
		else if (KEY("gate_margin"))
			rc = set_gate_margin(val, conf);
		else if (KEY("hwloc_xml"))
			rc = set_path("hwloc_xml", val, 1, &conf->hwloc_xml);
		else {
			slurm_error(OSP_LOG_PREFIX "unknown plugstack argument '%.*s' (keys: default_profile, runtime_dir, require_profile, verbose, comm_gate, gate_library, test_controller, counters, gate_stats, sysfs_root, counters_publisher, nic_affinity, hwloc_xml, channel_poll_ms, gate_margin)",
				    (int)klen, arg);
			goto fail;
		}
#undef KEY
		if (rc < 0)
			goto fail;
	}
	if (conf->require_profile && conf->default_profile) {
		slurm_error(OSP_LOG_PREFIX "plugstack arguments require_profile=1 and default_profile= contradict each other");
		goto fail;
	}
	return 0;
fail:
	osp_args_free(conf);
	return -1;
}

void osp_args_free(struct osp_conf *conf)
{
	free(conf->default_profile);
	free(conf->runtime_dir);
	free(conf->gate_library);
	free(conf->sysfs_root);
	free(conf->counters_publisher);
	free(conf->hwloc_xml);
	memset(conf, 0, sizeof(*conf));
}
