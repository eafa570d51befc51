/*
 * fuzz_util.h - helpers shared by the libFuzzer targets (tests/fuzz/).
 *
 * The targets feed arbitrary bytes to orrery's parsers exactly as the
 * daemons and tools do.  Besides "no crash, no leak, no undefined
 * behaviour" (ASan + UBSan) they check the API contract: a failing call
 * returns a negative orrery_rc with a one-line, NUL-terminated message,
 * and leaves no object behind.
 */
#ifndef ORRERY_FUZZ_UTIL_H
#define ORRERY_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <orrery.h>

/* abort() is what libFuzzer reports as a crash, with the input saved. */
#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz check failed: %s: ", #cond);     \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

/* An error a call reported must name the problem on one line. */
static inline void fuzz_check_error(int rc, const orrery_error_t *err)
{
	size_t n;

	FUZZ_CHECK(rc < 0 && rc >= ORRERY_EINTERNAL, "rc %d", rc);
	FUZZ_CHECK(rc != ORRERY_EINTERNAL, "internal error: %s", err->message);
	FUZZ_CHECK(err->code == rc, "err.code %d, rc %d", err->code, rc);
	n = strnlen(err->message, ORRERY_ERRMSG_MAX);
	FUZZ_CHECK(n > 0 && n < ORRERY_ERRMSG_MAX, "message length %zu", n);
	FUZZ_CHECK(!memchr(err->message, '\n', n), "newline in '%s'", err->message);
}

/* A NUL-terminated copy of the fuzz input (malloc()ed). */
static inline char *fuzz_cstring(const unsigned char *data, size_t size)
{
	char *s = (char *)malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
