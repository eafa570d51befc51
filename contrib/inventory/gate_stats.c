/*
 * gate_stats.c - a node's gate statistics for accounting (gate_stats.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "gate_stats.h"
#include "../../plugins/common/admin_comment.h"

/* The counters a statistics file and a record share, by name.  In a file
 * the wait is total_wait_us; in a record, wait_us. */
static const struct field {
	const char *file_key, *record_key;
	size_t off;
	int max;		/* summed as a maximum, not a total */
} fields[] = {
	{ "phases", "phases", offsetof(struct ogs_totals, phases), 0 },
	{ "on_slot", "on_slot", offsetof(struct ogs_totals, on_slot), 0 },
	{ "late", "late", offsetof(struct ogs_totals, late), 0 },
	{ "missed", "missed", offsetof(struct ogs_totals, missed), 0 },
	{ "passthrough", "passthrough", offsetof(struct ogs_totals, passthrough), 0 },
	{ "total_wait_us", "wait_us", offsetof(struct ogs_totals, wait_us), 0 },
	{ "max_wait_us", "max_wait_us", offsetof(struct ogs_totals, max_wait_us), 1 },
	{ "reanchored", "reanchored", offsetof(struct ogs_totals, reanchored), 0 },
	{ "rearmed", "rearmed", offsetof(struct ogs_totals, rearmed), 0 },
	{ "disables", "disables", offsetof(struct ogs_totals, disables), 0 },
	{ "relocked", "relocked", offsetof(struct ogs_totals, relocked), 0 },
	/* every rank iterates together: the slowest rank's is the job's */
	{ "min_work_us", "iter_us", offsetof(struct ogs_totals, iter_us), 1 },
	/* how much a rank's work varies: the most irregular rank's */
	{ "range_us", "range_us", offsetof(struct ogs_totals, range_us), 1 },
	/* record only: the per-task counts */
	{ NULL, "tasks", offsetof(struct ogs_totals, tasks), 0 },
	{ NULL, "gated", offsetof(struct ogs_totals, gated), 0 },
	{ NULL, "off", offsetof(struct ogs_totals, off), 0 },
	{ NULL, "bad", offsetof(struct ogs_totals, bad), 0 },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))
#define AT(t, f) ((uint64_t *) ((char *) (t) + (f)->off))

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* b into a, field by field. */
static void add_totals(struct ogs_totals *a, const struct ogs_totals *b)
{
	for (size_t i = 0; i < N_FIELDS; i++) {
		uint64_t *x = AT(a, &fields[i]), y = *AT(b, &fields[i]);

		*x = fields[i].max ? (y > *x ? y : *x) : add_sat(*x, y);
	}
}

#define STATS_HEADER "# orrery-runtime stats 1\n"

int ogs_stats_add(const char *text, struct ogs_totals *t, char *err,
		  size_t errlen)
{
	struct ogs_totals one;
	const char *p;
	int active = -1, mode_off = 0;

	memset(&one, 0, sizeof(one));
	if (strncmp(text, STATS_HEADER, strlen(STATS_HEADER)) != 0) {
		snprintf(err, errlen, "not an orrery-runtime statistics file (version 1)");
		return -1;
	}
	for (p = text + strlen(STATS_HEADER); *p; ) {
		size_t n = strcspn(p, "\n"), kl;
		char val[32];
		const char *eq = memchr(p, '=', n);

		if (!eq) {
			snprintf(err, errlen, "line '%.*s' is not key=value", (int) (n > 40 ? 40 : n), p);
			return -1;
		}
		kl = (size_t) (eq - p);
		if (n - kl - 1 < sizeof(val)) {
			memcpy(val, eq + 1, n - kl - 1);
			val[n - kl - 1] = '\0';
		} else {
			val[0] = '\0';	/* too long: only free text (host=) may be */
		}
		if (kl == 6 && !strncmp(p, "active", 6)) {
			if (strcmp(val, "0") && strcmp(val, "1")) {
				snprintf(err, errlen, "active=%s is neither 0 nor 1", val);
				return -1;
			}
			active = val[0] == '1';
		} else if (kl == 4 && !strncmp(p, "mode", 4)) {
			mode_off = !strcmp(val, "off");
		} else {
			for (size_t i = 0; i < N_FIELDS && fields[i].file_key; i++) {
				const char *k = fields[i].file_key;

				if (strlen(k) != kl || strncmp(p, k, kl))
					continue;
				if (orc_parse_u64(val, AT(&one, &fields[i])) < 0) {
					snprintf(err, errlen, "%s=%s is not a count", k, val);
					return -1;
				}
				break;
			}
		}
		p += n;
		p += *p == '\n';
	}
	if (active < 0) {
		snprintf(err, errlen, "no active= line");
		return -1;
	}
	one.tasks = 1;
	one.gated = (uint64_t) active;
	one.off = (uint64_t) (active && mode_off);
	add_totals(t, &one);
	return 0;
}

int ogs_record_format(const char *node, const struct ogs_totals *t,
		      char *buf, size_t len)
{
	size_t o;
	int n;

	if (!orc_valid_node(node))
		return -1;
	n = snprintf(buf, len, OGS_TAG "node=%s", node);
	if (n < 0 || (size_t) n >= len)
		return -1;
	o = (size_t) n;
	/* the per-task counts first: they say what the rest is over */
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < N_FIELDS; i++) {
			if ((pass == 0) != !fields[i].file_key)
				continue;
			n = snprintf(buf + o, len - o, ",%s=%" PRIu64,
				     fields[i].record_key, *AT(t, &fields[i]));
			if (n < 0 || (size_t) n >= len - o)
				return -1;
			o += (size_t) n;
		}
	return 0;
}

static void stats_field(const char *key, uint64_t v, void *arg)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (strcmp(key, fields[i].record_key) == 0) {
			*AT(arg, &fields[i]) = v;
			return;
		}
}

int ogs_record_parse(const char *token, struct ogs_totals *t, char *node,
		     size_t nodelen)
{
	memset(t, 0, sizeof(*t));
	if (strlen(token) >= OGS_RECORD_MAX ||
	    orc_record_walk(token, OGS_TAG, node, nodelen, stats_field, t) < 0)
		return -1;
	t->nodes = 1;
	return 1;
}

struct sum_arg {
	struct ogs_totals *t;
	int bad;
};

static void sum_one(const char *p, size_t n, void *arg)
{
	struct sum_arg *a = arg;
	struct ogs_totals one;
	char tok[OGS_RECORD_MAX], node[64];

	if (n >= sizeof(tok)) {
		a->bad = 1;
		return;
	}
	memcpy(tok, p, n);
	tok[n] = '\0';
	if (ogs_record_parse(tok, &one, node, sizeof(node)) < 0) {
		a->bad = 1;
		return;
	}
	add_totals(a->t, &one);
	a->t->nodes++;
}

int ogs_comment_sum(const char *comment, struct ogs_totals *t)
{
	struct sum_arg a = { t, 0 };

	memset(t, 0, sizeof(*t));
	orr_comment_each(comment, OGS_TAG, sum_one, &a);
	return a.bad ? -1 : (int) t->nodes;
}

char *ogs_comment_merge(const char *old, const char *node, const char *record)
{
	struct orr_node_token nt = { OGS_TAG, node };

	return orr_comment_replace(old, orr_token_is_node, &nt, record);
}
