/*
 * The gate policy: when may a job's next communication phase start?
 * Plain C (no C++ runtime) so the job-side runtime can compile it in
 * directly; liborrery exports it through orrery.h.
 */
#ifndef ORRERY_GATE_H
#define ORRERY_GATE_H

#include <stdint.h>

#include "orrery.h"

struct orrery_gate {
	orrery_gate_params_t p;   /* as given (the grid)                   */
	int64_t grid_base_us;     /* the given grid with the margin: origin */
	int64_t grid_period_us;   /* ... and period                        */
	int64_t base_us;          /* slot origin in force                  */
	int64_t period_us;        /* period in force                       */
	int64_t last_slot;        /* slot index last released on, or INT64_MIN */
	int64_t last_release;     /* time of the last release, or INT64_MIN */
	int64_t measured_us;      /* mean work per iteration, 0 = none yet */
	int64_t last_work_us;     /* the latest iteration's work           */
	uint32_t recent;          /* bit i: i-th most recent phase missed  */
	uint32_t recent_count;    /* phases recorded in `recent` (<= window) */
	uint32_t fit_run;         /* iterations in a row that fit p.period */
	uint32_t stable_run;      /* ... within tolerance of measured_us   */
	uint32_t backoff;         /* re-arming needs window << backoff     */
	int64_t win_min_us;       /* shortest work in the window so far    */
	int64_t win_max_us;       /* longest ...                           */
	/* longest - shortest of the latest windows, a ring */
	int64_t ranges_us[ORRERY_GATE_RANGE_WINDOWS];
	uint32_t range_n;         /* windows in the ring (<= its size)     */
	uint32_t range_next;      /* where the next one goes               */
	uint32_t win_n;           /* iterations in that window             */
	orrery_gate_stats_t st;
};

#endif
