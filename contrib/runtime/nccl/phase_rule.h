/*
 * phase_rule.h - which NCCL call starts a communication phase (the one
 * the gate holds for the job's slot), as a state machine over times the
 * caller gives: no clock, no lock, no I/O, so that tests drive it with
 * made-up times (tests/runtime/test_phase_rule.c).  The interposer
 * (interposer.c) calls it under its lock.  The rule is orrery-runtime(7),
 * Phase rule:
 *
 *   - a call less than GAP after the previous one returned, or while
 *     another is inside NCCL, belongs to the current burst;
 *   - a burst less than MIN_INTERVAL after the last release is a later
 *     phase of the same iteration;
 *   - with the profile's phases (ORRERY_PHASES_US), the bursts are also
 *     counted: a burst before the period's other bursts were all seen is
 *     a later phase delayed by a stall, up to PERIOD - GAP after the
 *     release; three periods in a row with fewer bursts or a late one
 *     stop the count (the list is not the job's);
 *   - a burst gated before the others were seen (a longer stall, or a
 *     period with fewer bursts) is judged by the next whole periods:
 *     where they are the job's own cycle rotated to start at that burst,
 *     the gate holds the first burst again (re-lock);
 *   - any other burst starts a phase: the caller gates it.
 */
#ifndef ORRERY_PHASE_RULE_H
#define ORRERY_PHASE_RULE_H

#include <stdint.h>

#define PR_MAX_BURSTS 64        /* ORRERY_MAX_PHASES */
#define PR_ODD_RUNS 3           /* periods in a row unlike the list */
#define PR_JUDGE_PERIODS 8      /* whole periods that may judge a move */
#define PR_REFS 2               /* whole periods a move is judged by */

enum pr_verdict {
	PR_BURST,       /* part of the current burst */
	PR_LATER,       /* a later phase of the current iteration: passes */
	PR_GATE,        /* starts a phase: wait for the slot, then released() */
};

/* What the last call did that is worth a log line (pr_take_note). */
enum pr_note {
	PR_NOTE_NONE,
	PR_NOTE_STALL,          /* a late burst passed as a later phase */
	PR_NOTE_COUNT_OFF,      /* the list is not the job's: counting stops */
	PR_NOTE_SHORT,          /* gated with the period's bursts not all seen */
	PR_NOTE_RELOCK,         /* a moved gate goes back to the first burst */
	PR_NOTE_UNJUDGED,       /* a move no period told: the gate stays */
};

struct phase_rule {
	/* settings */
	int64_t gap_us, min_interval_us, period_us;
	int n;                          /* bursts a period; 0: not counted */

	/* state */
	int64_t last_end, last_release;
	int seen;                       /* bursts since the last release */
	int stalled;                    /* one of them passed late */
	int odd_runs;                   /* periods in a row unlike the list */

	/* Re-lock (phase_rule.c): the later bursts' arrivals after the
	 * release (this period's; the last PR_REFS whole periods' before a
	 * move, newest first), and the gated burst's arrival that ends the
	 * period (the job's iteration, measured: its own pace, not the
	 * profile's). */
	int64_t cur[PR_MAX_BURSTS], cur_end;
	int64_t ref[PR_REFS][PR_MAX_BURSTS], ref_end[PR_REFS];
	int refs;                       /* whole periods in ref[] */
	int moved;                      /* after SHORT: burst k gated, or 0 */
	int checks;                     /* periods compared since the move */
	int64_t best_rot;               /* the nearest one came to the rotation */
	int relock_at;                  /* gate the relock_at-th later burst */

	/* for the log line */
	enum pr_note note;
	int note_a, note_b;
	int64_t note_us;
};

/* Settings; counting off until pr_set_phases. */
void pr_init(struct phase_rule *r, int64_t gap_us, int64_t min_interval_us,
	     int64_t period_us);
/* ORRERY_PHASES_US, "OFFSET+DURATION,..." (offsets from the first phase,
 * in order).  Phases whose quiet time between them is under the gap are
 * one burst.  Returns the bursts a period (counting on where >= 2), or -1
 * if the value is not such a list (counting stays off). */
int pr_set_phases(struct phase_rule *r, const char *list);
/* A new call at `now` while `inflight` others are between the gate and
 * their return. */
enum pr_verdict pr_arrive(struct phase_rule *r, int64_t now, int inflight);
/* The call that got PR_GATE is released at `t`. */
void pr_released(struct phase_rule *r, int64_t t);
/* A call returned at `t`. */
void pr_returned(struct phase_rule *r, int64_t t);
/* The note of the last call (PR_NOTE_NONE if none), with note_a, note_b
 * (STALL: burst k of n; COUNT_OFF, SHORT: bursts seen in the period, n
 * listed; RELOCK, UNJUDGED: the burst the gate held, n) and note_us
 * (STALL, SHORT: how long after the release; COUNT_OFF: 1 if a burst came
 * late; RELOCK: how far the periods after the move were from the rotated
 * cycle; UNJUDGED: the nearest any came to it); clears it.  A SHORT burst
 * is either the next period's first after a period with fewer bursts, or
 * a later burst stalled past PERIOD - GAP, which the gate now holds; the
 * periods after it tell which (phase_rule.c), and a RELOCK moves the gate
 * back.  pr_judging: whether such a move is being judged (after SHORT: 0
 * where no whole period came before it to judge by). */
enum pr_note pr_take_note(struct phase_rule *r);
int pr_judging(const struct phase_rule *r);

#endif
