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
 * A longer stall gets the late burst gated (SHORT): the gate may now hold
 * burst k of the iteration instead of its first, or the period simply had
 * fewer bursts.  The periods after it tell which, from the job's own
 * measured cycle, not the profile's offsets: the last whole period before
 * it gives each later burst's arrival after the release and the next
 * gated burst's (the job's work per iteration, W).  Rotated to start at
 * burst k, that cycle predicts the later bursts at a_p - a_k (p > k) and
 * W - a_k + a_p (p < k).  When a whole period after the move fits the
 * rotated cycle (within gap/2) and fits it better than the old one by at
 * least gap/2, the gate holds the first burst again from the next period
 * (RELOCK); when it fits the old cycle, nothing moved.  A period that
 * fits neither decides nothing: on a loaded host a thread kept off the
 * CPU for more than gap/2 stretches one compute gap (a CI run left the
 * gate on the second burst for good).  Neither for PR_JUDGE_PERIODS whole
 * periods (the job changed pace): left as it is, and said.  The cycle is
 * each of the last PR_REFS whole periods before the move, so that one
 * stretched period there does not hide the rotation either.  The
 * profile's offsets are not used for this: a job slower than its profile
 * fits its rotated profile better than its own (offsets 0 and 72 ms in
 * 124 ms of work, run 1.5x slower: the second burst 108 ms after the
 * first in 186 ms, the rotation predicting 114 ms), and the profile does
 * not give the work per iteration that would tell the two apart.  Where burst k's cycle is
 * nearly the first's (the offsets differ by less than gap/2), the
 * rotation is not told apart, and it barely moves the job's traffic.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

static enum pr_verdict later(struct phase_rule *r, int64_t since)
{
	if (r->seen < PR_MAX_BURSTS)
		r->cur[r->seen] = since;
	if (r->seen < INT_MAX)
		r->seen++;
	return PR_LATER;
}

static int64_t dist(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/* The period that just ended (n - 1 later bursts, none late) against
 * the whole period i before the move, as it was and rotated to start at
 * burst k: the larger error of each.  a_1 = 0, a_p = ref[i][p - 2]. */
static void fit(const struct phase_rule *r, int i, int k, int64_t *same, int64_t *rot)
{
	const int64_t *ref = r->ref[i], end = r->ref_end[i];
	int64_t ak = ref[k - 2], es, er;

	es = er = dist(r->cur_end, end);
	for (int j = 0; j < r->n - 1; j++) {
		int p = k + 1 + j;	/* the burst this later one is, rotated */
		int64_t want;

		if (p > r->n)
			p -= r->n;
		want = p > k ? ref[p - 2] - ak : end - ak + (p == 1 ? 0 : ref[p - 2]);
		if (dist(r->cur[j], ref[j]) > es)
			es = dist(r->cur[j], ref[j]);
		if (dist(r->cur[j], want) > er)
			er = dist(r->cur[j], want);
	}
	*same = es;
	*rot = er;
}

/* A whole period ended while a move is unresolved: returns the later
 * burst to gate in the next period to hold the first again, or 0. */
static int judge(struct phase_rule *r)
{
	int64_t same, rot, half = r->gap_us / 2;
	int k = r->moved, kept = 0;

	for (int i = 0; i < r->refs; i++) {
		fit(r, i, k, &same, &rot);
		if (rot <= half && rot + half <= same) {
			note(r, PR_NOTE_RELOCK, k, r->n, rot);
			r->moved = 0;
			return r->n - k + 1;	/* after k..n, the first */
		}
		if (same <= half)
			kept = 1;
		if (rot < r->best_rot)
			r->best_rot = rot;
	}
	if (kept) {
		r->moved = 0;	/* nothing moved */
	} else if (++r->checks >= PR_JUDGE_PERIODS) {
		note(r, PR_NOTE_UNJUDGED, k, r->n, r->best_rot);
		r->moved = 0;	/* cannot tell */
	}
	return 0;
}

enum pr_verdict pr_arrive(struct phase_rule *r, int64_t now, int inflight)
{
	int64_t since;

	if (inflight > 0 || (r->last_end != NONE && now - r->last_end < r->gap_us))
		return PR_BURST;
	if (r->last_release == NONE)
		return PR_GATE;
	since = now - r->last_release;
	if (r->relock_at && r->seen + 1 == r->relock_at) {
		r->cur_end = since;
		return PR_GATE;		/* the first burst again */
	}
	if (since < r->min_interval_us)
		return later(r, since);
	if (r->n && r->seen < r->n - 1) {
		if (since < r->period_us - r->gap_us) {
			if (!r->stalled)
				note(r, PR_NOTE_STALL, r->seen + 2, r->n, since);
			r->stalled = 1;
			return later(r, since);
		}
		note(r, PR_NOTE_SHORT, r->seen + 1, r->n, since);
		if (r->refs) {	/* judged by the periods after it */
			r->moved = r->seen + 2;
			r->checks = 0;
			r->best_rot = INT64_MAX;
		}
	}
	r->cur_end = since;
	return PR_GATE;
}

void pr_released(struct phase_rule *r, int64_t t)
{
	int relock = 0;

	/* A stall is a one-off: three periods in a row with a late burst or
	 * fewer bursts than the list mean the list is not the job's, and
	 * counting would move the gate around. */
	if (r->n && r->last_release != NONE) {
		if (r->seen >= r->n - 1 && !r->stalled) {
			r->odd_runs = 0;
			/* a whole period: the cycle, or the judge of a move */
			if (r->seen == r->n - 1 && r->moved) {
				relock = judge(r);
			} else if (r->seen == r->n - 1) {
				memmove(r->ref[1], r->ref[0], (PR_REFS - 1) * sizeof(r->ref[0]));
				memmove(r->ref_end + 1, r->ref_end, (PR_REFS - 1) * sizeof(r->ref_end[0]));
				memcpy(r->ref[0], r->cur, sizeof(r->ref[0]));
				r->ref_end[0] = r->cur_end;
				if (r->refs < PR_REFS)
					r->refs++;
			}
		} else if (++r->odd_runs == PR_ODD_RUNS) {
			/* note_us: 1 if a late burst made the period odd */
			note(r, PR_NOTE_COUNT_OFF, r->seen + 1, r->n, r->stalled);
			r->n = 0;
		}
	}
	r->relock_at = relock;	/* for the period starting now only */
	r->seen = 0;
	r->stalled = 0;
	r->last_release = t;
}

void pr_returned(struct phase_rule *r, int64_t t)
{
	r->last_end = t;
}

int pr_judging(const struct phase_rule *r)
{
	return r->moved != 0;
}

enum pr_note pr_take_note(struct phase_rule *r)
{
	enum pr_note n = r->note;

	r->note = PR_NOTE_NONE;
	return n;
}
