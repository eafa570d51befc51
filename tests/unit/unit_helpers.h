/*
 * unit_helpers.h - what the CMocka suites of liborrery's C API share:
 * a profile from a spec and a running job added to a cluster, each
 * failing the test with the library's message.  Include after <cmocka.h>.
 */
#ifndef ORRERY_UNIT_HELPERS_H
#define ORRERY_UNIT_HELPERS_H

#include "orrery.h"

static inline orrery_profile_t *profile(const char *spec)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err;

	if (orrery_profile_parse(spec, &p, &err) != ORRERY_OK)
		fail_msg("parse '%s': %s", spec, err.message);
	return p;
}

static inline void add_job(orrery_cluster_t *c, uint32_t id,
			   const uint32_t *nodes, size_t n, const char *spec,
			   int64_t shift)
{
	orrery_profile_t *p = profile(spec);
	orrery_error_t err;

	if (orrery_cluster_add_job(c, id, nodes, n, p, shift, &err) != ORRERY_OK)
		fail_msg("add job %u: %s", id, err.message);
	orrery_profile_free(p);
}

#endif
