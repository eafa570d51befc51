/*
 * measure_record.c - format and strict parse of a job's measured
 * iteration (measure_record.h).  The controller parses what a node wrote
 * into SystemComment; every field is checked all the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_record.h"
#include "measure_record.h"

static int valid(const orrm_record_t *r)
{
	if (!r || r->seq == 0 || r->n == 0 || r->n > ORRM_MAX_WINDOWS)
		return 0;
	for (unsigned i = 0; i < r->n; i++)
		if (r->iter_us[i] <= 0 || r->iter_us[i] > ORRM_ITER_MAX_US)
			return 0;
	return 1;
}

int orrm_format_token(const orrm_record_t *r, char *out, size_t len)
{
	size_t k;
	int n;

	if (!valid(r))
		return -1;
	n = snprintf(out, len, ORRM_TAG "seq=%" PRIu64 ",iter_us=", r->seq);
	if (n < 0 || (size_t)n >= len)
		return -1;
	k = (size_t)n;
	for (unsigned i = 0; i < r->n; i++) {
		n = snprintf(out + k, len - k, "%s%" PRId64, i ? ":" : "",
			     r->iter_us[i]);
		if (n < 0 || (size_t)n >= len - k)
			return -1;
		k += (size_t)n;
	}
	return 0;
}

/* "A[:B...]", at most max numbers, into v (*n of them). */
static int list(const char *s, size_t n, unsigned max, int64_t *v,
		unsigned *count)
{
	const char *e = s + n;

	*count = 0;
	for (;;) {
		const char *c = memchr(s, ':', (size_t)(e - s));

		if (!c)
			c = e;
		if (*count == max || orrc_parse_num(s, (size_t)(c - s), &v[*count]) < 0)
			return -1;
		(*count)++;
		if (c == e)
			return 0;
		s = c + 1;
	}
}

int orrm_parse_comment(const char *comment, orrm_record_t *r, char *why,
		       size_t wl)
{
	const char *tok, *p, *e;
	size_t n;
	int seen = 0, rc;

	memset(r, 0, sizeof(*r));
	if ((rc = orrc_find_token(comment, ORRM_TAG, &tok, &n, why, wl)) <= 0)
		return rc;
	e = tok + n;
	for (p = tok; p < e;) {
		const char *q = memchr(p, ',', (size_t)(e - p));
		const char *eq;
		int64_t vals[ORRM_MAX_WINDOWS];
		unsigned nv;
		int bit;

		if (!q)
			q = e;
		eq = memchr(p, '=', (size_t)(q - p));
		if (!eq) {
			snprintf(why, wl, "'%.*s' is not key=value",
				 (int)(q - p > 32 ? 32 : q - p), p);
			return -1;
		}
		if (eq - p == 3 && !strncmp(p, "seq", 3))
			bit = 1;
		else if (eq - p == 7 && !strncmp(p, "iter_us", 7))
			bit = 2;
		else
			bit = 0;
		if (!bit || (seen & bit) || list(eq + 1, (size_t)(q - eq - 1),
						   bit == 1 ? 1 : ORRM_MAX_WINDOWS,
						   vals, &nv) < 0) {
			snprintf(why, wl, "%s field '%.*s'",
				 bit && (seen & bit) ? "repeated" : "invalid",
				 (int)(q - p > 40 ? 40 : q - p), p);
			return -1;
		}
		seen |= bit;
		if (bit == 1) {
			r->seq = (uint64_t)vals[0];
		} else {
			r->n = nv;
			memcpy(r->iter_us, vals, nv * sizeof(*vals));
		}
		p = q + 1;
	}
	if (seen != 3) {
		snprintf(why, wl, "a key is missing (seq and iter_us)");
		return -1;
	}
	if (!valid(r)) {
		snprintf(why, wl, "seq=%" PRIu64 " or an iter_us out of range (1..%lld)",
			 r->seq, (long long)ORRM_ITER_MAX_US);
		return -1;
	}
	return 1;
}
