/*
 * phase_rule.c - the interposer's phase rule (phase_rule.h), on times the
 * caller gives.
 *
 * Why count: time alone does not say which burst is which.  When every
 * compute gap before an Up phase is shorter than the minimum interval, a
 * stall that delays a later phase past it would get that phase gated, and
 * the gate would stay on it for good (one stable lock per burst; a CI run
 * showed it).  Counting the period's bursts passes such a late phase up
 * to PERIOD - GAP after the release.
 *
 * What is not done: moving a gate that a longer stall moved back to the
 * first burst by the profile's offsets.  With two bursts, a job slower
 * than its profile (offsets 0 and 72 ms in 124 ms of work, run 1.5x
 * slower: the second burst 108 ms after the first, 186 ms of work) fits
 * the rotated cycle (186 - 72 = 114 ms) better than its own, and would be
 * moved away from its first burst; the offsets cannot tell a rotation
 * from a slower job without the profile's work per iteration, which the
 * profile does not give (its period may include gate waits).
 */
#include <limits.h>
#include <stdlib.h>

#include "phase_rule.h"

#define NONE INT64_MIN

void pr_init(struct phase_rule *r, int64_t gap_us, int64_t min_interval_us,
	     int64_t period_us)
{
	*r = (struct phase_rule){
		.gap_us = gap_us,
		.min_interval_us = min_interval_us,
		.period_us = period_us,
		.last_end = NONE,
		.last_release = NONE,
	};
}

int pr_set_phases(struct phase_rule *r, const char *s)
{
	int64_t end = NONE, prev = -1;
	int n = 0;

	while (*s) {
		char *e;
		long long o, d;

		if (*s < '0' || *s > '9')
			return -1;
		o = strtoll(s, &e, 10);
		if (*e != '+' || e[1] < '0' || e[1] > '9')
			return -1;
		d = strtoll(e + 1, &e, 10);
		if ((*e != ',' && *e) || (*e == ',' && !e[1]) || o < prev || d <= 0 ||
		    o > INT64_MAX / 2 || d > INT64_MAX / 2 || n == PR_MAX_BURSTS)
			return -1;
		if (end == NONE || o - end >= r->gap_us)
			n++;
		if (o + d > end)
			end = o + d;
		prev = o;
		s = *e ? e + 1 : e;
	}
	r->n = n >= 2 ? n : 0;	/* one burst: the time rule is the count */
	return n;
}

static void note(struct phase_rule *r, enum pr_note what, int a, int b, int64_t us)
{
	r->note = what;
	r->note_a = a;
	r->note_b = b;
	r->note_us = us;
}

static enum pr_verdict later(struct phase_rule *r)
{
	if (r->seen < INT_MAX)
		r->seen++;
	return PR_LATER;
}

enum pr_verdict pr_arrive(struct phase_rule *r, int64_t now, int inflight)
{
	int64_t since;

	if (inflight > 0 || (r->last_end != NONE && now - r->last_end < r->gap_us))
		return PR_BURST;
	if (r->last_release == NONE)
		return PR_GATE;
	since = now - r->last_release;
	if (since < r->min_interval_us)
		return later(r);
	if (r->n && r->seen < r->n - 1) {
		if (since < r->period_us - r->gap_us) {
			if (!r->stalled)
				note(r, PR_NOTE_STALL, r->seen + 2, r->n, since);
			r->stalled = 1;
			return later(r);
		}
		note(r, PR_NOTE_SHORT, r->seen + 1, r->n, since);
	}
	return PR_GATE;
}

void pr_released(struct phase_rule *r, int64_t t)
{
	/* A stall is a one-off: three periods in a row with a late burst or
	 * fewer bursts than the list mean the list is not the job's, and
	 * counting would move the gate around. */
	if (r->n && r->last_release != NONE) {
		if (r->seen >= r->n - 1 && !r->stalled) {
			r->odd_runs = 0;
		} else if (++r->odd_runs == PR_ODD_RUNS) {
			/* note_us: 1 if a late burst made the period odd */
			note(r, PR_NOTE_COUNT_OFF, r->seen + 1, r->n, r->stalled);
			r->n = 0;
		}
	}
	r->seen = 0;
	r->stalled = 0;
	r->last_release = t;
}

void pr_returned(struct phase_rule *r, int64_t t)
{
	r->last_end = t;
}

enum pr_note pr_take_note(struct phase_rule *r)
{
	enum pr_note n = r->note;

	r->note = PR_NOTE_NONE;
	return n;
}
