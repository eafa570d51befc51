/*
 * analyse.c - turn per-rank collective timelines into a comm profile.
 *
 * 1. Bursts: a rank's collectives separated by less than --gap merge into
 *    one burst (a candidate Up phase).
 * 2. Period: for a lag K = 1, 2, ... the differences s[i+K] - s[i] of burst
 *    starts are constant when K bursts make one iteration.  The share of
 *    them within --jitter of their median measures that; the smallest K
 *    within 0.1 of the best share (at least 1/2) gives the period (the
 *    median).  Medians ignore warm-up and stragglers.
 * 3. Iteration boundary: an iteration starts after its longest quiet gap
 *    (the compute of the forward pass).  A first pass walks the bursts one
 *    period at a time, finds the gap before each position of the cycle and
 *    sets the threshold between the largest and the second largest.  The
 *    second pass cuts the timeline at bursts preceded by a gap of at least
 *    that threshold; an iteration whose length is more than a fifth of the
 *    period away from it is dropped as irregular (warm-up, checkpoint,
 *    pause).
 * 4. Phases: the iterations of all ranks with the most common number of
 *    bursts and total bytes within 10% of the median give, per burst
 *    position, the median offset, duration and bytes.  Demand = bytes on
 *    the wire (recorded bytes x the bus factor of the op) x 8 / duration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"

struct burst {
	int64_t s, e;
	uint64_t bytes;
	double wire;
	double a2a_wire;
	uint32_t n;
	size_t first_ev;
};

struct iter {
	size_t rank;
	size_t first;      /* burst index */
	size_t count;      /* bursts */
	int64_t len;
	uint64_t bytes;
	int keep;
};

void cap_opts_default(struct cap_opts *o)
{
	o->gap_us = 1000;
	o->ranks = 0;
	o->warmup = 1;
	o->jitter = 0.05;
	o->round_us = 100;
	o->min_iterations = 5;
}

double cap_bus_factor(enum tl_op op, uint32_t n)
{
	/* Bytes one rank of a ring of n puts on its link per byte recorded,
	 * with the sizes orrery-timeline(5) records (count x element size as
	 * passed to the library): an all-reduce of S sends 2(n-1)/n S; an
	 * all-gather records its send chunk c and a reduce-scatter its
	 * receive chunk c, and each sends (n-1) c; an all-to-all records its
	 * whole send buffer, of which (n-1)/n leaves the rank.  n == 0: n
	 * unknown, the large-n limit; all-gather and reduce-scatter have
	 * none (cap_analyse refuses them without --ranks). */
	double f = n ? (double)(n - 1) / n : 1.0;

	switch (op) {
	case TL_OP_ALLREDUCE:
		return 2.0 * f;
	case TL_OP_ALLGATHER:
	case TL_OP_REDUCESCATTER:
		return n ? (double)(n - 1) : 0.0;
	case TL_OP_ALLTOALL:
		return f;
	default:
		return 1.0;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (reorders v); 0 for n == 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median absolute deviation around m (reorders v). */
static double mad(double *v, size_t n, double m)
{
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - m);
	return median(v, n);
}

static void mean_sd(const double *v, size_t n, double *mean, double *sd)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = n ? s / n : 0;
	for (size_t i = 0; i < n; i++)
		q += (v[i] - *mean) * (v[i] - *mean);
	*sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

static size_t make_bursts(const struct timeline *tl, int64_t gap,
			  uint32_t ring_n, struct burst *b)
{
	size_t m = 0;

	for (size_t i = 0; i < tl->n; i++) {
		const struct tl_event *ev = &tl->ev[i];
		double w = cap_bus_factor(ev->op, ring_n) * (double)ev->bytes;

		if (!m || ev->start_us >= b[m - 1].e + gap) {
			b[m] = (struct burst){ ev->start_us, ev->end_us, 0, 0, 0, 0, i };
			m++;
		}
		struct burst *cur = &b[m - 1];
		if (ev->end_us > cur->e)
			cur->e = ev->end_us;
		cur->bytes += ev->bytes;
		cur->wire += w;
		if (ev->op == TL_OP_ALLTOALL)
			cur->a2a_wire += w;
		cur->n++;
	}
	return m;
}

/* Step 2: the lag K at which s[i+K] - s[i] is most stable: the share of
 * differences within +-jitter of their median.  A multiple of the true lag
 * is as stable as the lag itself and a wrong lag that happens to match
 * most gaps (evenly spaced bursts inside an iteration) is less stable, so
 * the smallest K within 0.1 of the best share wins; the best share must
 * be at least one half (a robust CV alone would accept a lag mixing a few
 * distinct gaps).  A multiple can look more stable when iterations start
 * late now and then: one late start costs every lag the same differences,
 * but the tolerance grows with the lag (jitter x its median), so at lag
 * 3K a 70 ms late start in a 400 ms period is inside it and at lag K it is
 * not (seen under a loaded 2-core machine: 1.2 s found for 400 ms).  So a
 * smaller lag k still wins over the best K when K is a multiple of it, the
 * medians agree (K's is K/k times k's, within jitter of k's) and most of
 * k's differences are in (half, as for any lag).  Only the first
 * LAG_WINDOW bursts are used: the rhythm is found long before, and the
 * cost stays bounded.  0 if none. */
#define LAG_WINDOW 20000

static uint32_t find_lag(const struct burst *b, size_t m, double jitter,
			 double *tmp, int64_t *period, double *cv_out,
			 double *best_in)
{
	double frac[ORRERY_MAX_PHASES + 1] = { 0 }, med[ORRERY_MAX_PHASES + 1];
	size_t kmax = 0, kbest = 1;

	if (m > LAG_WINDOW)
		m = LAG_WINDOW;
	*best_in = 0;
	for (size_t k = 1; k <= ORRERY_MAX_PHASES && m >= 3 * k + 1; k++) {
		size_t n = m - k, in = 0;
		for (size_t i = 0; i < n; i++)
			tmp[i] = (double)(b[i + k].s - b[i].s);
		med[k] = median(tmp, n);
		for (size_t i = 0; i < n; i++)
			in += fabs(tmp[i] - med[k]) <= jitter * med[k];
		frac[k] = med[k] >= ORRERY_MIN_PERIOD_US ? (double)in / n : 0;
		if (frac[k] > *best_in) {
			*best_in = frac[k];
			kbest = k;
		}
		kmax = k;
	}
	if (*best_in < 0.5)
		return 0;
	for (size_t k = 1; k <= kmax; k++) {
		size_t j = kbest / k;
		int divides = k < kbest && kbest % k == 0 && frac[k] >= 0.5 &&
			      fabs(med[kbest] - (double)j * med[k]) <= jitter * med[k];
		if (frac[k] < *best_in - 0.1 && !divides)
			continue;
		size_t n = m - k;
		for (size_t i = 0; i < n; i++)
			tmp[i] = (double)(b[i + k].s - b[i].s);
		*period = (int64_t)llround(med[k]);
		*cv_out = 1.4826 * mad(tmp, n, med[k]) / med[k];
		return (uint32_t)k;
	}
	return 0;
}

/* Step 3, first pass: the gap threshold that marks an iteration start. */
static int boundary_threshold(const struct burst *b, size_t m, int64_t P,
			      double *tmp, double *theta)
{
	int64_t tol = P / 5;
	size_t counts[ORRERY_MAX_PHASES + 2] = { 0 };
	size_t a = 0;

	/* Walk one period at a time; note each step's burst count. */
	size_t *firsts = malloc(m * sizeof *firsts), nit = 0;
	size_t *lens = malloc(m * sizeof *lens);
	if (!firsts || !lens) {
		free(firsts);
		free(lens);
		return -1;
	}
	while (a < m) {
		int64_t target = b[a].s + P;
		size_t best = 0, j;
		int64_t bestd = tol + 1;
		for (j = a + 1; j < m && b[j].s <= target + tol; j++) {
			int64_t d = llabs(b[j].s - target);
			if (d < bestd) {
				bestd = d;
				best = j;
			}
		}
		if (best) {
			size_t c = best - a;
			if (c <= ORRERY_MAX_PHASES) {
				counts[c]++;
				firsts[nit] = a;
				lens[nit++] = c;
			}
			a = best;
		} else {
			a = j;  /* first burst after the window: restart there */
		}
	}
	size_t K = 0;
	for (size_t c = 1; c <= ORRERY_MAX_PHASES; c++)
		if (counts[c] > counts[K])
			K = c;
	if (!K) {
		free(firsts);
		free(lens);
		return -1;
	}
	/* Median gap before each position of the cycle. */
	double g[ORRERY_MAX_PHASES];
	for (size_t q = 0; q < K; q++) {
		size_t n = 0;
		for (size_t i = 0; i < nit; i++) {
			size_t x = firsts[i] + q;
			if (lens[i] != K || x == 0)
				continue;
			tmp[n++] = (double)(b[x].s - b[x - 1].e);
		}
		g[q] = median(tmp, n);
	}
	free(firsts);
	free(lens);
	qsort(g, K, sizeof *g, cmp_double);
	double g1 = g[K - 1], g2 = K > 1 ? g[K - 2] : 0;
	if (g1 <= 0 || g1 - g2 < g1 * 0.1)
		return -1;  /* no clearly longest gap */
	*theta = (g1 + g2) / 2;
	return 0;
}


static const char *confidence(const struct cap_result *r)
{
	double worst = 0;

	for (size_t i = 0; i < r->n_phases; i++)
		if (r->phases[i].duration_cv > worst)
			worst = r->phases[i].duration_cv;
	if (r->iterations < 10 || r->period_cv > 0.05 || worst > 0.25)
		return "low";
	if (r->iterations >= 20 && r->period_cv <= 0.02 && worst <= 0.1)
		return "high";
	return "medium";
}

static int64_t round_near(double v, int64_t q)
{
	return (int64_t)llround(v / q) * q;
}

int cap_analyse(const struct timeline *tl, size_t n_tl,
		const struct cap_opts *o, struct cap_result *res,
		char *err, size_t errlen)
{
	struct burst **B = calloc(n_tl, sizeof *B);
	size_t *M = calloc(n_tl, sizeof *M);
	struct iter *it = NULL;
	double *tmp = NULL;
	size_t total = 0, nit = 0, maxm = 0;
	int64_t P0 = 0;
	int rc = -1;

	memset(res, 0, sizeof *res);
	res->ranks = n_tl;
	res->ring_n = o->ranks ? o->ranks : n_tl >= 2 ? (uint32_t)n_tl : 0;
	res->ring_n_assumed = res->ring_n == 0;
	if (!B || !M)
		goto oom;
	for (size_t r = 0; r < n_tl; r++) {
		total += tl[r].n;
		if (tl[r].n > maxm)
			maxm = tl[r].n;
	}
	res->events = total;
	if (res->ring_n_assumed)
		for (size_t r = 0; r < n_tl; r++)
			for (size_t i = 0; i < tl[r].n; i++)
				if (tl[r].ev[i].op == TL_OP_ALLGATHER ||
				    tl[r].ev[i].op == TL_OP_REDUCESCATTER) {
					snprintf(err, errlen,
						 "%s: %s records the chunk of one rank and its "
						 "traffic grows with the ring size: give --ranks N",
						 tl[r].path, tl_op_name(tl[r].ev[i].op));
					goto out;
				}
	tmp = malloc((maxm + total + 1) * sizeof *tmp);
	it = malloc((total + 1) * sizeof *it);
	if (!tmp || !it)
		goto oom;

	/* Steps 1 and 2, per rank; the ranks' periods must agree. */
	double periods[TL_MAX_FILES];
	for (size_t r = 0; r < n_tl; r++) {
		int64_t P;
		double cv, best;

		if (!(B[r] = malloc(tl[r].n * sizeof *B[r])))
			goto oom;
		M[r] = make_bursts(&tl[r], o->gap_us, res->ring_n, B[r]);
		uint32_t k = find_lag(B[r], M[r], o->jitter, tmp, &P, &cv, &best);
		if (!k) {
			snprintf(err, errlen,
				 "%s: no periodic pattern in %zu bursts (at best %.0f%% of "
				 "the repeats within --jitter %.3f of the period, 50%% "
				 "needed); is this a training loop of at least %u "
				 "iterations?", tl[r].path, M[r], 100 * best, o->jitter,
				 3 * o->min_iterations);
			goto out;
		}
		periods[r] = (double)P;
		if (!r || cv > res->detect_cv)
			res->detect_cv = cv;
		if (!r || k > res->lag)
			res->lag = k;
	}
	P0 = (int64_t)llround(median(periods, n_tl));
	for (size_t r = 0; r < n_tl; r++) {
		/* periods[] was sorted by median(): compare again. */
		int64_t P;
		double cv, best;
		find_lag(B[r], M[r], o->jitter, tmp, &P, &cv, &best);
		if (llabs(P - P0) > P0 / 10) {
			snprintf(err, errlen,
				 "%s: period %.3f ms differs from the other ranks' %.3f ms "
				 "by more than 10%%; are these files from one job?",
				 tl[r].path, P / 1e3, P0 / 1e3);
			goto out;
		}
	}

	/* Step 3: cut each rank's timeline into iterations. */
	for (size_t r = 0; r < n_tl; r++) {
		double theta;
		struct burst *b = B[r];
		if (boundary_threshold(b, M[r], P0, tmp, &theta)) {
			snprintf(err, errlen,
				 "%s: cannot tell where an iteration starts (no quiet gap "
				 "clearly longer than the others in a %.3f ms period)",
				 tl[r].path, P0 / 1e3);
			goto out;
		}
		size_t prev = 0, seen = 0;
		for (size_t i = 1; i <= M[r]; i++) {
			if (i < M[r] && (double)(b[i].s - b[i - 1].e) < theta)
				continue;
			if (i == M[r])
				break;  /* the last iteration may be cut short */
			int64_t len = b[i].s - b[prev].s;
			if (llabs(len - P0) > P0 / 5) {
				res->dropped_irregular++;
			} else if (seen++ < o->warmup) {
				res->dropped_warmup++;
			} else {
				uint64_t by = 0;
				for (size_t x = prev; x < i; x++)
					by += b[x].bytes;
				it[nit++] = (struct iter){ r, prev, i - prev, len, by, 1 };
			}
			prev = i;
		}
	}

	/* Step 4: the common shape. */
	size_t counts[ORRERY_MAX_PHASES + 1] = { 0 }, K = 0;
	for (size_t i = 0; i < nit; i++)
		if (it[i].count <= ORRERY_MAX_PHASES)
			counts[it[i].count]++;
	for (size_t c = 1; c <= ORRERY_MAX_PHASES; c++)
		if (counts[c] > counts[K])
			K = c;
	size_t n = 0;
	for (size_t i = 0; i < nit; i++)
		if (it[i].count == K)
			tmp[n++] = (double)it[i].bytes;
	double mb = median(tmp, n);
	for (size_t i = 0; i < nit; i++) {
		it[i].keep = it[i].count == K &&
			fabs((double)it[i].bytes - mb) <= 0.1 * mb;
		if (!it[i].keep)
			res->dropped_shape++;
		else
			res->iterations++;
	}
	if (!K || res->iterations < o->min_iterations) {
		snprintf(err, errlen,
			 "only %zu regular iterations (at least %u needed; %zu dropped "
			 "as irregular, %zu for their shape, %zu as warm-up); record a "
			 "longer run", res->iterations, o->min_iterations,
			 res->dropped_irregular, res->dropped_shape,
			 res->dropped_warmup);
		goto out;
	}

	/* Period: the median iteration length. */
	n = 0;
	for (size_t i = 0; i < nit; i++)
		if (it[i].keep)
			tmp[n++] = (double)it[i].len;
	double mean;
	mean_sd(tmp, n, &mean, &res->period_sd_us);
	double Pm = median(tmp, n);
	res->period_cv = res->period_sd_us / Pm;
	res->period_us = round_near(Pm, o->round_us);
	if (res->period_us < ORRERY_MIN_PERIOD_US) {
		snprintf(err, errlen, "period %.3f ms is shorter than the profile "
			 "minimum of 1 ms", Pm / 1e3);
		goto out;
	}

	res->n_phases = K;
	for (size_t q = 0; q < K; q++) {
		struct cap_phase *ph = &res->phases[q];
		double *v = tmp;
		double a2a = 0, wire_all = 0, m, sd;
		size_t first = SIZE_MAX;

		/* offset */
		n = 0;
		for (size_t i = 0; i < nit; i++) {
			if (!it[i].keep)
				continue;
			const struct burst *b = B[it[i].rank] + it[i].first;
			v[n++] = (double)(b[q].s - b[0].s);
			a2a += b[q].a2a_wire;
			wire_all += b[q].wire;
			if (first == SIZE_MAX)
				first = i;
		}
		mean_sd(v, n, &m, &ph->offset_sd_us);
		double off = median(v, n);
		/* duration */
		n = 0;
		for (size_t i = 0; i < nit; i++)
			if (it[i].keep) {
				const struct burst *b = B[it[i].rank] + it[i].first + q;
				v[n++] = (double)(b->e - b->s);
			}
		mean_sd(v, n, &m, &sd);
		ph->duration_cv = m > 0 ? sd / m : 0;
		double dur = median(v, n);
		/* bytes, wire bytes, collectives */
		n = 0;
		for (size_t i = 0; i < nit; i++)
			if (it[i].keep)
				v[n++] = (double)B[it[i].rank][it[i].first + q].bytes;
		mean_sd(v, n, &m, &sd);
		ph->bytes_cv = m > 0 ? sd / m : 0;
		ph->bytes = (uint64_t)llround(median(v, n));
		n = 0;
		for (size_t i = 0; i < nit; i++)
			if (it[i].keep)
				v[n++] = B[it[i].rank][it[i].first + q].wire;
		ph->wire_bytes = (uint64_t)llround(median(v, n));
		n = 0;
		for (size_t i = 0; i < nit; i++)
			if (it[i].keep)
				v[n++] = B[it[i].rank][it[i].first + q].n;
		ph->collectives = (uint32_t)llround(median(v, n));
		ph->a2a = wire_all > 0 && a2a > wire_all / 2;

		/* The ops of this phase in the first kept iteration. */
		const struct burst *fb = B[it[first].rank] + it[first].first + q;
		const struct timeline *t = &tl[it[first].rank];
		size_t opc[TL_OP_OTHER + 1] = { 0 };
		for (size_t e = fb->first_ev; e < fb->first_ev + fb->n; e++)
			opc[t->ev[e].op]++;
		ph->ops[0] = '\0';
		for (int op = 0; op <= TL_OP_OTHER; op++) {
			if (!opc[op])
				continue;
			size_t l = strlen(ph->ops);
			snprintf(ph->ops + l, sizeof ph->ops - l, "%s%s x%zu",
				 l ? ", " : "", tl_op_name((enum tl_op)op), opc[op]);
		}

		/* Rounded times: to the nearest quantum, durations never 0,
		 * phases inside the period.  The demand is the rate the
		 * wire saw: median bytes over the unrounded median duration. */
		ph->offset_us = q ? round_near(off, o->round_us) : 0;
		ph->duration_us = round_near(dur, o->round_us);
		if (ph->duration_us < o->round_us)
			ph->duration_us = o->round_us;
		if (ph->offset_us >= res->period_us)
			ph->offset_us = res->period_us - o->round_us;
		if (ph->offset_us + ph->duration_us > res->period_us)
			ph->duration_us = res->period_us - ph->offset_us;
		double mbps = ceil((double)ph->wire_bytes * 8.0 /
				   (dur > 1 ? dur : 1));
		if (mbps > (double)ORRERY_MAX_DEMAND_MBPS) {
			snprintf(err, errlen,
				 "phase %zu: %.0f Mbit/s is above the profile maximum of "
				 "10 Tbit/s; are the byte counts right?", q, mbps);
			goto out;
		}
		ph->demand_mbps = mbps < 1 ? 1 : (uint64_t)mbps;
	}
	res->confidence = confidence(res);
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	for (size_t r = 0; B && r < n_tl; r++)
		free(B[r]);
	free(B);
	free(M);
	free(it);
	free(tmp);
	return rc;
}
