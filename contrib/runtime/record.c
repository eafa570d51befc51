/*
 * record.c - record mode: one line per collective, for profile capture
 * (orrery-timeline(5)).
 *
 * ORRERY_RECORD=PREFIX turns it on; the file is PREFIX.<host>.<pid>.timeline.
 * Memory is bounded: records are buffered RECORD_BUF at a time (two
 * buffers of about 256 KiB: one fills while the writer thread appends the
 * other, writer.c) and appended to the file whenever the buffer fills, at
 * the first collective or gated phase 2 s or more after the last append
 * (rt_tick_locked: a killed process never reaches finish) and at finish.
 * The file is bounded too: after ORRERY_RECORD_MAX_LINES lines (default
 * 1,000,000, about 60 MB) later collectives are counted as dropped, and a
 * "# dropped N" comment says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_internal.h"

#define RECORD_BUF 4096
#define RECORD_MAX_LINES_DEFAULT 1000000ULL
#define RECORD_MAX_LINES_LIMIT 100000000ULL
#define COMM_MAX 31

static const char *const ops[] = { "allreduce", "allgather", "reducescatter",
				   "broadcast", "reduce", "send", "recv",
				   "alltoall" };

struct rec_entry {
	int64_t start_us, end_us;
	uint64_t bytes;
	char comm[COMM_MAX + 1];
	uint8_t op;
};

/* rec.f, rec.io_failed and the spare buffer belong to whoever writes: the
 * writer thread while it is busy, else a caller holding rt.lock with the
 * writer idle (writer.c). */
static struct {
	int enabled;
	char path[RT_PATH_MAX];
	size_t stem;              /* length of "PREFIX.<host>." in path */
	char source[16];
	FILE *f;
	int failed;               /* the file could not be written: stop */
	int io_failed;            /* what the writer found, read into failed */
	struct rec_entry *buf, *spare;
	size_t n;
	uint64_t max_lines;
	uint64_t count;           /* accepted (buffered or written) */
	uint64_t dropped;
	uint64_t dropped_noted;   /* drops already noted in the file */
} rec = { .source = "app" };

/* PREFIX.<host>.<pid>.timeline: the pid of the process that records. */
static int name_for_pid(void)
{
	int n = snprintf(rec.path + rec.stem, sizeof(rec.path) - rec.stem,
			 "%ld.timeline", (long)getpid());

	return n < 0 || (size_t)n >= sizeof(rec.path) - rec.stem ? -1 : 0;
}

void rec_init(void)
{
	const char *prefix = getenv("ORRERY_RECORD");
	const char *max = getenv("ORRERY_RECORD_MAX_LINES");
	int n;

	if (!prefix || !prefix[0])
		return;
	rec.max_lines = RECORD_MAX_LINES_DEFAULT;
	if (max) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(max, &end, 10);
		if (errno || *end || !max[0] || max[0] == '-' || v == 0 ||
		    v > RECORD_MAX_LINES_LIMIT)
			rt_log(1, RT_PREFIX "ORRERY_RECORD_MAX_LINES='%.32s': not in 1..%llu; using %llu",
			       max, RECORD_MAX_LINES_LIMIT, RECORD_MAX_LINES_DEFAULT);
		else
			rec.max_lines = v;
	}
	n = snprintf(rec.path, sizeof(rec.path), "%s.%s.", prefix, rt.host);
	if (n > 0)
		rec.stem = (size_t)n;
	if (n < 0 || (size_t)n >= sizeof(rec.path) || name_for_pid() < 0) {
		rt_log(1, RT_PREFIX "ORRERY_RECORD: prefix too long: not recording");
		return;
	}
	rec.buf = calloc(RECORD_BUF, sizeof(*rec.buf));
	rec.spare = calloc(RECORD_BUF, sizeof(*rec.spare));
	if (!rec.buf || !rec.spare) {
		rt_log(1, RT_PREFIX "ORRERY_RECORD: out of memory: not recording");
		return;
	}
	rec.enabled = 1;
	rt_log(1, RT_PREFIX "recording collectives to %s", rec.path);
}

/* fork(): the parent's lines reach its file once.  What stdio holds is
 * written before the fork; the child drops the parent's buffered lines
 * and its copy of the parent's file, and records what it does itself to
 * a file of its own pid (opened when it first has a line to write). */
void rec_fork_prepare(void)
{
	if (rec.f)
		fflush(rec.f);
}

void rec_fork_child(void)
{
	if (!rec.enabled)
		return;
	rec.n = 0;
	if (rec.f)
		fclose(rec.f);	/* its buffer is empty: writes nothing */
	rec.f = NULL;
	rec.count = rec.dropped = rec.dropped_noted = 0;
	if (name_for_pid() < 0)
		rec.failed = rec.io_failed = 1;
}

int rec_enabled(void)
{
	return rec.enabled;
}

uint64_t rec_count(void)
{
	return rec.count;
}

uint64_t rec_dropped(void)
{
	return rec.dropped;
}

static int rec_open(const char *source)
{
	int fd;

	fd = open(rec.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(rec.f = fdopen(fd, "w"))) {
		rt_log(1, RT_PREFIX "cannot write %s: %s: not recording", rec.path, strerror(errno));
		if (fd >= 0)
			close(fd);
		rec.io_failed = 1;
		return -1;
	}
	fprintf(rec.f, "# orrery-timeline 1\n");
	fprintf(rec.f, "# host=%s pid=%ld rank=%ld source=%s\n", rt.host,
		(long)getpid(), rt.rank, source);
	return 0;
}

/* The writer's side: append a batch (no lock; see above). */
void rec_write_batch(const struct rec_batch *b)
{
	size_t i;

	if (!b->n || rec.io_failed)
		return;
	if (!rec.f && rec_open(b->source) < 0)
		return;
	for (i = 0; i < b->n; i++) {
		const struct rec_entry *e = &b->e[i];

		fprintf(rec.f, "%" PRId64 " %" PRId64 " %" PRIu64 " %s %s\n",
			e->start_us, e->end_us, e->bytes, e->comm, ops[e->op]);
	}
	if (fflush(rec.f) != 0 || ferror(rec.f)) {
		rt_log(1, RT_PREFIX "writing %s: %s: not recording any more", rec.path,
		       strerror(errno));
		rec.io_failed = 1;
	}
}

/* Lock held, writer idle: hand the buffered lines over (b->n 0: none),
 * and stop recording if the writer could not write the last ones. */
void rec_take_locked(struct rec_batch *b)
{
	struct rec_entry *full = rec.buf;

	b->n = 0;
	if (rec.io_failed)
		rec.failed = 1;
	if (!rec.enabled || rec.failed || !rec.n)
		return;
	b->e = full;
	b->n = rec.n;
	memcpy(b->source, rec.source, sizeof(b->source));
	rec.buf = rec.spare;
	rec.spare = full;
	rec.n = 0;
}

/* finish: lock held, writer idle. */
int rec_finish_locked(void)
{
	struct rec_batch b;

	if (!rec.enabled)
		return 0;
	rec_take_locked(&b);
	if (rec.failed)
		return -1;
	rec_write_batch(&b);
	if (!rec.io_failed && !rec.f)
		rec_open(rec.source);	/* a run with no collective: the header */
	if (!rec.io_failed && rec.dropped > rec.dropped_noted) {
		fprintf(rec.f, "# dropped %" PRIu64 " (ORRERY_RECORD_MAX_LINES=%" PRIu64 ")\n",
			rec.dropped, rec.max_lines);
		rec.dropped_noted = rec.dropped;
		if (fflush(rec.f) != 0 || ferror(rec.f)) {
			rt_log(1, RT_PREFIX "writing %s: %s: not recording any more", rec.path,
			       strerror(errno));
			rec.io_failed = 1;
		}
	}
	if (rec.io_failed)
		rec.failed = 1;
	return rec.failed ? -1 : 0;
}

int orrery_runtime_set_source(const char *source)
{
	size_t n = source ? strlen(source) : 0;

	if (n == 0 || n >= sizeof(rec.source) ||
	    strspn(source, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return -1;
	pthread_mutex_lock(&rt.lock);
	memcpy(rec.source, source, n + 1);
	pthread_mutex_unlock(&rt.lock);
	return 0;
}

int orrery_runtime_recording(void)
{
	orrery_runtime_init();
	return rec.enabled && !rec.failed;
}

int orrery_runtime_record(int64_t start_us, int64_t end_us, uint64_t bytes,
			  const char *comm, const char *op)
{
	struct rec_entry *e;
	size_t i, k;
	int rc = 1;

	if (!op || start_us < 0 || end_us < start_us)
		return -1;
	for (k = 0; k < sizeof(ops) / sizeof(*ops); k++)
		if (strcmp(op, ops[k]) == 0)
			break;
	if (k == sizeof(ops) / sizeof(*ops))
		return -1;
	orrery_runtime_init();
	pthread_mutex_lock(&rt.lock);
	if (!rec.enabled || rec.failed) {
		rc = 0;
		goto out;
	}
	if (rec.count >= rec.max_lines) {
		rec.dropped++;
		rc = 0;
		goto out;
	}
	if (rec.n == RECORD_BUF) {	/* full: hand it over, waiting if need be */
		if (wr_submit_locked()) {
			wr_idle_locked();
			wr_submit_locked();
		}
		if (rec.n) {	/* could not be handed over: the file failed */
			rc = 0;
			goto out;
		}
	}
	e = &rec.buf[rec.n++];
	e->start_us = start_us;
	e->end_us = end_us;
	e->bytes = bytes;
	e->op = (uint8_t)k;
	/* A field of a space-separated line: no blanks, printable. */
	for (i = 0; comm && comm[i] && i < COMM_MAX; i++) {
		char c = comm[i];
		e->comm[i] = (c > ' ' && c < 127) ? c : '_';
	}
	if (i == 0)
		e->comm[i++] = '-';
	e->comm[i] = '\0';
	rec.count++;
	rt_tick_locked(end_us);
out:
	pthread_mutex_unlock(&rt.lock);
	return rc;
}
