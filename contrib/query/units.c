/*
 * units.c - bandwidths and durations on the command line and in tables.
 * Users type "100Gbps" and read "400 Gb/s" and "80 ms"; the library works
 * in Mb/s and µs.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "query.h"

static int parse_scaled(const char *s, const char *const *units,
			const double *scale, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	for (int i = 0; units[i]; i++) {
		if (!strcasecmp(end, units[i])) {
			*out = v * scale[i];
			return 0;
		}
	}
	return -1;
}

int parse_bandwidth(const char *s, uint64_t *mbps)
{
	static const char *const units[] = { "Mbps", "Mb/s", "M", "Gbps", "Gb/s",
					     "G", "Tbps", "Tb/s", "T", NULL };
	static const double scale[] = { 1, 1, 1, 1e3, 1e3, 1e3, 1e6, 1e6, 1e6 };
	double v;

	if (parse_scaled(s, units, scale, &v) || v < 1 || v > 1e9)
		return -1;
	*mbps = (uint64_t)llround(v);
	return 0;
}

int parse_duration(const char *s, int64_t *us)
{
	static const char *const units[] = { "us", "ms", "s", NULL };
	static const double scale[] = { 1, 1e3, 1e6 };
	double v;

	if (parse_scaled(s, units, scale, &v) || v > 3.6e9)
		return -1;
	*us = (int64_t)llround(v);
	return 0;
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

const char *fmt_bw(char *buf, size_t n, uint64_t mbps)
{
	if (!mbps)
		snprintf(buf, n, "unknown");
	else if (mbps < 1000)
		snprintf(buf, n, "%llu Mb/s", (unsigned long long)mbps);
	else if (mbps % 1000 == 0)
		snprintf(buf, n, "%llu Gb/s", (unsigned long long)(mbps / 1000));
	else
		snprintf(buf, n, "%.1f Gb/s", (double)mbps / 1000.0);
	return buf;
}

const char *fmt_time(char *buf, size_t n, int64_t us)
{
	int64_t a = us < 0 ? -us : us;

	if (a >= 10000000)
		snprintf(buf, n, "%.2f s", (double)us / 1e6);
	else if (a % 1000 == 0)
		snprintf(buf, n, "%lld ms", (long long)(us / 1000));
	else
		snprintf(buf, n, "%.3f ms", (double)us / 1e3);
	return buf;
}
