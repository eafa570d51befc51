/*
 * ctld_conf.c - orrery.conf (re)read at init and reconfigure: every
 * error of a load in one block, reported once per file text; a bad
 * default_profile rejected at load instead of at every job.
 */
#include "config.h"	/* Slurm's */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "orrery.h"
#include "ctld_state.h"
#include <glib.h>

#include "lib_syms.h"

/* A bad default_profile would fail every job on every scheduling pass:
 * reject it once, at load. */
static void check_default_profile_locked(const char *path)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err = { 0 };

	if (!orr_ocnf.default_profile || lib_missing())
		return;
	if (orrery_profile_parse(orr_ocnf.default_profile, &p, &err)) {
		error("select/orrery: %s: [orrery] default_profile: %s; jobs without --comm-profile are left to cons_tres",
		      path, err.message);
		free(orr_ocnf.default_profile);
		orr_ocnf.default_profile = NULL;
	}
	orrery_profile_free(p);
}

/* Hash of the orrery.conf text whose errors were last logged (0: none). */
static uint64_t reported_hash;

/* Every error of one load in one block: a single error on one line, as
 * before; several under a heading line, one line each. */
static void log_conf_errors(const char *path, char *err)
{
	size_t n = 1;

	for (const char *p = err; (p = strchr(p, '\n')); p++)
		n++;
	if (n == 1) {
		error("select/orrery: %s; running as plain cons_tres", err);
		return;
	}
	error("select/orrery: %s: %zu errors; running as plain cons_tres:",
	      path ? path : "orrery.conf", n);
	for (char *save = NULL, *l = strtok_r(err, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		error("select/orrery:   %s", l);
}

void orr_load_conf_locked(void)
{
	char err[ORRERY_CONF_ERR_MAX] = "";
	char *path = orrery_conf_path(slurm_conf.slurm_conf);
	int rc;

	gchar *text = NULL;
	gsize len = 0;

	__atomic_store_n(&orr_hold_on, false, __ATOMIC_RELAXED);
	__atomic_store_n(&orr_learn_on, false, __ATOMIC_RELAXED);
	orr_conf_hash = ORR_HASH_INIT;
	if (path && g_file_get_contents(path, &text, &len, NULL))
		orr_conf_hash = orr_hash_bytes(orr_conf_hash, text, len);
	g_free(text);
	orrery_conf_free(&orr_ocnf);
	rc = orrery_conf_load(path, &orr_ocnf, err, sizeof(err));
	if (rc < 0) {
		/* slurmctld reloads on every reconfigure, node and partition
		 * update: a file already reported is not reported again until
		 * its text changes. */
		if (orr_conf_hash != reported_hash)
			log_conf_errors(path, err);
		reported_hash = orr_conf_hash;
		orr_conf_ok = false;
	} else {
		reported_hash = 0;
		if (rc > 0)
			info("select/orrery: %s", err);
		orr_conf_ok = true;
		check_default_profile_locked(path);
		char hold[48] = "off", learn[32] = "off";

		if (orr_ocnf.hold_max_s)
			snprintf(hold, sizeof(hold), "%g,%u", orr_ocnf.hold_cost,
				 orr_ocnf.hold_max_s);
		if (orr_ocnf.learn_tol > 0)
			snprintf(learn, sizeof(learn), "%g", orr_ocnf.learn_tol);
		if (orr_ocnf.learn_tol > 0 && !orr_ocnf.channel_lead_ms)
			error("select/orrery: learn=%s needs the live channel (channel_lead_ms=0 turns it off): jobs stay modelled at their profiles",
			      learn);
		info("select/orrery: mode=%s candidates=%u rank_spread=%u hold=%s learn=%s%s%s",
		     orrery_mode_name(orr_ocnf.mode), orr_ocnf.candidates,
		     orr_ocnf.rank_spread, hold, learn,
		     orr_ocnf.default_profile ? " default_profile=" : "",
		     orr_ocnf.default_profile ? orr_ocnf.default_profile : "");
	}
	free(path);
	/* While off (or misconfigured) jobs start unrecorded: the model must
	 * be rebuilt when orrery is back, not kept (build_signature()). */
	if (!orr_conf_ok || orr_ocnf.mode == ORRERY_MODE_OFF)
		orr_g.build_sig = 0;
	else {
		if (orr_ocnf.hold_max_s)
			__atomic_store_n(&orr_hold_on, true, __ATOMIC_RELAXED);
		if (orr_ocnf.learn_tol > 0 && orr_ocnf.channel_lead_ms)
			__atomic_store_n(&orr_learn_on, true, __ATOMIC_RELAXED);
	}
}

/* Why a profiled job gets no orrery model at all. */
const char *orr_no_model_reason_locked(void)
{
	if (!orr_conf_ok)
		return "conf_error";
	if (orr_ocnf.mode == ORRERY_MODE_OFF)
		return "mode_off";
	if (lib_missing())
		return "no_placement_lib";
	return "topology";
}
