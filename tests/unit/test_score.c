/*
 * The compatibility score of one link through the C API (orrery.h),
 * the way the tools and plugins call it, and the SVG drawing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orrery.h"

#define D 50000ULL

static orrery_profile_t *half_duty(int64_t period_us, int64_t up_us)
{
	orrery_phase_t ph = {0, up_us, D, ORRERY_COLL_RING, 0};
	orrery_profile_t *p = NULL;
	orrery_error_t err;

	assert_int_equal(orrery_profile_new(period_us, &ph, 1, &p, &err),
			 ORRERY_OK);
	return p;
}

static void assert_near(double a, double b)
{
	if (fabs(a - b) > 1e-9) {
		print_error("%.12f != %.12f\n", a, b);
		fail();
	}
}

/* Two jobs Up half of 100 ms on a link that holds one: in step they
 * overlap on half the circle by a full capacity, 1 - 180/360 = 0.5;
 * half a period apart, 1. */
static void two_jobs(void **state)
{
	orrery_profile_t *p = half_duty(100000, 50000);
	const orrery_profile_t *ps[2] = {p, p};
	orrery_link_result_t *r = NULL;
	orrery_error_t err;

	assert_int_equal(orrery_link_score(ps, 2, D, NULL, NULL, &r, &err),
			 ORRERY_OK);
	assert_near(orrery_link_result_score(r), 1.0);
	assert_near(orrery_link_result_score_unshifted(r), 0.5);
	assert_near(orrery_link_result_over_fraction(r), 0.0);
	assert_near(orrery_link_result_over_fraction_unshifted(r), 0.5);
	assert_int_equal(orrery_link_result_perimeter_us(r), 100000);
	assert_int_equal(orrery_link_result_job_count(r), 2);
	assert_int_equal(orrery_link_result_shift_us(r, 0), 0);
	assert_int_equal(orrery_link_result_shift_us(r, 1), 50000);
	assert_int_equal(orrery_link_result_gate_period_us(r, 1), 100000);
	assert_int_equal(orrery_link_result_shift_us(r, 2), -1);
	assert_int_equal(orrery_link_result_exact(r), 1);
	assert_int_equal(orrery_link_result_smeared(r), 0);
	orrery_link_result_free(r);
	orrery_profile_free(p);
}

/* A pinned job keeps its shift; a negative entry leaves a job free. */
static void fixed_shifts(void **state)
{
	orrery_profile_t *p = half_duty(100000, 50000);
	const orrery_profile_t *ps[2] = {p, p};
	int64_t fixed[2] = {-1, 20000};
	orrery_link_result_t *r = NULL;

	assert_int_equal(orrery_link_score(ps, 2, D, fixed, NULL, &r, NULL),
			 ORRERY_OK);
	assert_int_equal(orrery_link_result_shift_us(r, 1), 20000);
	assert_int_equal(orrery_link_result_shift_us(r, 0), 70000);
	assert_near(orrery_link_result_score(r), 1.0);
	/* Free job at 0 against the pinned one at 20 ms: 30 ms overlap. */
	assert_near(orrery_link_result_score_unshifted(r), 1.0 - 108.0 / 360.0);
	orrery_link_result_free(r);
	orrery_profile_free(p);
}

static void mixed_periods(void **state)
{
	orrery_profile_t *a = half_duty(100000, 30000);
	orrery_profile_t *b = half_duty(150000, 30000);
	const orrery_profile_t *ps[2] = {a, b};
	orrery_link_result_t *r = NULL;

	assert_int_equal(orrery_link_score(ps, 2, D, NULL, NULL, &r, NULL),
			 ORRERY_OK);
	assert_int_equal(orrery_link_result_perimeter_us(r), 300000);
	assert_int_equal(orrery_link_result_gate_period_us(r, 0), 100000);
	assert_int_equal(orrery_link_result_gate_period_us(r, 1), 150000);
	assert_true(orrery_link_result_score(r) >=
		    orrery_link_result_score_unshifted(r));
	assert_true(orrery_link_result_shift_us(r, 1) < 150000);
	orrery_link_result_free(r);

	/* Under a 50 ms cap 100 and 150 ms cannot share a circle. */
	orrery_circle_opts_t o;
	orrery_circle_opts_default(&o);
	o.cap_us = 50000;
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, &o, &r, NULL),
			 ORRERY_OK);
	assert_int_equal(orrery_link_result_smeared(r), 1);
	assert_int_equal(orrery_link_result_perimeter_us(r), 150000);
	orrery_link_result_free(r);
	orrery_profile_free(a);
	orrery_profile_free(b);
}

static void capacity_unknown(void **state)
{
	orrery_profile_t *p = half_duty(100000, 50000);
	const orrery_profile_t *ps[3] = {p, p, p};
	orrery_link_result_t *r = NULL;

	assert_int_equal(orrery_link_score(ps, 3, 0, NULL, NULL, &r, NULL),
			 ORRERY_OK);
	assert_near(orrery_link_result_score(r), 1.0);
	assert_near(orrery_link_result_over_fraction(r), 0.0);
	orrery_link_result_free(r);
	orrery_profile_free(p);
}

static void bad_input(void **state)
{
	orrery_profile_t *p = half_duty(100000, 50000);
	orrery_profile_t *model = NULL;
	const orrery_profile_t *ps[65];
	orrery_link_result_t *r = NULL;
	orrery_error_t err;
	orrery_circle_opts_t o;
	size_t i;

	for (i = 0; i < 65; i++)
		ps[i] = p;
	assert_int_equal(orrery_link_score(ps, 65, D, NULL, NULL, &r, &err),
			 ORRERY_ELIMIT);
	assert_null(r);
	assert_int_equal(err.code, ORRERY_ELIMIT);
	assert_non_null(strstr(err.message, "64"));
	assert_int_equal(orrery_link_score(ps, 0, D, NULL, NULL, &r, &err),
			 ORRERY_EINVAL);
	assert_int_equal(orrery_link_score(ps, 1, D, NULL, NULL, NULL, &err),
			 ORRERY_EINVAL);

	orrery_circle_opts_default(&o);
	o.bins = 10001;
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, &o, &r, &err),
			 ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "bins"));
	orrery_circle_opts_default(&o);
	o.cap_us = 10;
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, &o, &r, &err),
			 ORRERY_ERANGE);
	assert_non_null(strstr(err.message, "cap_us"));

	/* A catalogue model has no pattern until it is resolved. */
	assert_int_equal(orrery_profile_parse("resnet50", &model, &err),
			 ORRERY_OK);
	ps[1] = model;
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, NULL, &r, &err),
			 ORRERY_ESTATE);
	assert_null(r);
	assert_non_null(strstr(err.message, "resnet50"));
	assert_non_null(strstr(err.message, "orrery_profile_resolve"));
	ps[1] = NULL;
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, NULL, &r, &err),
			 ORRERY_EINVAL);

	/* Accessors on NULL do not crash. */
	assert_true(isnan(orrery_link_result_score(NULL)));
	assert_int_equal(orrery_link_result_job_count(NULL), 0);
	assert_int_equal(orrery_link_result_shift_us(NULL, 0), -1);
	orrery_link_result_free(NULL);

	setenv("ORRERY_FAULT", "link_score", 1);
	assert_int_equal(orrery_link_score(ps, 1, D, NULL, NULL, &r, &err),
			 ORRERY_EINTERNAL);
	unsetenv("ORRERY_FAULT");

	orrery_profile_free(model);
	orrery_profile_free(p);
}

/* Whole output of the SVG writer, malloc()ed. */
static char *svg_of(const orrery_link_result_t *r, const char *const *labels,
		    const char *title)
{
	FILE *f = tmpfile();
	long len;
	char *buf;

	assert_non_null(f);
	assert_int_equal(orrery_link_result_write_svg(r, labels, title, f, NULL),
			 ORRERY_OK);
	len = ftell(f);
	buf = calloc(1, (size_t)len + 1);
	rewind(f);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

static void svg(void **state)
{
	orrery_profile_t *p = half_duty(100000, 50000);
	const orrery_profile_t *ps[3] = {p, p, p};
	const char *labels[3] = {"<b>x&y</b>", "q\"u'o\x01te", NULL};
	orrery_link_result_t *r = NULL;
	char *a, *b;

	assert_int_equal(orrery_link_score(ps, 3, D, NULL, NULL, &r, NULL),
			 ORRERY_OK);
	a = svg_of(r, labels, "link <s1>");
	b = svg_of(r, labels, "link <s1>");
	/* Deterministic. */
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\""));
	assert_non_null(strstr(a, "</svg>"));
	/* Labels and title are user text: escaped, never markup. */
	assert_null(strstr(a, "<b>"));
	assert_null(strstr(a, "<s1>"));
	assert_non_null(strstr(a, "&lt;b&gt;x&amp;y&lt;/b&gt;"));
	assert_non_null(strstr(a, "q&quot;u&#39;o?te"));
	assert_non_null(strstr(a, "link &lt;s1&gt;"));
	assert_non_null(strstr(a, "job 2"));
	/* Three half-duty jobs cannot fit: some of the circle is red. */
	assert_non_null(strstr(a, "#d62728"));
	free(a);
	free(b);
	orrery_link_result_free(r);

	/* Two fit: nothing red. */
	assert_int_equal(orrery_link_score(ps, 2, D, NULL, NULL, &r, NULL),
			 ORRERY_OK);
	a = svg_of(r, NULL, NULL);
	assert_null(strstr(a, "#d62728"));
	assert_non_null(strstr(a, "job 1"));
	free(a);

	/* A write error is reported, not ignored. */
	FILE *full = fopen("/dev/full", "w");
	if (full) {
		orrery_error_t err;
		assert_int_equal(orrery_link_result_write_svg(r, NULL, NULL, full, &err),
				 ORRERY_EIO);
		fclose(full);
	}
	assert_int_equal(orrery_link_result_write_svg(NULL, NULL, NULL, stdout, NULL),
			 ORRERY_EINVAL);
	orrery_link_result_free(r);
	orrery_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_jobs),
		cmocka_unit_test(fixed_shifts),
		cmocka_unit_test(mixed_periods),
		cmocka_unit_test(capacity_unknown),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(svg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
