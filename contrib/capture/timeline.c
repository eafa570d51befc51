/*
 * timeline.c - strict, bounded reader of orrery collective timelines
 * (timeline.h).  Every problem is reported as "PATH:LINE: what", and the
 * line is quoted (truncated) so the user can find it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "timeline.h"

static const struct {
	const char *name;
	enum tl_op op;
} op_names[] = {
	{ "allreduce", TL_OP_ALLREDUCE },
	{ "allgather", TL_OP_ALLGATHER },
	{ "reducescatter", TL_OP_REDUCESCATTER },
	{ "broadcast", TL_OP_BROADCAST },
	{ "reduce", TL_OP_REDUCE },
	{ "alltoall", TL_OP_ALLTOALL },
	{ "send", TL_OP_SEND },
	{ "recv", TL_OP_RECV },
};

/* "AllReduce", "all_reduce", "ncclAllReduce", "allreduce" are one op. */
enum tl_op tl_op_parse(const char *s)
{
	char norm[TL_NAME_MAX + 1];
	size_t k = 0;

	if (!strncasecmp(s, "nccl", 4))
		s += 4;
	for (; *s && k < TL_NAME_MAX; s++)
		if (*s != '_' && *s != '-')
			norm[k++] = (char)tolower((unsigned char)*s);
	norm[k] = '\0';
	for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
		if (!strcmp(norm, op_names[i].name))
			return op_names[i].op;
	return TL_OP_OTHER;
}

const char *tl_op_name(enum tl_op op)
{
	for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
		if (op_names[i].op == op)
			return op_names[i].name;
	return "other";
}

struct reader {
	const char *path;
	size_t lineno;
	char *err;
	size_t errlen;
};

static int rfail(struct reader *r, const char *line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rfail(struct reader *r, const char *line, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (line)
		snprintf(r->err, r->errlen, "%s:%zu: %s (line: '%.60s%s')",
			 r->path, r->lineno, what, line,
			 strlen(line) > 60 ? "..." : "");
	else
		snprintf(r->err, r->errlen, "%s:%zu: %s", r->path, r->lineno,
			 what);
	return -1;
}

/* A name token: printable ASCII without spaces, 1..TL_NAME_MAX bytes. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > TL_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

/* Whole decimal without sign into [0, max]; 0 on success. */
static int parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int parse_header(struct reader *r, char *line, struct timeline *tl)
{
	char *save = NULL;

	for (char *kv = strtok_r(line + 1, " \t", &save); kv;
	     kv = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(kv, '=');
		uint64_t v;

		if (!eq)
			return rfail(r, NULL, "header field '%.40s' is not KEY=VALUE", kv);
		*eq = '\0';
		const char *val = eq + 1;
		if (!strcmp(kv, "host") || !strcmp(kv, "source")) {
			if (!name_ok(val))
				return rfail(r, NULL, "header %s='%.40s': expected 1..%d printable characters",
					     kv, val, TL_NAME_MAX);
			strcpy(!strcmp(kv, "host") ? tl->host : tl->source, val);
		} else if (!strcmp(kv, "pid") || !strcmp(kv, "rank")) {
			if (parse_dec(val, 1u << 30, &v))
				return rfail(r, NULL, "header %s='%.40s': expected a whole number",
					     kv, val);
			if (!strcmp(kv, "pid"))
				tl->pid = (long)v;
			else
				tl->rank = (long)v;
		}
		/* Other keys: later format additions, ignored. */
	}
	return 0;
}

static int comm_index(struct timeline *tl, const char *name, uint32_t *out)
{
	for (size_t i = 0; i < tl->n_comms; i++)
		if (!strcmp(tl->comms[i], name)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (tl->n_comms >= 4096)
		return -1;
	char **c = realloc(tl->comms, (tl->n_comms + 1) * sizeof *c);
	if (!c)
		return -1;
	tl->comms = c;
	if (!(c[tl->n_comms] = strdup(name)))
		return -1;
	*out = (uint32_t)tl->n_comms++;
	return 0;
}

static int parse_event(struct reader *r, char *line, struct timeline *tl,
		       struct tl_event *ev)
{
	char copy[TL_MAX_LINE + 2];
	char *f[6], *save = NULL;
	size_t nf = 0;
	uint64_t s, e;

	strcpy(copy, line);  /* same size as the caller's buffer */
	for (char *t = strtok_r(line, " \t", &save); t && nf < 6;
	     t = strtok_r(NULL, " \t", &save))
		f[nf++] = t;
	if (nf != 5)
		return rfail(r, copy, "expected 5 fields 'start_us end_us bytes comm op', got %s",
			     nf > 5 ? "more" : nf == 0 ? "none" : "fewer");
	if (parse_dec(f[0], INT64_MAX / 2, &s))
		return rfail(r, copy, "start_us '%.24s' is not a whole number of microseconds", f[0]);
	if (parse_dec(f[1], INT64_MAX / 2, &e))
		return rfail(r, copy, "end_us '%.24s' is not a whole number of microseconds", f[1]);
	if (e < s)
		return rfail(r, copy, "end_us %" PRIu64 " is before start_us %" PRIu64, e, s);
	if (parse_dec(f[2], UINT64_MAX / 64, &ev->bytes))
		return rfail(r, copy, "bytes '%.24s' is not a whole number", f[2]);
	if (!name_ok(f[3]))
		return rfail(r, copy, "communicator '%.24s': expected 1..%d printable characters",
			     f[3], TL_NAME_MAX);
	if (!name_ok(f[4]))
		return rfail(r, copy, "op '%.24s': expected 1..%d printable characters",
			     f[4], TL_NAME_MAX);
	if (comm_index(tl, f[3], &ev->comm))
		return rfail(r, copy, "more than 4096 communicators");
	ev->start_us = (int64_t)s;
	ev->end_us = (int64_t)e;
	ev->op = tl_op_parse(f[4]);
	return 0;
}

/* Merge sort by start (stable, O(n log n) worst case). */
static void msort_rec(struct tl_event *a, struct tl_event *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2, i = 0, j = h, k = 0;
	msort_rec(a, tmp, h);
	msort_rec(a + h, tmp, n - h);
	while (i < h && j < n)
		tmp[k++] = a[j].start_us < a[i].start_us ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static void msort_events(struct tl_event *a, size_t n)
{
	struct tl_event *tmp = malloc(n * sizeof *tmp);

	if (!tmp) {  /* fall back to insertion order fix-up, O(n) when nearly sorted */
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 && a[j].start_us < a[j - 1].start_us; j--) {
				struct tl_event t = a[j];
				a[j] = a[j - 1];
				a[j - 1] = t;
			}
		return;
	}
	msort_rec(a, tmp, n);
	free(tmp);
}

int timeline_read(const char *path, struct timeline *tl, size_t *budget,
		  char *err, size_t errlen)
{
	struct reader r = { path, 0, err, errlen };
	char line[TL_MAX_LINE + 2];
	size_t cap = 0, max_line = 0;
	int64_t max_start = 0;
	int sorted = 1;
	struct stat st;
	FILE *fp;
	int rc = -1;

	memset(tl, 0, sizeof *tl);
	tl->pid = tl->rank = -1;
	if (!(tl->path = strdup(path)))
		return rfail(&r, NULL, "out of memory");
	fp = fopen(path, "re");
	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(fp), &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	for (;;) {
		int nl = 0, c = 0;
		size_t len = 0;

		/* getc rather than fgets: a NUL byte must not hide the rest
		 * of its line, and no line is read without bound. */
		while (len <= TL_MAX_LINE && (c = getc_unlocked(fp)) != EOF) {
			if (c == '\n') {
				nl = 1;
				break;
			}
			line[len++] = (char)c;
		}
		if (len == 0 && !nl)
			break;
		line[len] = '\0';
		r.lineno++;
		if (len > TL_MAX_LINE) {
			rfail(&r, NULL, "line longer than %d bytes", TL_MAX_LINE);
			goto out;
		}
		if (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)line[i] < ' ' && line[i] != '\t') ||
			    (unsigned char)line[i] > '~') {
				rfail(&r, NULL, "control or non-ASCII byte 0x%02x at column %zu",
				      (unsigned char)line[i], i + 1);
				goto out;
			}
		if (r.lineno == 1) {
			char fmt[32];
			int ver, used = 0;
			if (sscanf(line, "# %31s %d%n", fmt, &ver, &used) != 2 ||
			    strcmp(fmt, "orrery-timeline") || line[used]) {
				rfail(&r, line, "not an orrery timeline: the first line must be '# orrery-timeline 1'");
				goto out;
			}
			if (ver != 1) {
				rfail(&r, NULL, "timeline format version %d not supported (this tool reads version 1)",
				      ver);
				goto out;
			}
			continue;
		}
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			continue;
		if (*p == '#') {
			/* The host line is the header's second line; later
			 * '#' lines are comments. */
			if (r.lineno == 2 && parse_header(&r, line, tl))
				goto out;
			continue;
		}
		if (tl->n >= TL_MAX_EVENTS || *budget == 0) {
			rfail(&r, NULL, "more than %d events (per file) or %d (all files)",
			      TL_MAX_EVENTS, TL_MAX_TOTAL);
			goto out;
		}
		if (tl->n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct tl_event *nev = realloc(tl->ev, ncap * sizeof *nev);
			if (!nev) {
				rfail(&r, NULL, "out of memory");
				goto out;
			}
			tl->ev = nev;
			cap = ncap;
		}
		struct tl_event *ev = &tl->ev[tl->n];
		if (parse_event(&r, line, tl, ev))
			goto out;
		/* Recorders write at completion, so lines are in start order
		 * only roughly; a line far before the latest start is a clock
		 * step or two files pasted together. */
		if (tl->n > 0 && ev->start_us < max_start - TL_REORDER_US) {
			rfail(&r, NULL, "start_us %" PRId64 " is %.3f s before line %zu's %" PRId64
			      " (times must not go back more than %d s: clock step, or files mixed?)",
			      ev->start_us, (max_start - ev->start_us) / 1e6,
			      max_line, max_start, TL_REORDER_US / 1000000);
			goto out;
		}
		if (tl->n == 0 || ev->start_us > max_start) {
			max_start = ev->start_us;
			max_line = r.lineno;
		}
		sorted = sorted && (tl->n == 0 || ev->start_us >= tl->ev[tl->n - 1].start_us);
		tl->n++;
		(*budget)--;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		goto out;
	}
	if (r.lineno == 0) {
		snprintf(err, errlen, "%s: empty file (expected '# orrery-timeline 1')", path);
		goto out;
	}
	if (tl->n == 0) {
		snprintf(err, errlen, "%s: no collectives recorded", path);
		goto out;
	}
	if (!sorted)  /* stable: equal starts keep their file order */
		msort_events(tl->ev, tl->n);
	rc = 0;
out:
	fclose(fp);
	return rc;
}

void timeline_free(struct timeline *tl)
{
	free(tl->path);
	free(tl->ev);
	for (size_t i = 0; i < tl->n_comms; i++)
		free(tl->comms[i]);
	free(tl->comms);
	memset(tl, 0, sizeof *tl);
}
