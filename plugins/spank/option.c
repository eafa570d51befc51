/*
 * option.c - the --comm-profile option.
 *
 * Registered for sbatch, salloc and srun (and in slurmstepd, where
 * spank_option_getopt reads it back).  In the allocator and local contexts
 * the value is validated when the option is parsed, so a bad profile fails
 * sbatch before anything is queued.  "@PATH" / "file:PATH" is read here, as
 * the submitting user; slurmstepd and the prolog (root) never open a
 * user-named file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orrery.h>

#include "orrery_spank.h"

static char *option_value;      /* raw, as the user gave it */
static char *option_canonical;  /* validated here (allocator/local only) */

static int file_spec(const char *spec, const char **path)
{
	if (spec[0] == '@') {
		*path = spec + 1;
		return 1;
	}
	if (strncmp(spec, "file:", 5) == 0) {
		*path = spec + 5;
		return 1;
	}
	return 0;
}

int osp_spec_canonical(const char *spec, int allow_files, char **canonical,
		       char *msg, size_t msglen)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err = { 0 };
	const char *path;
	int rc;

	*canonical = NULL;
	if (strlen(spec) > ORRERY_SPEC_MAX_LEN) {
		snprintf(msg, msglen, "longer than %d characters", ORRERY_SPEC_MAX_LEN);
		return -1;
	}
	if (file_spec(spec, &path)) {
		if (!allow_files) {
			snprintf(msg, msglen, "'%s': a profile file may only be given to sbatch, salloc or srun",
				 spec);
			return -1;
		}
		if (!path[0]) {
			snprintf(msg, msglen, "'%s': no file name after '%.*s'", spec,
				 (int)(path - spec), spec);
			return -1;
		}
		rc = orrery_profile_load_file(path, &p, &err);
	} else {
		rc = orrery_profile_parse(spec, &p, &err);
	}
	if (rc != ORRERY_OK) {
		snprintf(msg, msglen, "%s", err.message[0] ? err.message : orrery_strerror(rc));
		return -1;
	}
	*canonical = orrery_profile_canonical(p);
	orrery_profile_free(p);
	if (!*canonical) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	return 0;
}

/*
 * Bad input at submission: one line, then exit as sbatch does for an
 * invalid option, whichever way the profile came (--comm-profile,
 * ORRERY_COMM_PROFILE, @FILE).  Returning an error instead makes Slurm add
 * lines that name no problem: "Invalid --comm-profile argument: ..." after
 * a failed option callback, "spank: required plugin spank_orrery.so:
 * init_post_opt() failed with rc=-1" and "Plugin stack post-option
 * processing failed" after a failed post-option hook.  Called only in
 * sbatch, salloc and srun before anything is submitted.  The exit status
 * is Slurm's error_exit: SLURM_EXIT_ERROR when set, else 1.
 */
void osp_reject_input(const char *fmt, const char *what, const char *msg)
{
	const char *e = getenv("SLURM_EXIT_ERROR");
	char *end = NULL;
	long code = e ? strtol(e, &end, 10) : 1;

	if (!e || !*e || (end && *end) || code <= 0 || code > 255)
		code = 1;
	slurm_error(fmt, what, msg);
	fflush(stderr);
	exit((int)code);
}

static int option_cb(int val, const char *optarg, int remote)
{
	char msg[ORRERY_ERRMSG_MAX + 64];
	char *canonical = NULL;

	if ((!optarg || !optarg[0]) && !remote)
		osp_reject_input(OSP_LOG_PREFIX "%s: %s", "--" OSP_OPTION_NAME,
				 "empty value");
	if (!optarg || !optarg[0]) {
		slurm_error(OSP_LOG_PREFIX "--" OSP_OPTION_NAME ": empty value");
		return -1;
	}
	free(option_value);
	option_value = strdup(optarg);
	if (!option_value)
		return -1;
	/* slurmstepd (root) only remembers it; see task.c. */
	if (remote)
		return 0;

	if (osp_spec_canonical(optarg, 1, &canonical, msg, sizeof(msg)) < 0)
		osp_reject_input(OSP_LOG_PREFIX "%s: %s", "--" OSP_OPTION_NAME, msg);
	free(option_canonical);
	option_canonical = canonical;
	if (osp_conf.verbose)
		slurm_verbose(OSP_LOG_PREFIX "--" OSP_OPTION_NAME " %s", canonical);
	return 0;
}

static struct spank_option comm_profile_option = {
	.name = OSP_OPTION_NAME,
	.arginfo = "SPEC",
	.usage = "Communication profile of this job (orrery): a model "
		 "(\"gpt2:batch=32\"), a pattern (\"period=250ms;up=0ms+80ms@45Gbps\") "
		 "or @FILE. See spank-orrery(8).",
	.has_arg = 1,
	.val = 0,
	.cb = option_cb,
};

int osp_option_register(spank_t sp)
{
	spank_err_t rc = spank_option_register(sp, &comm_profile_option);

	if (rc != ESPANK_SUCCESS) {
		slurm_error(OSP_LOG_PREFIX "cannot register --" OSP_OPTION_NAME ": %s",
			    spank_strerror(rc));
		return -1;
	}
	return 0;
}

const char *osp_option_value(void)
{
	return option_value;
}

const char *osp_option_canonical(void)
{
	return option_canonical;
}

/* Read back in slurmstepd, where the callback may not have run. */
const char *osp_option_getopt(spank_t sp)
{
	char *val = NULL;

	if (option_value)
		return option_value;
	if (spank_option_getopt(sp, &comm_profile_option, &val) != ESPANK_SUCCESS || !val)
		return NULL;
	option_value = strdup(val);
	return option_value;
}

void osp_option_free(void)
{
	free(option_value);
	free(option_canonical);
	option_value = NULL;
	option_canonical = NULL;
}
