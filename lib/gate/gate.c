/*
 * Gate policy.
 *
 * Slots lie on a grid common to every job of the cluster:
 *     slot_k = epoch + shift + k * period
 * The select plugin chose `shift` so that this job's Up phases interleave
 * with its neighbours' on the same grid.  Therefore a job that is merely
 * late does not re-anchor its grid to its own clock: moving the grid
 * would put its traffic on top of its neighbours'.  Instead:
 *
 *   - ready before a slot: wait for it (the normal case: gate periods are
 *     the profiled period rounded UP, so a job is slightly early);
 *   - ready at most late_tolerance after a slot: release at once (the slot
 *     is still mostly ours; counted as "late", the lateness as drift);
 *   - later than that: the slot is missed; wait for the next one.
 *
 * A job whose iterations became longer than its period (its phases
 * stretched behind a neighbour's traffic, or its profile's period was
 * wrong) misses most slots and behind the gate would run at half speed or
 * worse.  The grid cannot be had for it any more, so when miss_limit of
 * the last miss_window phases missed and the job's measured work per
 * iteration (ready time minus the previous release: what it does between
 * slots, waits excluded) exceeds the period, the gate re-anchors: slots
 * every measured iteration time from now.  Misses without a longer
 * iteration mean timing the gate cannot follow; it turns off.  Neither
 * is for good: once the job's work fits the given period again for a
 * whole window, the gate goes back to the given grid (its neighbours'
 * arrangement); an off gate re-arms once the iterations are regular
 * again.  A gate that leaves its grid again after re-arming doubles the
 * run it needs to re-arm next time (up to 32 windows), so a cause that
 * comes back with the grid (the gate's own neighbours) does not make it
 * flap every window.  The thresholds are the parameters, documented in
 * orrery-runtime(7); the statistics count every transition.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "gate/gate.h"

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if ((a % b != 0) && ((a < 0) != (b < 0)))
		q--;
	return q;
}

void orrery_gate_params_default(orrery_gate_params_t *p)
{
	memset(p, 0, sizeof(*p));
	p->miss_window = 8;
	p->miss_limit = 4;
}

static int popcount32(uint32_t v)
{
	int n = 0;
	for (; v; v &= v - 1)
		n++;
	return n;
}

static void grid(orrery_gate_t *g);

/* t stretched by the margin (t <= 1 h and ppm <= 200000: no overflow). */
static int64_t with_margin(int64_t t, uint32_t ppm)
{
	return t + (t * (int64_t)ppm + 500000) / 1000000;
}

int orrery_gate_new(const orrery_gate_params_t *params, orrery_gate_t **out,
		    orrery_error_t *err)
{
	const char *why = NULL;
	orrery_gate_t *g;

	if (!params || !out)
		why = "gate: NULL argument";
	else if (params->period_us < ORRERY_MIN_PERIOD_US ||
		 params->period_us > ORRERY_MAX_PERIOD_US)
		why = "gate: period out of range (1 ms .. 1 h)";
	else if (params->shift_us < 0 || params->shift_us >= params->period_us)
		why = "gate: shift must be in [0, period)";
	else if (params->late_tolerance_us < 0 ||
		 params->late_tolerance_us >= params->period_us)
		why = "gate: late tolerance must be in [0, period)";
	else if (params->miss_window > 32 ||
		 params->miss_limit > params->miss_window)
		why = "gate: miss window must be <= 32 and miss limit <= window";
	else if (params->margin_ppm > ORRERY_GATE_MAX_MARGIN_PPM)
		why = "gate: margin must be at most 200000 ppm (20 %)";
	else if (with_margin(params->period_us, params->margin_ppm) > ORRERY_MAX_PERIOD_US)
		why = "gate: period with its margin out of range (1 ms .. 1 h)";
	if (why) {
		if (err) {
			err->code = ORRERY_ERANGE;
			strncpy(err->message, why, sizeof(err->message) - 1);
			err->message[sizeof(err->message) - 1] = '\0';
		}
		return ORRERY_ERANGE;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		if (err) {
			err->code = ORRERY_ENOMEM;
			strcpy(err->message, "out of memory");
		}
		return ORRERY_ENOMEM;
	}
	g->p = *params;
	g->grid_period_us = with_margin(g->p.period_us, g->p.margin_ppm);
	g->grid_base_us = g->p.epoch_us + with_margin(g->p.shift_us, g->p.margin_ppm);
	if (!g->p.late_tolerance_us)
		g->p.late_tolerance_us = g->grid_period_us / 10;
	g->last_release = INT64_MIN;
	grid(g);
	*out = g;
	if (err) {
		err->code = ORRERY_OK;
		err->message[0] = '\0';
	}
	return ORRERY_OK;
}

void orrery_gate_free(orrery_gate_t *g)
{
	free(g);
}

/* Record one phase; 1 when the miss limit is reached. */
static int note_phase(orrery_gate_t *g, int missed)
{
	uint32_t w = g->p.miss_window;

	if (!w)
		return 0;
	g->recent = (g->recent << 1) | (missed ? 1u : 0u);
	if (w < 32)
		g->recent &= (1u << w) - 1;
	if (g->recent_count < w)
		g->recent_count++;
	return g->p.miss_limit && g->recent_count == w &&
	       popcount32(g->recent) >= (int)g->p.miss_limit;
}

static void set_mode(orrery_gate_t *g, int mode, int64_t base, int64_t period)
{
	g->st.mode = mode;
	g->st.disabled = mode == ORRERY_GATE_OFF;
	g->base_us = base;
	g->period_us = period;
	g->st.period_us = mode == ORRERY_GATE_OFF ? 0 : period;
	g->last_slot = INT64_MIN;
	g->recent = 0;
	g->recent_count = 0;
	g->fit_run = 0;
	g->stable_run = 0;
}

/* The period an anchored gate uses: the measured iteration, rounded up to
 * a millisecond, within the accepted range. */
static int64_t anchored_period(int64_t measured)
{
	int64_t q = 1000, v = (measured + q - 1) / q * q;

	if (v < ORRERY_MIN_PERIOD_US)
		v = ORRERY_MIN_PERIOD_US;
	if (v > ORRERY_MAX_PERIOD_US)
		v = ORRERY_MAX_PERIOD_US;
	return v;
}

/* Iterations in a row needed to re-arm. */
static uint32_t rearm_run(const orrery_gate_t *g)
{
	return g->p.miss_window << g->backoff;
}

/* Leaving the grid (or the anchor) again after having re-armed. */
static void note_leave(orrery_gate_t *g)
{
	if (g->st.rearmed && g->backoff < 5)
		g->backoff++;
}

static void grid(orrery_gate_t *g)
{
	set_mode(g, ORRERY_GATE_GRID, g->grid_base_us, g->grid_period_us);
}

/* A window's range into the ring; range_us is the median of the ring
 * (of an even count, the mean of the middle two), so that a window with
 * a pause in it (the job's start, a checkpoint) does not count. */
static void note_range(orrery_gate_t *g, int64_t r)
{
	int64_t v[ORRERY_GATE_RANGE_WINDOWS], t;
	uint32_t i, j, n;

	g->ranges_us[g->range_next] = r;
	g->range_next = (g->range_next + 1) % ORRERY_GATE_RANGE_WINDOWS;
	if (g->range_n < ORRERY_GATE_RANGE_WINDOWS)
		g->range_n++;
	n = g->range_n;
	memcpy(v, g->ranges_us, n * sizeof(v[0]));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	g->st.range_us = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Measure the work since the last release and keep the run counters. */
static void measure(orrery_gate_t *g, int64_t now_us)
{
	int64_t work, tol = g->p.late_tolerance_us;

	if (g->last_release == INT64_MIN || now_us < g->last_release)
		return;
	work = now_us - g->last_release;
	g->last_work_us = work;
	/* Mean over about four iterations. */
	g->measured_us = g->measured_us ? g->measured_us + (work - g->measured_us) / 4 : work;
	g->st.measured_us = g->measured_us;
	if (!g->win_n || work < g->win_min_us)
		g->win_min_us = work;
	if (!g->win_n || work > g->win_max_us)
		g->win_max_us = work;
	if (++g->win_n == ORRERY_GATE_MEASURE_WINDOW) {
		g->st.min_work_us = g->win_min_us;
		g->st.windows++;
		note_range(g, g->win_max_us - g->win_min_us);
		g->win_n = 0;
	}
	g->fit_run = work <= g->grid_period_us + tol ? g->fit_run + 1 : 0;
	g->stable_run = (work - g->measured_us <= tol && g->measured_us - work <= tol)
				? g->stable_run + 1 : 0;
}

void orrery_gate_observe(orrery_gate_t *g, int64_t now_us)
{
	measure(g, now_us);
	g->last_release = now_us;
}

int64_t orrery_gate_release_at(orrery_gate_t *g, int64_t now_us)
{
	int64_t k, slot, late, release;
	int missed = 0;
	uint32_t w = g->p.miss_window;

	g->st.phases++;
	measure(g, now_us);
	if (g->st.mode == ORRERY_GATE_OFF) {
		if (!w || g->stable_run < rearm_run(g)) {
			g->st.passthrough++;
			g->last_release = now_us;
			return now_us;
		}
		/* Regular again: back on the grid if the work fits it. */
		g->st.rearmed++;
		if (g->fit_run >= rearm_run(g))
			grid(g);
		else
			set_mode(g, ORRERY_GATE_ANCHORED, now_us,
				 anchored_period(g->measured_us));
	} else if (g->st.mode == ORRERY_GATE_ANCHORED && w &&
		   g->fit_run >= rearm_run(g)) {
		/* The cause is gone: the given period fits again. */
		g->st.rearmed++;
		grid(g);
	}
	/* The slot at or before now. */
	k = floor_div(now_us - g->base_us, g->period_us);
	if (k <= g->last_slot)  /* one phase per slot: two phases in one
				   period means the second waits */
		k = g->last_slot;
	slot = g->base_us + k * g->period_us;
	late = now_us - slot;
	if (k > g->last_slot && late >= 0 && late <= g->p.late_tolerance_us) {
		release = now_us;
		if (late > 0) {
			g->st.late++;
			g->st.total_late_us += late;
		} else {
			g->st.on_slot++;
		}
	} else {
		/* The next slot we have not used yet. */
		k++;
		release = g->base_us + k * g->period_us;
		/* A slot (other than one already used) passed unused. */
		if (g->last_slot != INT64_MIN &&
		    late > g->p.late_tolerance_us && k - 1 > g->last_slot) {
			missed = 1;
			g->st.missed++;
		} else {
			g->st.on_slot++;
		}
	}
	g->last_slot = k;
	if (note_phase(g, missed)) {
		/* The miss limit.  Iterations outgrew the given period:
		 * re-anchor to them (the mean, or the latest if longer: the
		 * mean lags a step).  Otherwise an anchored gate goes back to
		 * its grid and a gridded one turns off (erratic timing).  This
		 * phase goes now. */
		int64_t m = g->measured_us > g->last_work_us ? g->measured_us
							     : g->last_work_us;
		note_leave(g);
		if (g->measured_us > g->grid_period_us + g->p.late_tolerance_us) {
			g->st.reanchored++;
			set_mode(g, ORRERY_GATE_ANCHORED, now_us, anchored_period(m));
			g->last_slot = 0;
		} else if (g->st.mode == ORRERY_GATE_ANCHORED) {
			g->st.rearmed++;
			grid(g);
		} else {
			g->st.disables++;
			set_mode(g, ORRERY_GATE_OFF, g->base_us, g->period_us);
		}
		release = now_us;
	}
	if (release > now_us) {
		int64_t wt = release - now_us;
		g->st.total_wait_us += wt;
		if (wt > g->st.max_wait_us)
			g->st.max_wait_us = wt;
	}
	g->last_release = release;
	return release;
}

void orrery_gate_stats(const orrery_gate_t *g, orrery_gate_stats_t *out)
{
	*out = g->st;
}

void orrery_gate_stats_carry(orrery_gate_stats_t *acc,
			     const orrery_gate_stats_t *older)
{
	uint64_t w = acc->windows + older->windows;

	acc->phases += older->phases;
	acc->on_slot += older->on_slot;
	acc->late += older->late;
	acc->missed += older->missed;
	acc->passthrough += older->passthrough;
	acc->total_wait_us += older->total_wait_us;
	if (older->max_wait_us > acc->max_wait_us)
		acc->max_wait_us = older->max_wait_us;
	acc->total_late_us += older->total_late_us;
	acc->reanchored += older->reanchored;
	acc->rearmed += older->rearmed;
	acc->disables += older->disables;
	if (w)
		acc->range_us = (acc->range_us * (int64_t)acc->windows +
				 older->range_us * (int64_t)older->windows) / (int64_t)w;
	acc->windows = w;
	if (!acc->min_work_us)
		acc->min_work_us = older->min_work_us;
}
