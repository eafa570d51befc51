/*
 * profile_spec - the --comm-profile grammar (orrery_profile_parse), as
 * sbatch, the prolog and slurmctld call it on a user's string.
 *
 * Oracle beyond "no crash": an accepted profile has a canonical form that
 * parses again to an equal profile (the form that travels in the job's
 * environment and the state file), and it resolves for a job shape
 * whose phases have a valid collective and cross an uplink by the crossing
 * rules within their bounds (no more than the pairs a pipeline has).
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	orrery_profile_t *p = NULL, *again = NULL, *r = NULL;
	orrery_error_t err;
	orrery_shape_t shape = { 0 };
	char *spec = fuzz_cstring(data, size);
	char *canon;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = orrery_profile_parse(spec, &p, &err);
	if (rc != ORRERY_OK) {
		fuzz_check_error(rc, &err);
		FUZZ_CHECK(p == NULL, "object left behind on error");
		free(spec);
		return 0;
	}
	canon = orrery_profile_canonical(p);
	FUZZ_CHECK(canon != NULL, "no canonical form");
	FUZZ_CHECK(strlen(canon) <= ORRERY_SPEC_MAX_LEN,
		   "canonical form of %zu bytes exceeds the spec limit", strlen(canon));
	rc = orrery_profile_parse(canon, &again, &err);
	FUZZ_CHECK(rc == ORRERY_OK, "canonical '%s' does not parse: %s", canon,
		   err.message);
	FUZZ_CHECK(orrery_profile_equal(p, again), "'%s' reparses differently",
		   canon);

	/* A shape from the input's first bytes: resolution may refuse it,
	 * but only with a proper error. */
	shape.nodes = size > 0 ? data[0] % 65 : 0;
	shape.gpus_per_node = size > 1 ? data[1] % 9 : 0;
	rc = orrery_profile_resolve(p, &shape, &r, &err);
	if (rc != ORRERY_OK) {
		fuzz_check_error(rc, &err);
	} else {
		int64_t period = orrery_profile_period_us(r);
		size_t n = orrery_profile_phase_count(r);

		FUZZ_CHECK(!orrery_profile_is_model(r), "resolved to a model");
		FUZZ_CHECK(period >= ORRERY_MIN_PERIOD_US &&
			   period <= ORRERY_MAX_PERIOD_US, "period %lld",
			   (long long)period);
		FUZZ_CHECK(n <= ORRERY_MAX_PHASES, "%zu phases", n);
		for (size_t i = 0; i < n; i++) {
			orrery_phase_t ph;

			FUZZ_CHECK(orrery_profile_phase(r, i, &ph) == ORRERY_OK,
				   "phase %zu", i);
			FUZZ_CHECK(ph.offset_us >= 0 && ph.duration_us > 0 &&
				   ph.offset_us + ph.duration_us <= period,
				   "phase %zu outside the period", i);
			FUZZ_CHECK(ph.collective >= ORRERY_COLL_RING &&
				   ph.collective <= ORRERY_COLL_RAIL,
				   "phase %zu: collective %d", i, ph.collective);
			FUZZ_CHECK(ph.collective == ORRERY_COLL_PIPELINE
					   ? ph.groups >= 2 && ph.groups <= ORRERY_MAX_STAGES
				   : ph.collective == ORRERY_COLL_RAIL
					   ? ph.groups >= 1 && ph.groups <= ORRERY_MAX_RAILS
					   : ph.groups == 0,
				   "phase %zu: collective %d with count %u", i,
				   ph.collective, ph.groups);
			/* 8 nodes, those set in the input's third byte below
			 * the uplink. */
			uint8_t below[8];
			uint32_t conns = 0;
			for (int b = 0; b < 8; b++)
				below[b] = size > 2 ? (data[2] >> b) & 1 : b < 4;
			double f = orrery_phase_crossing(&ph, below, 8, &conns);
			/* a2a at most 4 x 4 connections, a pipeline 7 pairs,
			 * a rail one ring per rail */
			FUZZ_CHECK(f >= 0 && f <= 7 &&
				   conns <= (ph.collective == ORRERY_COLL_RAIL
						     ? ph.groups : 16),
				   "phase %zu: crossing factor %g, %u connections",
				   i, f, conns);
		}
	}
	orrery_profile_free(r);
	orrery_free(canon);
	orrery_profile_free(again);
	orrery_profile_free(p);
	free(spec);
	return 0;
}
