/* admin_record.c - format and merge the ORR1: AdminComment record. */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin_record.h"

char *orrery_admin_record_format(const orrery_admin_record_t *r)
{
	g_autofree char *b64 = NULL;
	g_autofree char *s = NULL;

	if (r->profile && *r->profile)
		b64 = g_base64_encode((const guchar *) r->profile,
				      strlen(r->profile));
	s = g_strdup_printf(ORRERY_ADMIN_TAG "period_us=%" PRId64
			    ",shift_us=%" PRId64 ",epoch_us=%" PRId64
			    ",score_min=%.4f,score_mean=%.4f,links=%zu,profile_b64=%s",
			    r->period_us, r->shift_us, r->epoch_us,
			    r->score_min, r->score_mean, r->links,
			    b64 ? b64 : "");
	return strdup(s);
}

char *orrery_admin_comment_merge(const char *old, const char *record)
{
	GString *out = g_string_new(NULL);
	g_auto(GStrv) toks = g_strsplit(old ? old : "", " ", -1);

	for (size_t i = 0; toks[i]; i++) {
		if (!*toks[i] || g_str_has_prefix(toks[i], ORRERY_ADMIN_TAG))
			continue;
		if (out->len)
			g_string_append_c(out, ' ');
		g_string_append(out, toks[i]);
	}
	if (record && *record) {
		if (out->len)
			g_string_append_c(out, ' ');
		g_string_append(out, record);
	}
	{
		char *r = strdup(out->str);

		g_string_free(out, TRUE);
		return r;
	}
}
