/*
 * hostlist_slurm.c - orrery_hostlist_fn over libslurm (see the header).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist_slurm.h"

/* libslurm reads an unbalanced "n[1-4" as the names "n[1", ..., "n4" and
 * "n]" instead of refusing it: insist on balanced, unnested brackets. */
static int brackets_ok(const char *expr)
{
	int depth = 0;

	for (const char *c = expr; *c; c++) {
		if (*c == '[' && ++depth > 1)
			return 0;
		if (*c == ']' && --depth < 0)
			return 0;
	}
	return depth == 0;
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
	hostlist_t hl;
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
	hostlist_t hl = slurm_hostlist_create(NULL);
	char *s;

	if (!hl)
		return NULL;
	for (size_t i = 0; i < n; i++)
		slurm_hostlist_push_host(hl, names[i]);
	s = slurm_hostlist_ranged_string_malloc(hl);
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
