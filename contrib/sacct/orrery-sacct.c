/*
 * orrery-sacct - print what orrery recorded for jobs, as sacct columns.
 *
 * The select plugin appends an ORR1: record to each placed job's
 * AdminComment (select-orrery(8)); slurmdbd stores it when the job ends.
 * With the SPANK plugin's counters=1, every node adds an ORRC1: record of
 * its RDMA congestion counters over the job (orrery-counters(7)); they are
 * summed over the job's nodes here.
 * This tool runs sacct(1) with a fixed argument vector (never a shell),
 * decodes the record with the plugin's own decoder and prints one row per
 * job.  See orrery-sacct(1).
 *
 * Two readers: a person (aligned columns, those with no data in any row
 * hidden, the request first and the long pattern last) and a script
 * (--parsable: every column, always in the same order, so that fields
 * can be cut by position).  -o picks columns for either.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin_record.h"
#include "channel_record.h"
#include "measure_record.h"
#include "counters.h"
#include "gate_stats.h"
#include "hostlist_slurm.h"
#include "orrery.h"

/* A node's ORRC1: record reaches AdminComment a few seconds after the job
 * ends (the publisher's settle time and its retries, orrery-counters(7)):
 * a node missing for less than this since the end may still arrive. */
#define PUBLISH_GRACE_S 60

static char *opt_jobs, *opt_start, *opt_end, *opt_user, *opt_sacct,
	*opt_format;
static gboolean opt_all, opt_parsable, opt_noheader, opt_only;

static GOptionEntry entries[] = {
	{ "jobs", 'j', 0, G_OPTION_ARG_STRING, &opt_jobs,
	  "job ids, as sacct -j takes them", "LIST" },
	{ "starttime", 'S', 0, G_OPTION_ARG_STRING, &opt_start,
	  "jobs in this state after TIME (sacct -S)", "TIME" },
	{ "endtime", 'E', 0, G_OPTION_ARG_STRING, &opt_end,
	  "jobs in this state before TIME (sacct -E)", "TIME" },
	{ "user", 'u', 0, G_OPTION_ARG_STRING, &opt_user,
	  "jobs of these users (sacct -u)", "LIST" },
	{ "allusers", 'a', 0, G_OPTION_ARG_NONE, &opt_all,
	  "jobs of all users (sacct -a)", NULL },
	{ "parsable", 'p', 0, G_OPTION_ARG_NONE, &opt_parsable,
	  "'|'-separated output, like sacct --parsable2", NULL },
	{ "noheader", 'n', 0, G_OPTION_ARG_NONE, &opt_noheader,
	  "no header line", NULL },
	{ "orrery-only", 0, 0, G_OPTION_ARG_NONE, &opt_only,
	  "only jobs orrery placed or measured (ORR1:, ORRG1:, ORRC1: or ORRS1: records)", NULL },
	{ "format", 'o', 0, G_OPTION_ARG_STRING, &opt_format,
	  "columns to print, in this order (names as in the header, any case)",
	  "LIST" },
	{ "sacct", 0, 0, G_OPTION_ARG_FILENAME, &opt_sacct,
	  "sacct program to run (default: sacct on PATH)", "PATH" },
	{ NULL }
};

/* --parsable order: scripts cut fields 1..17 by position (tests/discover
 * among them); new columns go at the end. */
enum { C_JOBID, C_NAME, C_STATE, C_NODES, C_PERIOD, C_SHIFT, C_SMIN,
       C_SMEAN, C_LINKS, C_CNODES, C_TX, C_RX, C_WAIT, C_ECN, C_CNPH, C_CNPS,
       C_PATTERN, C_REQUESTED, C_FALLBACK, C_MISSING, C_REALIGNED,
       C_LASTGATE, C_HELD, C_GNODES, C_GTASKS, C_GPHASES, C_ONSLOT, C_GMISSED,
       C_GWAIT, C_REARMED, C_GOFF, C_SMISSING, C_ITER, C_POFF, C_IRANGE,
       C_REPORTED, N_COLS };
static const char *headers[N_COLS + 1] = {	/* NULL-terminated: g_strjoinv */
	"JobID", "JobName", "State", "NodeList", "GatePeriod", "Shift",
	"ScoreMin", "ScoreMean", "Links", "CtrNodes", "TxBytes", "RxBytes",
	"XmitWait", "EcnMarked", "CnpHandled", "CnpSent", "Pattern",
	"Requested", "Fallback", "CtrMissing", "Realigned", "LastGate", "Held",
	"GateNodes", "GateTasks", "GatePhases", "OnSlot", "GateMissed",
	"GateWait", "Rearmed", "GateOff", "StatsMissing", "Iteration", "ProfileOff",
	"IterRange", "Reported", NULL
};
/* The default view's order: what was asked, what orrery did with it,
 * what the network saw; the resolved pattern (long) last. */
static const int human_order[N_COLS] = {
	C_JOBID, C_NAME, C_STATE, C_NODES, C_REQUESTED, C_FALLBACK, C_HELD, C_PERIOD,
	C_SHIFT, C_REALIGNED, C_LASTGATE, C_REPORTED, C_GNODES, C_GTASKS, C_GPHASES, C_ONSLOT,
	C_GMISSED, C_GWAIT, C_REARMED, C_GOFF, C_SMISSING, C_ITER, C_POFF, C_IRANGE, C_SMIN, C_SMEAN, C_LINKS, C_CNODES, C_MISSING, C_TX, C_RX,
	C_WAIT, C_ECN, C_CNPH, C_CNPS, C_PATTERN,
};
/* Columns never hidden for lack of data. */
#define ALWAYS_SHOWN(c) ((c) <= C_NODES)
/* Column of each counter, in enum orc_counter order. */
static const int counter_col[ORC_N] = {
	[ORC_XMIT_DATA] = C_TX, [ORC_RCV_DATA] = C_RX, [ORC_XMIT_WAIT] = C_WAIT,
	[ORC_ECN_MARKED] = C_ECN, [ORC_CNP_HANDLED] = C_CNPH,
	[ORC_CNP_SENT] = C_CNPS,
};

static char *ms(int64_t us)
{
	return g_strdup_printf("%.3fms", (double) us / 1000.0);
}

static void add_host(const char *host, void *ectx)
{
	g_ptr_array_add(ectx, g_strdup(host));
}

/* Seconds since sacct's End (local time, "2026-12-01T13:05:09"); -1 when
 * it has none (Unknown, still running) or cannot be read. */
static int64_t ended_ago(const char *end)
{
	g_autoptr(GTimeZone) tz = g_time_zone_new_local();
	g_autoptr(GDateTime) t = NULL, now = g_date_time_new_now_local();

	if (!end || !g_ascii_isdigit(*end))
		return -1;
	if (!(t = g_date_time_new_from_iso8601(end, tz)))
		return -1;
	return g_date_time_difference(now, t) / G_TIME_SPAN_SECOND;
}

/*
 * The nodes of `nodelist' that have no record of `kind' ("ORRC1:",
 * "ORRS1:") in `comment' (only asked when at least one node has one: then
 * every node of the job should have published), each with why:
 * "NAME(pending)" while the job ended less than PUBLISH_GRACE_S ago, else
 * "NAME(lost)" (the node's publish.log says what happened).  "-": none.
 */
static char *missing_nodes(const char *nodelist, const char *comment,
			   const char *kind, int64_t ago)
{
	g_autoptr(GPtrArray) hosts = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GString) out = g_string_new(NULL);

	if (hostlist_slurm_expand(nodelist, NULL, add_host, hosts) != 0)
		return g_strdup("?(unreadable NodeList)");
	for (guint i = 0; i < hosts->len; i++) {
		const char *h = g_ptr_array_index(hosts, i);
		g_autofree char *tok = g_strdup_printf("%snode=%s,", kind, h);
		bool found = false;

		/* a record is a whole word: at the start or after a space */
		for (const char *p = comment; (p = strstr(p, tok)); p++)
			if (p == comment || p[-1] == ' ') {
				found = true;
				break;
			}
		if (found)
			continue;
		g_string_append_printf(out, "%s%s(%s)", out->len ? "," : "", h,
				       ago >= 0 && ago < PUBLISH_GRACE_S ?
				       "pending" : "lost");
	}
	return out->len ? g_string_free(g_steal_pointer(&out), FALSE) :
		g_strdup("-");
}

/* The gate's own statistics (spank-orrery(8), gate_stats=1): summed
 * over the tasks of the nodes that published them.  OnSlot is the share
 * of the phases held for a slot that went on it; GateWait the time the
 * gate held communication, summed over tasks; Iteration the slowest
 * task's shortest work of its gate's latest window, and ProfileOff that
 * against the profile's period. */
static void gate_stats_cells(GPtrArray *row, const char *nodelist,
			     const char *comment, int64_t ago,
			     int64_t profile_period_us, int *is_orrery)
{
	struct ogs_totals g;
	int rc = ogs_comment_sum(comment, &g);

#define SET(col, val) do { g_free(row->pdata[col]); row->pdata[col] = (val); } while (0)
	if (!g.nodes) {
		if (rc < 0)
			SET(C_GNODES, g_strdup("bad"));
		return;
	}
	*is_orrery = 1;
	SET(C_GNODES, g_strdup_printf("%u%s", g.nodes, rc < 0 ? "+bad" : ""));
	/* Every node of the job publishes one, tasks=0 included. */
	SET(C_SMISSING, missing_nodes(nodelist, comment, "ORRS1:", ago));
	SET(C_GTASKS, g_strdup_printf("%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "%s",
				      (guint64) g.gated, (guint64) g.tasks,
				      g.bad ? "+bad" : ""));
	if (!g.gated)
		return;
	SET(C_GPHASES, g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) g.phases));
	/* Phases passed through while a gate was off had no slot. */
	if (g.phases > g.passthrough)
		SET(C_ONSLOT, g_strdup_printf("%.1f%%", 100.0 * (double) g.on_slot /
					      (double) (g.phases - g.passthrough)));
	SET(C_GMISSED, g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) g.missed));
	SET(C_GWAIT, g_strdup_printf("%.3fs", (double) g.wait_us / 1e6));
	SET(C_REARMED, g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) g.rearmed));
	SET(C_GOFF, g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) g.off));
	if (!g.iter_us)
		return;
	SET(C_ITER, ms((int64_t) g.iter_us));
	/* How far the measured iteration is from the profile's period:
	 * "+4.2%": each iteration took 4.2 % longer than the profile says.
	 * A neighbour's traffic only lengthens the measurement, so a
	 * positive figure may be contention; a negative one is the
	 * profile's own. */
	if (profile_period_us > 0)
		SET(C_POFF, g_strdup_printf("%+.1f%%", 100.0 *
			((double) g.iter_us - (double) profile_period_us) /
			(double) profile_period_us));
	/* How much the iterations vary, as a share of the iteration: the
	 * spread a gate margin has to cover (spank-orrery(8), gate_margin=). */
	if (g.range_us)
		SET(C_IRANGE, g_strdup_printf("%.1f%%", 100.0 * (double) g.range_us /
					      (double) g.iter_us));
#undef SET
}

/* The period of the resolved profile in an ORR1: record; 0 if none. */
static int64_t period_of(const char *profile)
{
	orrery_profile_t *p = NULL;
	orrery_error_t err;
	int64_t per;

	if (!profile || orrery_profile_parse(profile, &p, &err) != ORRERY_OK)
		return 0;
	per = orrery_profile_period_us(p);
	orrery_profile_free(p);
	return per;
}

/* One sacct line: JobID|JobName|State|NodeList|End|AdminComment.
 * AdminComment comes last so a '|' inside it cannot shift the other
 * fields. */
static GPtrArray *row_of(const char *line, int *is_orrery)
{
	g_auto(GStrv) f = g_strsplit(line, "|", 6);
	GPtrArray *row = g_ptr_array_new_with_free_func(g_free);
	orrery_admin_record_t r;
	struct orc_totals t;
	int64_t profile_period = 0;
	int rc, crc;

	*is_orrery = 0;
	if (g_strv_length(f) < 6) {
		g_ptr_array_unref(row);
		return NULL;
	}
	for (int i = 0; i < N_COLS; i++)
		g_ptr_array_add(row, g_strdup(i < 4 ? f[i] : "-"));
#define SET(col, val) do { g_free(row->pdata[col]); row->pdata[col] = (val); } while (0)
	rc = orrery_admin_record_parse(f[5], &r);
	if (rc == 1) {
		*is_orrery = 1;
		if (r.placed) {
			SET(C_PERIOD, ms(r.period_us));
			SET(C_SHIFT, ms(r.shift_us));
			SET(C_SMIN, g_strdup_printf("%.3f", r.score_min));
			SET(C_SMEAN, g_strdup_printf("%.3f", r.score_mean));
			SET(C_LINKS, g_strdup_printf("%zu", r.links));
			SET(C_PATTERN, g_strdup(r.profile ? r.profile : "-"));
			profile_period = period_of(r.profile);
		}
		if (r.requested)
			SET(C_REQUESTED, g_strdup_printf("%s%s", r.requested,
							 r.from_default ? " (default_profile)" : ""));
		if (r.fallback)
			SET(C_FALLBACK, g_strdup(r.fallback));
		if (r.held_s > 0)
			SET(C_HELD, g_strdup_printf("%" G_GINT64_FORMAT "s", (gint64) r.held_s));
		orrery_admin_record_clear(&r);
	} else if (rc < 0) {
		SET(C_PATTERN, g_strdup("(malformed ORR1: record)"));
	}
	/* The live channel's last record (select-orrery(8), CHANNEL): how
	 * many times the job was re-aligned, and the gate it ended with. */
	{
		orrc_record_t g;
		char why[128];
		int grc = orrc_parse_comment(f[5], &g, why, sizeof(why));

		if (grc == 1) {
			*is_orrery = 1;
			SET(C_REALIGNED, g_strdup_printf("%" G_GUINT64_FORMAT, (guint64) g.gen));
			if (g.gate)
				SET(C_LASTGATE, g_strdup_printf("%.3fms+%.3fms(%s)",
							g.period_us / 1000.0,
							g.shift_us / 1000.0, g.mode));
			else
				SET(C_LASTGATE, g_strdup_printf("off(%s)", g.mode));
		} else if (grc < 0) {
			SET(C_REALIGNED, g_strdup("bad"));
		}
	}
	/* Learning the period (select-orrery(8)): the newest measured
	 * iteration the job's batch host reported, and how many reports. */
	{
		orrm_record_t m;
		char why[128];
		int mrc = orrm_parse_comment(f[5], &m, why, sizeof(why));

		if (mrc == 1) {
			*is_orrery = 1;
			SET(C_REPORTED, g_strdup_printf("%.3fms(%" G_GUINT64_FORMAT ")",
							m.iter_us[m.n - 1] / 1000.0,
							(guint64) m.seq));
		} else if (mrc < 0) {
			SET(C_REPORTED, g_strdup("bad"));
		}
	}
	/* Congestion counters: summed over the nodes that recorded them; a
	 * counter no node had stays "-", never 0. */
	crc = orc_comment_sum(f[5], &t);
	if (t.nodes) {
		*is_orrery = 1;
		SET(C_CNODES, g_strdup_printf("%u%s", t.nodes, crc < 0 ? "+bad" : ""));
		SET(C_MISSING, missing_nodes(f[3], f[5], "ORRC1:", ended_ago(f[4])));
		for (int c = 0; c < ORC_N; c++)
			if (t.have & (1u << c))
				SET(counter_col[c], g_strdup_printf("%" G_GUINT64_FORMAT,
						(guint64) t.v[c]));
	} else if (crc < 0) {
		SET(C_CNODES, g_strdup("bad"));
	}
	gate_stats_cells(row, f[3], f[5], ended_ago(f[4]), profile_period, is_orrery);
#undef SET
	return row;
}

/* Aligned columns (sacct's look), or '|'-separated with --parsable;
 * cols[0..n) are the column indices to print. */
static void print_row(const char *const *cells, const size_t *width,
		      const int *cols, int n)
{
	for (int i = 0; i < n; i++) {
		int c = cols[i];

		if (opt_parsable)
			printf("%s%s", cells[c], i + 1 < n ? "|" : "\n");
		else if (i + 1 < n)
			printf("%-*s ", (int) width[c], cells[c]);
		else
			printf("%s\n", cells[c]);
	}
}

/* -o LIST: column names (any case) in the order given.  -1 on an unknown
 * name (reported). */
static int parse_format(const char *list, int *cols)
{
	g_auto(GStrv) names = g_strsplit(list, ",", -1);
	int n = 0;

	for (size_t i = 0; names[i]; i++) {
		const char *name = g_strstrip(names[i]);
		int c;

		if (!*name)
			continue;
		for (c = 0; c < N_COLS; c++)
			if (!g_ascii_strcasecmp(name, headers[c]))
				break;
		if (c == N_COLS || n == N_COLS) {
			g_autofree char *known = g_strjoinv(",", (char **) headers);

			if (c == N_COLS)
				fprintf(stderr, "orrery-sacct: -o: unknown column '%s' (known: %s)\n",
					name, known);
			else
				fprintf(stderr, "orrery-sacct: -o: more than %d columns\n",
					N_COLS);
			return -1;
		}
		cols[n++] = c;
	}
	if (!n) {
		fprintf(stderr, "orrery-sacct: -o: no column named\n");
		return -1;
	}
	return n;
}

static const char *cell(GPtrArray *rows, guint i, int c)
{
	return g_ptr_array_index((GPtrArray *) g_ptr_array_index(rows, i), c);
}

int main(int argc, char **argv)
{
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("- orrery's per-job records from accounting");
	g_autoptr(GError) gerr = NULL;
	g_autoptr(GPtrArray) av = g_ptr_array_new();
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(
		(GDestroyNotify) g_ptr_array_unref);
	g_autofree char *out = NULL, *errout = NULL;
	g_auto(GStrv) lines = NULL;
	size_t width[N_COLS];
	int cols[N_COLS], n_cols = 0;
	int status = 0;

	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!g_option_context_parse(ctx, &argc, &argv, &gerr)) {
		fprintf(stderr, "orrery-sacct: %s (try --help)\n", gerr->message);
		return 2;
	}
	if (argc > 1) {
		fprintf(stderr, "orrery-sacct: unexpected argument '%s' (try --help)\n",
			argv[1]);
		return 2;
	}
	if (opt_format && (n_cols = parse_format(opt_format, cols)) < 0)
		return 2;
	if (!opt_sacct)
		opt_sacct = getenv("ORRERY_SACCT") ? getenv("ORRERY_SACCT") : "sacct";
	g_ptr_array_add(av, opt_sacct);
	g_ptr_array_add(av, "--allocations");
	g_ptr_array_add(av, "--noheader");
	g_ptr_array_add(av, "--parsable2");
	g_ptr_array_add(av, "--format=JobID,JobName,State,NodeList,End,AdminComment");
	if (opt_jobs) { g_ptr_array_add(av, "-j"); g_ptr_array_add(av, opt_jobs); }
	if (opt_start) { g_ptr_array_add(av, "-S"); g_ptr_array_add(av, opt_start); }
	if (opt_end) { g_ptr_array_add(av, "-E"); g_ptr_array_add(av, opt_end); }
	if (opt_user) { g_ptr_array_add(av, "-u"); g_ptr_array_add(av, opt_user); }
	if (opt_all)
		g_ptr_array_add(av, "-a");
	g_ptr_array_add(av, NULL);

	if (!g_spawn_sync(NULL, (char **) av->pdata, NULL, G_SPAWN_SEARCH_PATH,
			  NULL, NULL, &out, &errout, &status, &gerr)) {
		fprintf(stderr, "orrery-sacct: cannot run %s: %s\n", opt_sacct,
			gerr->message);
		return 1;
	}
	if (!g_spawn_check_wait_status(status, &gerr)) {
		fprintf(stderr, "orrery-sacct: %s failed (%s): %s", opt_sacct,
			gerr->message, errout && *errout ? errout : "no message\n");
		return 1;
	}

	lines = g_strsplit(out, "\n", -1);
	for (size_t i = 0; lines[i]; i++) {
		int is_orrery;
		GPtrArray *row;

		if (!*lines[i])
			continue;
		row = row_of(lines[i], &is_orrery);
		if (!row) {
			fprintf(stderr, "orrery-sacct: skipping unexpected sacct line %zu\n",
				i + 1);
			continue;
		}
		if (opt_only && !is_orrery) {
			g_ptr_array_unref(row);
			continue;
		}
		g_ptr_array_add(rows, row);
	}

	for (int c = 0; c < N_COLS; c++) {
		width[c] = strlen(headers[c]);
		for (guint i = 0; i < rows->len; i++) {
			size_t w = strlen(cell(rows, i, c));
			if (w > width[c])
				width[c] = w;
		}
	}
	if (!n_cols && opt_parsable) {
		for (int c = 0; c < N_COLS; c++)
			cols[n_cols++] = c;
	} else if (!n_cols) {
		/* a column no row has data in says nothing to a reader */
		for (int k = 0; k < N_COLS; k++) {
			int c = human_order[k];
			bool data = ALWAYS_SHOWN(c) || !rows->len;

			for (guint i = 0; i < rows->len && !data; i++)
				data = strcmp(cell(rows, i, c), "-") != 0;
			if (data)
				cols[n_cols++] = c;
		}
	}
	if (!opt_noheader)
		print_row(headers, width, cols, n_cols);
	for (guint i = 0; i < rows->len; i++) {
		GPtrArray *row = g_ptr_array_index(rows, i);
		print_row((const char *const *) row->pdata, width, cols, n_cols);
	}
	return 0;
}
