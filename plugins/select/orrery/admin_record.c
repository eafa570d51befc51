/* admin_record.c - format and merge the ORR1: AdminComment record. */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin_record.h"
#include "../../common/admin_comment.h"

static char *b64_or_empty(const char *s)
{
	if (!s || !*s)
		return g_strdup("");
	return g_base64_encode((const guchar *) s, strlen(s));
}

/* Reasons travel unencoded: keep them to one token of a safe alphabet. */
static bool reason_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		c == ':' || c == '_' || c == '-';
}

char *orrery_admin_record_format(const orrery_admin_record_t *r)
{
	g_autofree char *b64 = b64_or_empty(r->profile);
	g_autofree char *req = b64_or_empty(r->requested);
	g_autofree char *why = g_strdup(r->fallback ? r->fallback : "");
	GString *s = g_string_new(ORRERY_ADMIN_TAG);

	for (char *p = why; *p; p++)
		if (!reason_char(*p))
			*p = '_';
	if (r->placed)
		g_string_append_printf(s, "period_us=%" PRId64
				       ",shift_us=%" PRId64 ",epoch_us=%" PRId64
				       ",score_min=%.4f,score_mean=%.4f,links=%zu,profile_b64=%s,",
				       r->period_us, r->shift_us, r->epoch_us,
				       r->score_min, r->score_mean, r->links,
				       b64);
	g_string_append_printf(s, "requested_b64=%s", req);
	if (r->from_default)
		g_string_append(s, ",requested_from=default");
	if (*why)
		g_string_append_printf(s, ",fallback=%s", why);
	if (r->held_s > 0)
		g_string_append_printf(s, ",held_s=%" PRId64, r->held_s);
	{
		char *out = strdup(s->str);

		g_string_free(s, TRUE);
		return out;
	}
}

void orrery_admin_record_clear(orrery_admin_record_t *r)
{
	free((char *) r->profile);
	free((char *) r->requested);
	free((char *) r->fallback);
	memset(r, 0, sizeof(*r));
}

char *orrery_admin_comment_merge(const char *old, const char *record)
{
	return orr_comment_replace(old, orr_token_has_prefix, ORRERY_ADMIN_TAG,
				   record);
}

static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	gint64 v;

	errno = 0;
	v = g_ascii_strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* The profile travels base64-encoded; accept it back only as printable
 * ASCII of bounded length, since tools print it to terminals. */
static char *decode_profile(const char *b64)
{
	gsize len = 0;
	guchar *raw;
	char *out;

	if (!*b64 || strlen(b64) > 8192)
		return NULL;
	raw = g_base64_decode(b64, &len);
	if (!raw)
		return NULL;
	for (gsize i = 0; i < len; i++)
		if (raw[i] < 0x20 || raw[i] > 0x7e) {
			g_free(raw);
			return NULL;
		}
	out = strndup((const char *) raw, len);
	g_free(raw);
	return out;
}

int orrery_admin_record_parse(const char *admin_comment,
			      orrery_admin_record_t *r)
{
	g_auto(GStrv) toks = NULL;
	const char *rec = NULL;
	int rc = 1;

	memset(r, 0, sizeof(*r));
	if (!admin_comment)
		return 0;
	toks = g_strsplit(admin_comment, " ", -1);
	for (size_t i = 0; toks[i]; i++)
		if (g_str_has_prefix(toks[i], ORRERY_ADMIN_TAG))
			rec = toks[i] + strlen(ORRERY_ADMIN_TAG);
	if (!rec)
		return 0;
	{
		g_auto(GStrv) kv = g_strsplit(rec, ",", 64);

		for (size_t i = 0; kv[i] && rc == 1; i++) {
			char *eq = strchr(kv[i], '=');
			int64_t links = 0;

			if (!eq) {
				rc = -1;
				break;
			}
			*eq++ = '\0';
			if (!strcmp(kv[i], "period_us")) {
				rc = parse_i64(eq, &r->period_us) ? -1 : 1;
				r->placed = true;
			}
			else if (!strcmp(kv[i], "shift_us"))
				rc = parse_i64(eq, &r->shift_us) ? -1 : 1;
			else if (!strcmp(kv[i], "held_s"))
				rc = (parse_i64(eq, &r->held_s) || r->held_s < 0) ? -1 : 1;
			else if (!strcmp(kv[i], "epoch_us"))
				rc = parse_i64(eq, &r->epoch_us) ? -1 : 1;
			else if (!strcmp(kv[i], "score_min"))
				rc = parse_double(eq, &r->score_min) ? -1 : 1;
			else if (!strcmp(kv[i], "score_mean"))
				rc = parse_double(eq, &r->score_mean) ? -1 : 1;
			else if (!strcmp(kv[i], "links")) {
				rc = (parse_i64(eq, &links) || links < 0) ? -1 : 1;
				r->links = (size_t) links;
			} else if (!strcmp(kv[i], "profile_b64")) {
				free((char *) r->profile);
				r->profile = decode_profile(eq);
			} else if (!strcmp(kv[i], "requested_b64")) {
				free((char *) r->requested);
				r->requested = decode_profile(eq);
			} else if (!strcmp(kv[i], "requested_from")) {
				r->from_default = !strcmp(eq, "default");
			} else if (!strcmp(kv[i], "fallback")) {
				bool okr = *eq && strlen(eq) < 64;

				for (const char *p = eq; *p && okr; p++)
					okr = reason_char(*p);
				free((char *) r->fallback);
				r->fallback = okr ? strdup(eq) : NULL;
			}
		}
	}
	if (rc != 1)
		orrery_admin_record_clear(r);
	return rc;
}
