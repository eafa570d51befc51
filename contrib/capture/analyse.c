/*
 * analyse.c - turn per-rank collective timelines into a comm profile.
 *
 * 1. Bursts: a rank's collectives separated by less than --gap merge into
 *    one burst (a candidate Up phase).
 * 2. Period: for a lag K = 1, 2, ... the differences s[i+K] - s[i] of burst
 *    starts are constant when K bursts make one iteration.  The share of
 *    them within --jitter of their median measures that; without a lag of
 *    at least 1/2 there is no period.  Its length is then found in time:
 *    the smallest p for which most bursts have another one p later (a
 *    burst that splits in two does not shift that as it shifts a count).
 *    Medians ignore warm-up and stragglers.
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

/* Step 2, whether there is a period: the lag K at which s[i+K] - s[i] is
 * most stable, the share of differences within +-jitter of their median.
 * The best share must be at least one half (a robust CV alone would
 * accept a lag mixing a few distinct gaps); random starts have none.  A
 * multiple of the true lag is as stable as the lag itself and a wrong lag
 * that happens to match most gaps (evenly spaced bursts inside an
 * iteration) is less stable, so the smallest K within 0.1 of the best
 * share wins.  A multiple can look more stable when iterations start late
 * now and then: one late start costs every lag the same differences, but
 * the tolerance grows with the lag (jitter x its median), so at lag 3K a
 * 70 ms late start in a 400 ms period is inside it and at lag K it is not
 * (seen under a loaded 2-core machine: 1.2 s found for 400 ms).  So a
 * smaller lag k still wins over the best K when K is a multiple of it, the
 * medians agree (K's is K/k times k's, within jitter of k's) and most of
 * k's differences are in.  Its period stands only where repeat_in_time
 * finds none.  Only the first LAG_WINDOW bursts are used: the rhythm is
 * found long before, and the cost stays bounded.  0 if none. */
#define LAG_WINDOW 20000

static uint32_t stable_lag(const struct burst *b, size_t m, double jitter,
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

/* Step 2, the length: the period in time rather than by count.  p explains
 * burst i when another burst starts within jitter x p of s[i] + p; its
 * share is the part of the bursts it explains.  A lag counted in bursts
 * (stable_lag) breaks where a collective now and then splits into two
 * bursts (a bucket a few ms late): every lag then mixes iterations of K
 * and K+1 bursts, and a multiple of the period, or none, wins (generated
 * runs with one iteration in five split: 400 ms found in 7 of 20).  In
 * time the extra burst costs one unexplained start and nothing else.
 *
 * Candidates are the differences between the starts of the first
 * CAND_REFS bursts and of the 64 after each, grouped where within jitter
 * of each other, each centred on the median of what it explains.  The
 * smallest candidate that explains at least half wins when it explains no
 * more than 0.1 less than the best, or when it divides the best (j whole
 * periods of it, within its tolerance) and the best spans j times as many
 * bursts as it does, or up to half more (split bursts).  The second rule is
 * stable_lag's "divides" for the same reason: the tolerance grows with the
 * candidate, so a multiple covers late iteration starts that the period
 * does not.  The burst count keeps out a gap inside an iteration that
 * happens to divide the period (bursts at 0, 100 and 200 ms of 400: 100 ms
 * explains two in three and divides 400, but spans one burst where 400
 * spans three).  The period is the median of the differences the winner
 * explains.  0 if none, or out of memory. */
#define CAND_REFS    64	/* first bursts whose differences are candidates */

/* Index of the burst whose start is nearest to t (b sorted by start). */
static size_t nearest_start(const struct burst *b, size_t m, int64_t t)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid].s < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m || (lo > 0 && t - b[lo - 1].s <= b[lo].s - t))
		return lo - 1;
	return lo;
}

/* Share of the bursts that p explains within tol; with d, the explained
 * differences go to d[0..*nd) and their burst counts to *per (median). */
static double explained(const struct burst *b, size_t m, double p, double tol,
			double *d, size_t *nd, double *per)
{
	size_t n = 0, in = 0;
	int64_t end = b[m - 1].s;

	for (size_t i = 0; i < m && (double)b[i].s + p + tol <= (double)end; i++) {
		int64_t t = b[i].s + (int64_t)llround(p);
		size_t j = nearest_start(b, m, t);
		n++;
		if (j <= i || fabs((double)(b[j].s - t)) > tol)
			continue;
		if (d) {
			d[in] = (double)(b[j].s - b[i].s);
			per[in] = (double)(j - i);
		}
		in++;
	}
	if (nd)
		*nd = in;
	return n >= 3 ? (double)in / n : 0;
}

/* Is q, the most explained candidate (spanning q_bursts), j whole periods
 * p (j >= 2, within p's tolerance) spanning j times as many bursts as p
 * (and up to half more: split bursts only add)?  See repeat_in_time. */
static int divides(double p, uint32_t bursts, double q, double q_bursts,
		   double jitter)
{
	double j = round(q / p), want = j * bursts;

	if (j < 2 || fabs(q - j * p) > jitter * p)
		return 0;
	return q_bursts >= want - 0.5 && q_bursts <= 1.5 * want;
}

static uint32_t repeat_in_time(const struct burst *b, size_t m,
			       double jitter, double *tmp, int64_t *period,
			       double *cv_out, double *best_in)
{
	size_t nc = 0, ng = 0, nd, refs;
	double *c, *g, *per, bestp = 0, best_bursts;
	uint32_t lag = 0;

	*best_in = 0;
	if (m > LAG_WINDOW)
		m = LAG_WINDOW;
	if (m < 4)
		return 0;
	refs = m < CAND_REFS ? m : CAND_REFS;
	c = malloc(refs * ORRERY_MAX_PHASES * sizeof *c);
	g = malloc(refs * ORRERY_MAX_PHASES * sizeof *g);
	per = malloc(m * sizeof *per);
	if (!c || !g || !per)
		goto out;
	/* A period repeats at least 3 times in the window. */
	for (size_t i = 0; i < refs; i++)
		for (size_t j = i + 1; j < m && j <= i + ORRERY_MAX_PHASES; j++) {
			int64_t v = b[j].s - b[i].s;
			if (v >= ORRERY_MIN_PERIOD_US && 3 * v <= b[m - 1].s - b[0].s)
				c[nc++] = (double)v;
		}
	qsort(c, nc, sizeof *c, cmp_double);
	for (size_t a = 0, z; a < nc; a = z) {
		for (z = a + 1; z < nc && c[z] <= c[a] * (1 + jitter); z++)
			;
		if (z - a >= 2)	/* seen once: no rhythm */
			g[ng++] = c[a + (z - a) / 2];
	}
	for (size_t k = 0; k < ng; k++) {
		/* Centre the group on what it explains: a group's median can sit
		 * a few per cent off the repeat it stands for. */
		explained(b, m, g[k], jitter * g[k], tmp, &nd, per);
		if (nd)
			g[k] = median(tmp, nd);
		double s = explained(b, m, g[k], jitter * g[k], NULL, NULL, NULL);
		if (s > *best_in) {
			*best_in = s;
			bestp = g[k];
		}
	}
	if (*best_in < 0.5)
		goto out;
	explained(b, m, bestp, jitter * bestp, tmp, &nd, per);
	best_bursts = median(per, nd);
	for (size_t k = 0; k < ng; k++) {
		double tol = jitter * g[k], p;
		double s = explained(b, m, g[k], tol, tmp, &nd, per);
		uint32_t bursts = (uint32_t)llround(median(per, nd));

		if (s < 0.5)
			continue;
		if (s < *best_in - 0.1 &&
		    !divides(g[k], bursts, bestp, best_bursts, jitter))
			continue;
		p = median(tmp, nd);
		*period = (int64_t)llround(p);
		lag = bursts;
		/* Robust spread of every start's nearest repeat, explained or not. */
		nd = 0;
		for (size_t i = 0; i < m && b[i].s + *period <= b[m - 1].s; i++) {
			size_t j = nearest_start(b, m, b[i].s + *period);
			if (j > i)
				tmp[nd++] = (double)(b[j].s - b[i].s);
		}
		*cv_out = nd ? 1.4826 * mad(tmp, nd, p) / p : 0;
		break;
	}
out:
	free(c);
	free(g);
	free(per);
	return lag;
}

/* Step 2: whether the bursts repeat at all is stable_lag's call (random
 * starts give no lag within jitter of its median); how long the period is,
 * repeat_in_time's, which one burst split in two does not mislead (the
 * lag's stands where it finds none).  0 if no period. */
static uint32_t find_lag(const struct burst *b, size_t m, double jitter,
			 double *tmp, int64_t *period, double *cv_out,
			 double *best_in)
{
	double best_t;
	uint32_t k = stable_lag(b, m, jitter, tmp, period, cv_out, best_in);
	uint32_t kt;

	if (!k)
		return 0;
	/* Sets *period and *cv_out only where it finds one. */
	kt = repeat_in_time(b, m, jitter, tmp, period, cv_out, &best_t);
	return kt ? kt : k;
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
	int64_t own[TL_MAX_FILES];
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
		own[r] = P;
		if (!r || cv > res->detect_cv)
			res->detect_cv = cv;
		if (!r || k > res->lag)
			res->lag = k;
	}
	P0 = (int64_t)llround(median(periods, n_tl));
	for (size_t r = 0; r < n_tl; r++) {
		/* periods[] was sorted by median(): own[] keeps each rank's. */
		int64_t P = own[r];
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
