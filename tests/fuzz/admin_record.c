/*
 * admin_record - the ORR1: AdminComment record: decoding what sacct prints
 * (orrery-sacct, any AdminComment a site or user tool may have put there)
 * and merging our record into an existing AdminComment in slurmctld.
 *
 * Oracle: a decoded profile is printable ASCII; merging keeps every other
 * token and leaves exactly one ORR1: record that decodes to what was
 * encoded.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin_record.h"

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz check failed: %s\n", #cond); abort(); } } while (0)

static size_t count_tag(const char *s)
{
	size_t n = 0;
	const char *p = s;

	if (!strncmp(p, ORRERY_ADMIN_TAG, 5))
		n++;
	while ((p = strstr(p, " " ORRERY_ADMIN_TAG))) {
		n++;
		p++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	orrery_admin_record_t r, back;
	char *rec, *merged;
	int rc;

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';

	rc = orrery_admin_record_parse(s, &r);
	CHECK(rc >= -1 && rc <= 1);
	if (rc == 1 && r.profile) {
		for (const char *p = r.profile; *p; p++)
			CHECK(*p >= 0x20 && *p <= 0x7e);
	}
	if (rc == 1 && r.requested) {
		for (const char *p = r.requested; *p; p++)
			CHECK(*p >= 0x20 && *p <= 0x7e);
	}
	if (rc != 1)
		CHECK(r.profile == NULL && r.requested == NULL && r.fallback == NULL);
	orrery_admin_record_clear(&r);

	/* slurmctld merging a fresh record into this AdminComment. */
	memset(&r, 0, sizeof(r));
	r.period_us = 250000;
	r.shift_us = 12345;
	r.epoch_us = 1764460800000000LL;
	r.score_min = 0.75;
	r.score_mean = 0.9;
	r.links = 3;
	r.profile = "period=250ms;up=0ms+80ms@45Gbps";
	r.requested = "resnet50:batch=64";
	r.fallback = "option:spread-job";
	r.placed = true;
	rec = orrery_admin_record_format(&r);
	CHECK(rec && !strchr(rec, ' '));
	merged = orrery_admin_comment_merge(s, rec);
	CHECK(merged);
	CHECK(count_tag(merged) == 1);
	rc = orrery_admin_record_parse(merged, &back);
	CHECK(rc == 1);
	CHECK(back.period_us == r.period_us && back.shift_us == r.shift_us &&
	      back.links == r.links);
	CHECK(back.placed);
	CHECK(back.profile && !strcmp(back.profile, r.profile));
	CHECK(back.requested && !strcmp(back.requested, r.requested));
	CHECK(back.fallback && !strcmp(back.fallback, r.fallback));
	orrery_admin_record_clear(&back);
	/* Every other non-empty token survives, in order. */
	{
		const char *m = merged;
		char *copy = strdup(s), *save = NULL, *t;

		CHECK(copy);
		for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			const char *at;

			if (!strncmp(t, ORRERY_ADMIN_TAG, 5))
				continue;
			at = strstr(m, t);
			CHECK(at != NULL);
			m = at + strlen(t);
		}
		free(copy);
	}
	free(merged);
	free(rec);
	free(s);
	return 0;
}
