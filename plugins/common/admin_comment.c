/*
 * admin_comment - replace one writer's tokens in an AdminComment.
 */
#include <stdlib.h>
#include <string.h>

#include "admin_comment.h"

int orr_token_has_prefix(const char *tok, size_t n, const void *arg)
{
	const char *prefix = arg;
	size_t pl = strlen(prefix);

	return n >= pl && strncmp(tok, prefix, pl) == 0;
}

int orr_token_is_node(const char *tok, size_t n, const void *arg)
{
	const struct orr_node_token *t = arg;
	size_t tl = strlen(t->tag), nl = strlen(t->node);

	return n >= tl + 5 + nl && strncmp(tok, t->tag, tl) == 0 &&
	       strncmp(tok + tl, "node=", 5) == 0 &&
	       strncmp(tok + tl + 5, t->node, nl) == 0 &&
	       (n == tl + 5 + nl || tok[tl + 5 + nl] == ',');
}

void orr_comment_each(const char *comment, const char *prefix,
		      void (*fn)(const char *tok, size_t n, void *arg),
		      void *arg)
{
	const char *p = comment;

	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n && orr_token_has_prefix(p, n, prefix))
			fn(p, n, arg);
		p += n;
		p += strspn(p, " ");
	}
}

char *orr_comment_replace(const char *old, orr_token_match_t match,
			  const void *arg, const char *token)
{
	size_t tl = token ? strlen(token) : 0;
	char *out = malloc((old ? strlen(old) : 0) + tl + 2);
	const char *p = old;
	size_t o = 0;

	if (!out)
		return NULL;
	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n && !match(p, n, arg)) {
			if (o)
				out[o++] = ' ';
			memcpy(out + o, p, n);
			o += n;
		}
		p += n;
		p += strspn(p, " ");
	}
	if (tl) {
		if (o)
			out[o++] = ' ';
		memcpy(out + o, token, tl);
		o += tl;
	}
	out[o] = '\0';
	return out;
}
