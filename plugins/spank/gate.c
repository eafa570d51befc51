/*
 * gate.c - --comm-gate and what a task needs to gate its NCCL collectives
 * without code changes.
 *
 *   --comm-gate=auto|off     (sbatch, salloc, srun; checked when parsed)
 *   plugstack: comm_gate=auto|off (the default), gate_library=PATH
 *
 * With auto, and when the job has a shift, each task's LD_PRELOAD starts
 * with the admin's gate_library (liborrery-nccl.so): never a path from the
 * user.  Every task of a job with a profile also gets the profile's phase
 * geometry as two more fixed names, so the runtime (which cannot parse
 * profiles: it has no liborrery) gates each iteration's first Up phase:
 *   ORRERY_PHASE_OFFSET_US  offset of the first Up phase in the period
 *   ORRERY_PHASE_SPAN_US    from its start to the end of the last Up phase
 *   ORRERY_PHASES_US        every Up phase, OFFSET+DURATION from the first
 *                           (the interposer counts a period's bursts)
 * This file holds the pure parts (tested in tests/unit/test_spank.c); the
 * task environment is set in task.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orrery.h>

#include "orrery_spank.h"

static char *gate_value;   /* the option as given, NULL if absent */

int osp_gate_parse(const char *val)
{
	if (!val)
		return -1;
	if (strcmp(val, "auto") == 0)
		return 1;
	if (strcmp(val, "off") == 0)
		return 0;
	return -1;
}

static int gate_cb(int val, const char *optarg, int remote)
{
	if (osp_gate_parse(optarg) < 0) {
		slurm_error(OSP_LOG_PREFIX "--" OSP_GATE_OPTION_NAME "=%s: accepted values are auto and off",
			    optarg ? optarg : "");
		return -1;
	}
	free(gate_value);
	gate_value = strdup(optarg);
	return gate_value ? 0 : -1;
}

static struct spank_option gate_option = {
	.name = OSP_GATE_OPTION_NAME,
	.arginfo = "auto|off",
	.usage = "Gate this job's NCCL collectives on its orrery slots without "
		 "code changes (auto), or not (off). Default: the site's. "
		 "See spank-orrery(8).",
	.has_arg = 1,
	.val = 1,
	.cb = gate_cb,
};

int osp_gate_register(spank_t sp)
{
	spank_err_t rc = spank_option_register(sp, &gate_option);

	if (rc != ESPANK_SUCCESS) {
		slurm_error(OSP_LOG_PREFIX "cannot register --" OSP_GATE_OPTION_NAME ": %s",
			    spank_strerror(rc));
		return -1;
	}
	return 0;
}

int osp_gate_wanted(spank_t sp)
{
	char *val = NULL;

	if (!gate_value &&
	    spank_option_getopt(sp, &gate_option, &val) == ESPANK_SUCCESS && val)
		gate_value = strdup(val);
	/* Checked again: in slurmstepd the value came over the wire. */
	if (gate_value && osp_gate_parse(gate_value) >= 0)
		return osp_gate_parse(gate_value);
	return osp_conf.comm_gate;
}

void osp_gate_free(void)
{
	free(gate_value);
	gate_value = NULL;
}

int osp_preload_value(const char *lib, const char *old, char *out, size_t len)
{
	const char *p;
	size_t n = strlen(lib);
	int w;

	/* Already there (a step inside a step, an srun from a gated shell). */
	for (p = old; p && (p = strstr(p, lib)); p += n)
		if ((p == old || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ':' || p[n] == ' '))
			return 0;
	if (old && old[0])
		w = snprintf(out, len, "%s:%s", lib, old);
	else
		w = snprintf(out, len, "%s", lib);
	return w < 0 || (size_t)w >= len ? -1 : 1;
}

int osp_phase_geometry(const char *canonical, uint32_t nodes, int64_t *offset_us,
		       int64_t *span_us, char *list, char *msg, size_t msglen)
{
	orrery_profile_t *p = NULL, *r = NULL;
	orrery_shape_t shape = { .nodes = nodes };
	orrery_error_t err = { 0 };
	int64_t off[ORRERY_MAX_PHASES], dur[ORRERY_MAX_PHASES], last = 0;
	size_t i, j, n, k = 0, used = 0;
	orrery_phase_t ph;

	list[0] = '\0';
	if (orrery_profile_parse(canonical, &p, &err) != ORRERY_OK ||
	    orrery_profile_resolve(p, &shape, &r, &err) != ORRERY_OK) {
		snprintf(msg, msglen, "%s", err.message);
		orrery_profile_free(p);
		return -1;
	}
	n = orrery_profile_phase_count(r);
	for (i = 0; i < n && k < ORRERY_MAX_PHASES; i++) {
		if (orrery_profile_phase(r, i, &ph) != ORRERY_OK)
			continue;
		/* in offset order (a handful of phases: insertion) */
		for (j = k; j > 0 && off[j - 1] > ph.offset_us; j--) {
			off[j] = off[j - 1];
			dur[j] = dur[j - 1];
		}
		off[j] = ph.offset_us;
		dur[j] = ph.duration_us;
		k++;
		if (ph.offset_us + ph.duration_us > last)
			last = ph.offset_us + ph.duration_us;
	}
	orrery_profile_free(r);
	orrery_profile_free(p);
	if (k == 0) {
		snprintf(msg, msglen, "the profile has no Up phase");
		return 1;	/* nothing to gate: not an error */
	}
	for (i = 0; i < k; i++)
		used += (size_t)snprintf(list + used, OSP_PHASES_MAX - used,
					 "%s%" PRId64 "+%" PRId64, i ? "," : "",
					 off[i] - off[0], dur[i]);
	*offset_us = off[0];
	*span_us = last - off[0];
	return 0;
}
