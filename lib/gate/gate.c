/*
 * Gate policy.
 *
 * Slots lie on a grid common to every job of the cluster:
 *     slot_k = epoch + shift + k * period
 * The select plugin chose `shift` so that this job's Up phases interleave
 * with its neighbours' on the same grid.  Therefore a late job never
 * re-anchors its grid to its own clock: moving the grid would put its
 * traffic on top of its neighbours'.  Instead:
 *
 *   - ready before a slot: wait for it (the normal case: gate periods are
 *     the profiled period rounded UP, so a job is slightly early);
 *   - ready at most late_tolerance after a slot: release at once (the slot
 *     is still mostly ours; counted as "late", the lateness as drift);
 *   - later than that: the slot is missed; wait for the next one.
 *
 * A job whose iterations are longer than its period misses most slots and
 * would run at half speed or worse behind the gate.  That means its
 * profile is wrong, and interleaving cannot be had for it anyway, so when
 * miss_limit of the last miss_window phases missed, the gate disables
 * itself (every later phase passes through) and says so in its stats.
 * The threshold is explicit in the parameters and documented in
 * orrery-runtime(7).
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
	if (!g->p.late_tolerance_us)
		g->p.late_tolerance_us = g->p.period_us / 10;
	g->last_slot = INT64_MIN;
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

static void note_phase(orrery_gate_t *g, int missed)
{
	uint32_t w = g->p.miss_window;

	if (!w)
		return;
	g->recent = (g->recent << 1) | (missed ? 1u : 0u);
	if (w < 32)
		g->recent &= (1u << w) - 1;
	if (g->recent_count < w)
		g->recent_count++;
	if (g->p.miss_limit && g->recent_count == w &&
	    popcount32(g->recent) >= (int)g->p.miss_limit)
		g->st.disabled = 1;
}

int64_t orrery_gate_release_at(orrery_gate_t *g, int64_t now_us)
{
	int64_t base, k, slot, late, release;
	int missed = 0;

	g->st.phases++;
	if (g->st.disabled) {
		g->st.passthrough++;
		return now_us;
	}
	base = g->p.epoch_us + g->p.shift_us;
	/* The slot at or before now. */
	k = floor_div(now_us - base, g->p.period_us);
	if (k <= g->last_slot)  /* one phase per slot: two phases in one
				   period means the second waits */
		k = g->last_slot;
	slot = base + k * g->p.period_us;
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
		release = base + k * g->p.period_us;
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
	if (release > now_us) {
		int64_t w = release - now_us;
		g->st.total_wait_us += w;
		if (w > g->st.max_wait_us)
			g->st.max_wait_us = w;
	}
	note_phase(g, missed);
	return release;
}

void orrery_gate_stats(const orrery_gate_t *g, orrery_gate_stats_t *out)
{
	*out = g->st;
}
