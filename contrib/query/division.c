/*
 * division.c - print what liborrery chose for each link group: the
 * predicted iteration time of every job under rotation, time division and
 * free sharing, and the mode chosen (score and solve).
 */
#include <stdlib.h>
#include <string.h>

#include "query.h"

static const char *fmt_pred(char *buf, size_t n, double us)
{
	if (us < 0)
		return "-";
	return fmt_time(buf, n, (int64_t)(us + 0.5));
}

/* The slot column of job jb in group gr: its slot's start in the common
 * period, with "every P" when it has several slots; "-" without a
 * division. */
static const char *slot_text(char *buf, size_t n, const orrery_division_group_t *gr,
			     const orrery_division_job_t *jb)
{
	char s[FMT_N], p[FMT_N];
	if (!gr->period_us)
		snprintf(buf, n, "-");
	else if (jb->divide_period_us && jb->divide_period_us != gr->period_us)
		snprintf(buf, n, "%s every %s", fmt_time(s, sizeof s, jb->divide_shift_us),
			 fmt_time(p, sizeof p, jb->divide_period_us));
	else
		fmt_time(buf, n, jb->divide_shift_us);
	return buf;
}

void print_division(const orrery_division_t *d, const orrery_topology_t *t,
		    int one_based)
{
	char a[FMT_N], b[FMT_N], c[FMT_N], e[FMT_N], f[FMT_N];
	size_t ng = orrery_division_group_count(d);

	printf("link groups  %zu\n", ng);
	for (size_t i = 0; i < ng; i++) {
		orrery_division_group_t gr;
		uint32_t sw[16];
		size_t nl;
		if (orrery_division_group(d, i, &gr))
			continue;
		printf("\n  group %zu: %u job%s, %u link%s", i + 1, gr.jobs,
		       gr.jobs == 1 ? "" : "s", gr.links, gr.links == 1 ? "" : "s");
		nl = orrery_division_group_links(d, i, sw, 16);
		if (t && nl) {
			printf(" (");
			for (size_t k = 0; k < nl && k < 16; k++)
				printf("%s%s", k ? " " : "",
				       orrery_topology_switch_name(t, sw[k]));
			printf("%s)", nl > 16 ? " ..." : "");
		}
		printf("\n  choice     %s%s%s\n", orrery_group_mode_name(gr.mode),
		       gr.mode == ORRERY_GROUP_DIVIDE ? ", common period " : "",
		       gr.mode == ORRERY_GROUP_DIVIDE
			       ? fmt_time(a, sizeof a, gr.period_us) : "");
		printf("  because    %s\n", gr.reason);
		if (gr.period_us && gr.mode != ORRERY_GROUP_DIVIDE)
			printf("  division   common period %s (not chosen)\n",
			       fmt_time(a, sizeof a, gr.period_us));
		/* The slot column as wide as its widest entry ("first every
		 * period" is wider than the other columns' times). */
		int sw_slot = 10;
		for (size_t j = 0; j < orrery_division_job_count(d); j++) {
			orrery_division_job_t jb;
			char slot[64];
			if (orrery_division_job(d, j, &jb) || jb.group != (long)i)
				continue;
			int w = (int)strlen(slot_text(slot, sizeof slot, &gr, &jb));
			if (w > sw_slot)
				sw_slot = w;
		}
		printf("    %-8s  %-10s  %-10s  %-10s  %-*s  %-10s  %s\n", "job",
		       "isolated", "rotate", "divide", sw_slot, "slot", "share", "gate");
		for (size_t j = 0; j < orrery_division_job_count(d); j++) {
			orrery_division_job_t jb;
			char gate[64];
			char slot[64];
			if (orrery_division_job(d, j, &jb) || jb.group != (long)i)
				continue;
			slot_text(slot, sizeof slot, &gr, &jb);
			if (jb.gated)
				snprintf(gate, sizeof gate, "%s + %s",
					 fmt_time(a, sizeof a, jb.shift_us),
					 fmt_time(b, sizeof b, jb.period_us));
			else
				snprintf(gate, sizeof gate, "off");
			printf("    %-8u  %-10s  %-10s  %-10s  %-*s  %-10s  %s\n",
			       jb.job_id + (one_based ? 1 : 0),
			       fmt_time(c, sizeof c, jb.isolated_us),
			       fmt_pred(e, sizeof e, jb.iter_rotate_us),
			       fmt_pred(f, sizeof f, jb.iter_divide_us),
			       sw_slot, slot, fmt_pred(a, sizeof a, jb.iter_share_us), gate);
		}
	}
}
