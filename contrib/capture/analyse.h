/*
 * analyse.h - from collective timelines to a comm profile: bursts, the
 * iteration period, Up phases and their demand (orrery-capture(1) documents
 * every rule used here).
 */
#ifndef ORRERY_CAPTURE_ANALYSE_H
#define ORRERY_CAPTURE_ANALYSE_H

#include <stddef.h>
#include <stdint.h>

#include "orrery.h"
#include "timeline.h"

struct cap_opts {
	int64_t gap_us;        /* collectives closer than this: one phase     */
	uint32_t ranks;        /* ring size n for the bus factor; 0 = auto    */
	uint32_t warmup;       /* regular iterations dropped per rank, first  */
	double jitter;         /* periodicity tolerance, fraction of the period */
	int64_t round_us;      /* times rounded to this                       */
	uint32_t min_iterations;
};

void cap_opts_default(struct cap_opts *o);

struct cap_phase {
	int64_t offset_us;     /* median start after the iteration's first    */
	int64_t duration_us;   /* median first start to last end              */
	uint64_t bytes;        /* median bytes recorded (per rank)            */
	uint64_t wire_bytes;   /* median bytes on the wire (bus factor)       */
	uint64_t demand_mbps;
	int a2a;               /* most wire bytes from all-to-all             */
	double offset_sd_us;
	double duration_cv;
	double bytes_cv;
	uint32_t collectives;  /* collectives in the phase (median)           */
	char ops[128];         /* e.g. "allreduce x2"                         */
};

struct cap_result {
	size_t ranks;              /* timeline files                          */
	uint32_t ring_n;           /* n used for the bus factor               */
	int ring_n_assumed;        /* 1: n unknown, the n -> infinity factor  */
	size_t events;
	size_t iterations;         /* used for the phases, all ranks          */
	size_t dropped_irregular;  /* length off the period (warm-up, pauses) */
	size_t dropped_shape;      /* other phase count or bytes              */
	size_t dropped_warmup;     /* --warmup                                */
	int64_t period_us;         /* median iteration length, rounded        */
	double period_sd_us;
	double period_cv;
	double detect_cv;          /* robust CV of the lag that found it      */
	uint32_t lag;              /* phases per period found by detection    */
	size_t n_phases;
	struct cap_phase phases[ORRERY_MAX_PHASES];
	const char *confidence;    /* "high", "medium", "low"                 */
};

/* 0 on success; -1 with a message in err (no usable period, too few
 * iterations, ...). */
int cap_analyse(const struct timeline *tl, size_t n_tl,
		const struct cap_opts *o, struct cap_result *res,
		char *err, size_t errlen);

/* Bus-bandwidth factor: bytes on one rank's link per byte recorded. */
double cap_bus_factor(enum tl_op op, uint32_t n);

#endif
