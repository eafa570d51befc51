/*
 * admin_record.h - the ORR1: record select/orrery_cons_tres appends to a
 * job's AdminComment (doc/select-orrery.8).  Slurm-free, unit-tested.
 */
#ifndef ORRERY_ADMIN_RECORD_H
#define ORRERY_ADMIN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORRERY_ADMIN_TAG "ORR1:"

typedef struct orrery_admin_record {
	int64_t period_us, shift_us, epoch_us;
	double score_min, score_mean;
	size_t links;
	const char *profile;	/* canonical resolved profile, may be NULL */
	/* The profile the job asked for (canonical when it parses, else as
	 * written), may be NULL; from_default: orrery.conf's
	 * default_profile, not the job's own --comm-profile. */
	const char *requested;
	bool from_default;
	/* Why orrery did not choose the job's nodes ("conf_error",
	 * "option:spread-job", ...), NULL or "" when it did. */
	const char *fallback;
	/* Seconds admission (orrery.conf hold=) held the job before it
	 * started; 0: never held. */
	int64_t held_s;
	/* false: no placement fields (period_us ... profile): the job got
	 * no evaluation, only requested and fallback. */
	bool placed;
} orrery_admin_record_t;

/* "ORR1:period_us=...,profile_b64=...,requested_b64=...,fallback=...,held_s=..."
 * (no spaces; held_s only when above 0); with !placed
 * "ORR1:requested_b64=...,fallback=...".
 * A fallback reason holds [a-z0-9:_-] only (others become '_').
 * malloc()ed. */
char *orrery_admin_record_format(const orrery_admin_record_t *r);

/* AdminComment with `record` in place of any earlier ORR1: token; other
 * space-separated tokens (e.g. jobstats' JS1:) are kept in order.
 * old may be NULL.  malloc()ed. */
char *orrery_admin_comment_merge(const char *old, const char *record);

/* Find and decode the ORR1: record in an AdminComment (as sacct prints it).
 * Returns 1 and fills *r when found and well-formed; r->profile,
 * r->requested and r->fallback then point into malloc()ed strings the
 * caller frees with orrery_admin_record_clear() (NULL if absent or not
 * printable ASCII); r->placed says whether period_us was there.  Returns 0 when there is no ORR1: record, -1 when there
 * is one but it is malformed (numbers that do not parse).  Unknown keys are
 * skipped: later writers of version 1 may add fields. */
int orrery_admin_record_parse(const char *admin_comment,
			      orrery_admin_record_t *r);
/* Free what orrery_admin_record_parse() allocated in *r. */
void orrery_admin_record_clear(orrery_admin_record_t *r);

#endif
