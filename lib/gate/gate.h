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
	orrery_gate_params_t p;
	int64_t last_slot;        /* slot index last released on, or INT64_MIN */
	uint32_t recent;          /* bit i: i-th most recent phase missed  */
	uint32_t recent_count;    /* phases recorded in `recent` (<= window) */
	orrery_gate_stats_t st;
};

#endif
