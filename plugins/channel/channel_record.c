/*
 * channel_record.c - format and strict parse of the live channel's record
 * (channel_record.h).  Every field is checked: the record crosses from
 * slurmctld to root-owned files on the nodes and into training processes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channel_record.h"
#include "../common/admin_comment.h"

int orrc_format_token(const orrc_record_t *r, char *out, size_t len)
{
	int n = snprintf(out, len, ORRC_TAG "gen=%" PRIu64 ",gate=%s,period_us=%" PRId64
			 ",shift_us=%" PRId64 ",epoch_us=%" PRId64 ",apply_us=%" PRId64
			 ",pub_us=%" PRId64 ",mode=%s",
			 r->gen, r->gate ? "on" : "off", r->period_us, r->shift_us,
			 r->epoch_us, r->apply_us, r->pub_us, r->mode);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int orrc_format_file(uint32_t job_id, const orrc_record_t *r, char *out,
		     size_t len)
{
	int n = snprintf(out, len, "job_id=%" PRIu32 "\ngen=%" PRIu64 "\ngate=%s\n"
			 "period_us=%" PRId64 "\nshift_us=%" PRId64 "\nepoch_us=%" PRId64
			 "\napply_us=%" PRId64 "\npub_us=%" PRId64 "\nmode=%s\n",
			 job_id, r->gen, r->gate ? "on" : "off", r->period_us,
			 r->shift_us, r->epoch_us, r->apply_us, r->pub_us, r->mode);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int orrc_parse_num(const char *s, size_t n, int64_t *out)
{
	char buf[24];
	char *end;
	long long v;

	if (n == 0 || n > 19 || strspn(s, "0123456789") < n)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* One key=value (value of length vn) into r; -1 bad, else the key's bit. */
static int field(orrc_record_t *r, const char *k, size_t kn, const char *v,
		 size_t vn)
{
	static const char *const keys[] = { "gen", "gate", "period_us",
		"shift_us", "epoch_us", "apply_us", "pub_us", "mode" };
	int64_t x = 0;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++)
		if (strlen(keys[i]) == kn && !strncmp(k, keys[i], kn))
			break;
	switch (i) {
	case 1:
		if (vn == 2 && !strncmp(v, "on", 2))
			r->gate = 1;
		else if (vn == 3 && !strncmp(v, "off", 3))
			r->gate = 0;
		else
			return -1;
		return 1 << i;
	case 7:
		if (vn == 0 || vn >= sizeof(r->mode) ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyz") < vn)
			return -1;
		memcpy(r->mode, v, vn);
		r->mode[vn] = '\0';
		return 1 << i;
	case 8:
		return -1;	/* unknown key */
	default:
		if (orrc_parse_num(v, vn, &x) < 0)
			return -1;
		if (i == 0)
			r->gen = (uint64_t)x;
		else if (i == 2)
			r->period_us = x;
		else if (i == 3)
			r->shift_us = x;
		else if (i == 4)
			r->epoch_us = x;
		else if (i == 5)
			r->apply_us = x;
		else
			r->pub_us = x;
		return 1 << i;
	}
}

/* Every key once, and values that make a gate. */
static int complete(const orrc_record_t *r, int seen, char *why, size_t wl)
{
	if (seen != 0xff) {
		snprintf(why, wl, "a key is missing");
		return -1;
	}
	if (r->gen == 0) {
		snprintf(why, wl, "gen=0");
		return -1;
	}
	if (r->gate && (r->period_us <= 0 || r->shift_us >= r->period_us)) {
		snprintf(why, wl, "gate=on with period_us=%" PRId64 " shift_us=%" PRId64,
			 r->period_us, r->shift_us);
		return -1;
	}
	return 1;
}

/* Parse "k=v<sep>k=v..." of length n. */
static int parse_pairs(const char *s, size_t n, char sep, orrc_record_t *r,
		       int *seen, const char *skip_key, char *why, size_t wl)
{
	const char *p = s, *e = s + n;

	while (p < e) {
		const char *q = memchr(p, sep, (size_t)(e - p));
		const char *eq;
		int bit;

		if (!q)
			q = e;
		eq = memchr(p, '=', (size_t)(q - p));
		if (q == p) {	/* empty line / token */
			p = q + 1;
			continue;
		}
		if (!eq) {
			snprintf(why, wl, "'%.*s' is not key=value", (int)(q - p > 32 ? 32 : q - p), p);
			return -1;
		}
		if (skip_key && (size_t)(eq - p) == strlen(skip_key) &&
		    !strncmp(p, skip_key, strlen(skip_key))) {
			p = q + 1;
			continue;
		}
		bit = field(r, p, (size_t)(eq - p), eq + 1, (size_t)(q - eq - 1));
		if (bit < 0 || (*seen & bit)) {
			snprintf(why, wl, "%s field '%.*s'", bit < 0 ? "invalid" : "repeated",
				 (int)(q - p > 40 ? 40 : q - p), p);
			return -1;
		}
		*seen |= bit;
		p = q + 1;
	}
	return 0;
}

int orrc_find_token(const char *comment, const char *tag, const char **tok,
		    size_t *n, char *why, size_t wl)
{
	const size_t tl = strlen(tag);
	const char *p = comment;

	*tok = NULL;
	*n = 0;
	while (p && *p) {
		size_t l = strcspn(p, " ");

		if (l >= tl && !strncmp(p, tag, tl)) {
			if (*tok) {
				snprintf(why, wl, "two %s records", tag);
				*tok = NULL;
				return -1;
			}
			*tok = p + tl;
			*n = l - tl;
		}
		p += l;
		while (*p == ' ')
			p++;
	}
	return *tok ? 1 : 0;
}

int orrc_parse_comment(const char *ac, orrc_record_t *r, char *why,
		       size_t wl)
{
	const char *tok;
	size_t n;
	int seen = 0, rc;

	memset(r, 0, sizeof(*r));
	if ((rc = orrc_find_token(ac, ORRC_TAG, &tok, &n, why, wl)) <= 0)
		return rc;
	if (parse_pairs(tok, n, ',', r, &seen, NULL, why, wl) < 0)
		return -1;
	return complete(r, seen, why, wl);
}

int orrc_parse_file(const char *text, uint32_t job_id, orrc_record_t *r,
		    char *why, size_t wl)
{
	char want[32];
	int seen = 0;
	size_t n = strlen(text);

	memset(r, 0, sizeof(*r));
	snprintf(want, sizeof(want), "job_id=%" PRIu32 "\n", job_id);
	if (strncmp(text, want, strlen(want)) != 0) {
		snprintf(why, wl, "not the record of job %" PRIu32, job_id);
		return -1;
	}
	if (parse_pairs(text + strlen(want), n - strlen(want), '\n', r, &seen,
			"job_id", why, wl) < 0)
		return -1;
	return complete(r, seen, why, wl);
}

char *orrc_comment_replace(const char *old, const char *tag,
			   const char *token)
{
	return orr_comment_replace(old, orr_token_has_prefix, tag, token);
}
