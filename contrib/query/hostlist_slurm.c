/*
 * hostlist_slurm.c - orrery_hostlist_fn over libslurm (see the header).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist_slurm.h"

/* libslurm reads an unbalanced "n[1-4" as the names "n[1", ..., "n4" and
 * "n]", and leaks (and logs to stderr) on a malformed range such as
 * "n[1-x]".  Check the bracket syntax first: balanced, unnested, and
 * inside only ranges "A" or "A-B" of digits separated by commas. */
static int brackets_ok(const char *expr)
{
	int in = 0, digits = 0, dash = 0;
	unsigned long long lo = 0, v = 0;

	for (const char *c = expr; *c; c++) {
		if (!in) {
			if (*c == ']')
				return 0;
			if (*c == '[')
				in = 1, digits = 0, dash = 0, v = 0;
			continue;
		}
		if (*c >= '0' && *c <= '9') {
			if (++digits > 18)
				return 0;
			v = v * 10 + (unsigned long long)(*c - '0');
		} else if (*c == '-' && digits && !dash) {
			dash = 1, digits = 0, lo = v, v = 0;
		} else if ((*c == ',' || *c == ']') && digits) {
			if (dash && v < lo)  /* "09-2": a descending range */
				return 0;
			digits = 0, dash = 0, v = 0;
			if (*c == ']')
				in = 0;
		} else {
			return 0;
		}
	}
	return !in;
}

#ifdef HAVE_SLURM_SLURM_H
#include <slurm/slurm.h>

int hostlist_slurm_available(void)
{
	return 1;
}

int hostlist_slurm_expand(const char *expr, void *ctx,
			  void (*emit)(const char *host, void *ectx),
			  void *ectx)
{
	struct hostlist *hl;	/* hostlist_t (22.05), hostlist_t * (23.11+) */
	char *host;

	(void)ctx;
	if (!expr || !*expr || !emit || !brackets_ok(expr))
		return -1;
	hl = slurm_hostlist_create(expr);
	if (!hl)
		return -1;
	if (slurm_hostlist_count(hl) > HOSTLIST_SLURM_MAX_HOSTS ||
	    slurm_hostlist_count(hl) <= 0) {
		slurm_hostlist_destroy(hl);
		return -1;
	}
	while ((host = slurm_hostlist_shift(hl))) {
		emit(host, ectx);
		free(host);
	}
	slurm_hostlist_destroy(hl);
	return 0;
}

char *hostlist_slurm_compress(const char *const *names, size_t n)
{
	struct hostlist *hl = slurm_hostlist_create(NULL);
	size_t cap = 256;
	char *s = NULL;

	if (!hl)
		return NULL;
	for (size_t i = 0; i < n; i++)
		slurm_hostlist_push_host(hl, names[i]);
	/* slurm_hostlist_ranged_string() is in every release (the _malloc
	 * variant went in 23.11); it fails when buf is too small: grow. */
	for (;;) {
		char *grown = realloc(s, cap);

		if (!grown) {
			free(s);
			s = NULL;
			break;
		}
		s = grown;
		if (slurm_hostlist_ranged_string(hl, cap, s) >= 0)
			break;
		if (cap > (64u << 20)) {	/* no real list is this long */
			free(s);
			s = NULL;
			break;
		}
		cap *= 2;
	}
	slurm_hostlist_destroy(hl);
	return s;
}

#else /* !HAVE_SLURM_SLURM_H */

int hostlist_slurm_available(void)
{
	return 0;
}

int hostlist_slurm_expand(const char *expr, void *ctx,
			  void (*emit)(const char *host, void *ectx),
			  void *ectx)
{
	char *copy, *tok, *save = NULL;

	(void)ctx;
	if (!expr || !*expr || !emit || strpbrk(expr, "[]"))
		return -1;
	copy = strdup(expr);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		emit(tok, ectx);
	free(copy);
	return 0;
}

char *hostlist_slurm_compress(const char *const *names, size_t n)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, names[i]);
	}
	return s;
}

#endif
