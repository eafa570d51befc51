/*
 * orrery_conf.c - parse orrery.conf (doc/orrery.conf.5).
 *
 * Strict on purpose: an unknown group or key is an error, so a typo does
 * not silently leave a capacity unset.  Limits on file size, switch
 * sections and numbers keep a hostile or broken file harmless.
 */
#include <errno.h>
#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orrery.h"		/* ORRERY_HOLD_*_DEFAULT: the example in hold='s error */
#include "orrery_conf.h"

static const char *const mode_names[] = { "off", "advise", "enforce" };

const char *orrery_mode_name(orrery_mode_t m)
{
	if ((unsigned) m < G_N_ELEMENTS(mode_names))
		return mode_names[m];
	return "?";
}

void orrery_conf_init(orrery_conf_t *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = ORRERY_MODE_ENFORCE;
	c->candidates = 64;
	c->rank_spread = ORRERY_CONF_DEFAULT_RANK_SPREAD;
	c->linkspeed_unit_mbps = 1000;
	c->channel_lead_ms = ORRERY_CONF_DEFAULT_CHANNEL_LEAD_MS;
}

void orrery_conf_free(orrery_conf_t *c)
{
	for (size_t i = 0; i < c->n_switches; i++)
		free(c->switches[i].name);
	free(c->switches);
	free(c->default_profile);
	orrery_conf_init(c);
}

/*
 * Errors are collected, not stopped at: an admin fixing orrery.conf sees
 * every bad key of one load at once (up to ORRERY_CONF_MAX_ERRORS), one
 * per line of err.  Each call adds one line; past the cap one last line
 * says how many more there were.
 */
static size_t n_errors;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	n_errors++;
	if (!err || !errlen)
		return;
	used = strnlen(err, errlen);
	if (n_errors > ORRERY_CONF_MAX_ERRORS) {
		/* rewritten at every further error: "(N more errors)" */
		char *last = strrchr(err, '\n');

		if (n_errors > ORRERY_CONF_MAX_ERRORS + 1 && last)
			used = (size_t) (last - err);
		if (used + 1 < errlen)
			snprintf(err + used, errlen - used, "\n(%zu more errors)",
				 n_errors - ORRERY_CONF_MAX_ERRORS);
		return;
	}
	if (used && used + 1 < errlen)
		err[used++] = '\n';
	if (used + 1 >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + used, errlen - used, fmt, ap);
	va_end(ap);
}

int orrery_conf_parse_rate(const char *s, uint64_t *mbps)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "tbps", 1e6 }, { "tb/s", 1e6 },
		{ "gbps", 1e3 }, { "gb/s", 1e3 },
		{ "mbps", 1.0 }, { "mb/s", 1.0 },
	};
	char *end;
	double v;

	if (!s)
		return -1;
	while (g_ascii_isspace(*s))
		s++;
	if (!g_ascii_isdigit(*s))
		return -1;
	errno = 0;
	v = g_ascii_strtod(s, &end);
	if (errno || end == s)
		return -1;
	while (g_ascii_isspace(*end))
		end++;
	for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
		size_t n = strlen(units[i].unit);

		if (g_ascii_strncasecmp(end, units[i].unit, n))
			continue;
		end += n;
		while (g_ascii_isspace(*end))
			end++;
		if (*end)
			return -1;
		v *= units[i].mult;
		/* 1 Mb/s .. 1 Pb/s: anything else is a typo. */
		if (v < 1.0 || v > 1e9)
			return -1;
		*mbps = (uint64_t) (v + 0.5);
		return 0;
	}
	return -1;
}

#define RATE_HELP "a rate such as 100Gbps, 400Mbps or 1.6Tbps (1Mbps..1000Tbps)"
#define UPLINK_HELP RATE_HELP ", or KxRATE for K parallel links (ECMP, K 1..1024) such as 8x400Gbps"

int orrery_conf_parse_uplink(const char *s, uint64_t *mbps, uint32_t *links)
{
	const char *x;
	char *end;
	unsigned long long k;
	uint64_t one;

	if (!s)
		return -1;
	while (g_ascii_isspace(*s))
		s++;
	x = strpbrk(s, "xX");
	if (!x || !g_ascii_isdigit(*s)) {
		if (orrery_conf_parse_rate(s, mbps))
			return -1;
		*links = 1;
		return 0;
	}
	errno = 0;
	k = g_ascii_strtoull(s, &end, 10);
	while (g_ascii_isspace(*end))
		end++;
	if (errno || end != x || k < 1 || k > ORRERY_CONF_MAX_LINKS)
		return -1;
	if (orrery_conf_parse_rate(x + 1, &one))
		return -1;
	if (one > UINT64_MAX / k || one * k > (uint64_t) 1e9)
		return -1;	/* past 1000 Tb/s in all */
	*mbps = one * k;
	*links = (uint32_t) k;
	return 0;
}

/* Read key as an uplink (rate or KxRATE); 1 if absent, 0 if set, -1 on
 * error. */
static int get_uplink(GKeyFile *kf, const char *name, const char *group,
		      const char *key, uint64_t *out, uint32_t *links,
		      char *err, size_t errlen)
{
	g_autofree char *v = g_key_file_get_value(kf, group, key, NULL);

	if (!v)
		return 1;
	if (orrery_conf_parse_uplink(v, out, links)) {
		set_err(err, errlen, "%s: [%s] %s=%s: expected " UPLINK_HELP,
			name, group, key, v);
		return -1;
	}
	return 0;
}

/* Read key as a rate; 1 if absent, 0 if set, -1 on error. */
/* A decimal integer lo..hi into *out (untouched on error): digits only,
 * no sign (strtoull would take "-1" as 2^64-1 and "+5" as 5). */
static int parse_uint(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	unsigned long long n;
	char *end;

	if (!g_ascii_isdigit(*v))
		return -1;
	errno = 0;
	n = g_ascii_strtoull(v, &end, 10);
	if (*end || errno || n < lo || n > hi)
		return -1;
	*out = (uint32_t) n;
	return 0;
}

/* hold=off, or hold=COST,SECONDS: COST a decimal in (0, 100], SECONDS an
 * integer 1..ORRERY_CONF_MAX_HOLD_S. */
static int parse_hold(const char *v, double *cost, uint32_t *max_s)
{
	const char *comma = strchr(v, ',');
	g_autofree char *c = NULL;
	char *end;
	double x;

	if (!strcmp(v, "off")) {
		*cost = 0;
		*max_s = 0;
		return 0;
	}
	if (!comma || comma == v)
		return -1;
	c = g_strndup(v, (gsize) (comma - v));
	errno = 0;
	x = g_ascii_strtod(c, &end);
	if (*end || errno || !(x > 0) || x > ORRERY_CONF_MAX_HOLD_COST ||
	    parse_uint(comma + 1, 1, ORRERY_CONF_MAX_HOLD_S, max_s))
		return -1;
	*cost = x;
	return 0;
}

/* learn=off, or learn=TOL: a decimal in (0, ORRERY_CONF_MAX_LEARN]. */
static int parse_learn(const char *v, double *tol)
{
	char *end;
	double x;

	if (!strcmp(v, "off")) {
		*tol = 0;
		return 0;
	}
	errno = 0;
	x = g_ascii_strtod(v, &end);
	if (!*v || *end || errno || !(x > 0) || x > ORRERY_CONF_MAX_LEARN)
		return -1;
	*tol = x;
	return 0;
}

static int get_rate(GKeyFile *kf, const char *name, const char *group,
		    const char *key, uint64_t *out, char *err, size_t errlen)
{
	g_autofree char *v = g_key_file_get_value(kf, group, key, NULL);

	if (!v)
		return 1;
	if (orrery_conf_parse_rate(v, out)) {
		set_err(err, errlen, "%s: [%s] %s=%s: expected " RATE_HELP,
			name, group, key, v);
		return -1;
	}
	return 0;
}

static int parse_orrery_group(GKeyFile *kf, const char *name,
			      orrery_conf_t *c, char *err, size_t errlen)
{
	g_auto(GStrv) keys = g_key_file_get_keys(kf, "orrery", NULL, NULL);

	for (size_t i = 0; keys && keys[i]; i++) {
		const char *k = keys[i];
		g_autofree char *raw = g_key_file_get_value(kf, "orrery", k,
							    NULL);
		g_autofree char *v = g_strstrip(g_strdup(raw ? raw : ""));

		if (!strcmp(k, "mode")) {
			size_t m;

			for (m = 0; m < G_N_ELEMENTS(mode_names); m++)
				if (!g_ascii_strcasecmp(v, mode_names[m]))
					break;
			if (m == G_N_ELEMENTS(mode_names)) {
				set_err(err, errlen,
					"%s: [orrery] mode=%s: expected enforce, advise or off",
					name, v);
				continue;
			}
			c->mode = (orrery_mode_t) m;
		} else if (!strcmp(k, "candidates")) {
			if (parse_uint(v, 1, ORRERY_CONF_MAX_CANDIDATES,
				       &c->candidates))
				set_err(err, errlen,
					"%s: [orrery] candidates=%s: expected an integer 1..%d",
					name, v, ORRERY_CONF_MAX_CANDIDATES);
		} else if (!strcmp(k, "rank_spread")) {
			if (parse_uint(v, 0, ORRERY_CONF_MAX_RANK_SPREAD,
				       &c->rank_spread))
				set_err(err, errlen,
					"%s: [orrery] rank_spread=%s: expected an integer 0..%d (extra leaf switches or levels a profiled job may be spread to; 0: locality first)",
					name, v, ORRERY_CONF_MAX_RANK_SPREAD);
		} else if (!strcmp(k, "hold")) {
			if (parse_hold(v, &c->hold_cost, &c->hold_max_s))
				set_err(err, errlen,
					"%s: [orrery] hold=%s: expected off, or COST,SECONDS (COST a number above 0 up to %g: jobs' worth of predicted slowdown a placement's neighbours may add; SECONDS 1..%d: the longest a job waits), e.g. hold=%g,%g",
					name, v, ORRERY_CONF_MAX_HOLD_COST,
					ORRERY_CONF_MAX_HOLD_S,
					ORRERY_HOLD_COST_DEFAULT,
					ORRERY_HOLD_MAX_S_DEFAULT);
		} else if (!strcmp(k, "default_profile")) {
			free(c->default_profile);
			c->default_profile = NULL;
			if (strlen(v) > 4096) {
				set_err(err, errlen,
					"%s: [orrery] default_profile: longer than 4096 bytes",
					name);
				continue;
			}
			if (*v)
				c->default_profile = strdup(v);
		} else if (!strcmp(k, "debug")) {
			if (strcmp(v, "0") && strcmp(v, "1")) {
				set_err(err, errlen,
					"%s: [orrery] debug=%s: expected 0 or 1",
					name, v);
				continue;
			}
			c->debug = v[0] == '1';
		} else if (!strcmp(k, "channel_lead_ms")) {
			if (parse_uint(v, 0, ORRERY_CONF_MAX_CHANNEL_LEAD_MS,
				       &c->channel_lead_ms))
				set_err(err, errlen,
					"%s: [orrery] channel_lead_ms=%s: expected an integer 0..%d (0: no live channel)",
					name, v, ORRERY_CONF_MAX_CHANNEL_LEAD_MS);
		} else if (!strcmp(k, "learn")) {
			if (parse_learn(v, &c->learn_tol))
				set_err(err, errlen,
					"%s: [orrery] learn=%s: expected off, or a fraction above 0 up to %g (how far a running job's measured iteration may be off its profile's period before it is modelled at the measurement), e.g. learn=0.01",
					name, v, ORRERY_CONF_MAX_LEARN);
		} else if (!strcmp(k, "node_link")) {
			get_rate(kf, name, "orrery", k, &c->node_link_mbps,
				 err, errlen);
		} else if (!strcmp(k, "linkspeed_unit")) {
			get_rate(kf, name, "orrery", k,
				 &c->linkspeed_unit_mbps, err, errlen);
		} else if (!strcmp(k, "flows")) {
			if (parse_uint(v, 1, ORRERY_CONF_MAX_FLOWS, &c->flows))
				set_err(err, errlen,
					"%s: [orrery] flows=%s: expected an integer 1..%d (flows a job sends across an uplink)",
					name, v, ORRERY_CONF_MAX_FLOWS);
		} else {
			set_err(err, errlen,
				"%s: [orrery] unknown key '%s' (known: mode, candidates, rank_spread, hold, default_profile, debug, channel_lead_ms, learn, node_link, linkspeed_unit, flows)",
				name, k);
		}
	}
	return 0;
}

static int parse_uplinks_group(GKeyFile *kf, const char *name,
			       orrery_conf_t *c, char *err, size_t errlen)
{
	g_auto(GStrv) keys = g_key_file_get_keys(kf, "uplinks", NULL, NULL);

	for (size_t i = 0; keys && keys[i]; i++) {
		const char *k = keys[i];
		char *end;
		unsigned long lvl;

		if (strncmp(k, "level", 5) || !g_ascii_isdigit(k[5]) ||
		    (lvl = strtoul(k + 5, &end, 10), *end) ||
		    lvl >= ORRERY_CONF_MAX_LEVELS) {
			set_err(err, errlen,
				"%s: [uplinks] unknown key '%s' (expected level0..level%d)",
				name, k, ORRERY_CONF_MAX_LEVELS - 1);
			continue;
		}
		get_uplink(kf, name, "uplinks", k, &c->level_uplink_mbps[lvl],
			   &c->level_uplink_links[lvl], err, errlen);
	}
	return 0;
}

static int parse_switch_group(GKeyFile *kf, const char *name,
			      const char *group, orrery_conf_t *c, char *err,
			      size_t errlen)
{
	const char *sw = group + strlen("switch.");
	g_auto(GStrv) keys = g_key_file_get_keys(kf, group, NULL, NULL);
	uint64_t up = 0;
	uint32_t links = 1;
	bool bad = false;

	if (!*sw || strlen(sw) > 255) {
		set_err(err, errlen,
			"%s: [%s]: expected [switch.NAME] with a switch name of 1..255 bytes",
			name, group);
		return -1;
	}
	for (size_t i = 0; keys && keys[i]; i++) {
		if (strcmp(keys[i], "uplink")) {
			set_err(err, errlen,
				"%s: [%s] unknown key '%s' (known: uplink)",
				name, group, keys[i]);
			bad = true;
		}
	}
	switch (get_uplink(kf, name, group, "uplink", &up, &links, err,
			   errlen)) {
	case 0:
		break;
	case 1:
		set_err(err, errlen, "%s: [%s]: missing uplink=", name, group);
		return -1;
	default:
		return -1;
	}
	if (bad)
		return -1;
	if (c->n_switches >= ORRERY_CONF_MAX_SWITCHES) {
		set_err(err, errlen, "%s: more than %d [switch.*] sections",
			name, ORRERY_CONF_MAX_SWITCHES);
		return -1;
	}
	if (!(c->n_switches & (c->n_switches + 1))) {	/* 0,1,3,7,... */
		size_t cap = (c->n_switches + 1) * 2;
		void *p = realloc(c->switches, cap * sizeof(*c->switches));

		if (!p) {
			set_err(err, errlen, "%s: out of memory", name);
			return -1;
		}
		c->switches = p;
	}
	c->switches[c->n_switches].name = strdup(sw);
	c->switches[c->n_switches].uplink_mbps = up;
	c->switches[c->n_switches].uplink_links = links;
	if (!c->switches[c->n_switches].name) {
		set_err(err, errlen, "%s: out of memory", name);
		return -1;
	}
	c->n_switches++;
	return 0;
}

/* GKeyFile keeps the last of two equal keys and merges two equal groups
 * without a word; in a capacity file that hides a typo or a bad merge of
 * two versions, so both are errors, as in profile files. */
static int check_duplicates(const char *data, size_t len, const char *name,
			    char *err, size_t errlen)
{
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash,
							   g_str_equal,
							   g_free, NULL);
	g_autofree char *group = g_strdup("");
	size_t lineno = 0;
	int bad = 0;
	bool repeated = false;	/* in a group seen before: one error for it */

	for (size_t off = 0; off < len;) {
		const char *nl = memchr(data + off, '\n', len - off);
		size_t end = nl ? (size_t) (nl - data) : len;
		g_autofree char *line = g_strndup(data + off, end - off);
		char *t = g_strstrip(line);
		char *key;

		lineno++;
		off = end + 1;
		if (!*t || *t == '#')
			continue;
		if (*t == '[') {
			char *close = strchr(t, ']');

			if (!close)
				continue;	/* GKeyFile reports it */
			g_free(group);
			group = g_strndup(t + 1, (gsize) (close - t - 1));
			key = g_strconcat("[", group, NULL);
			repeated = !g_hash_table_add(seen, key);
			if (repeated) {
				set_err(err, errlen,
					"%s: line %zu: group [%s] appears twice",
					name, lineno, group);
				bad = -1;
			}
			continue;
		}
		if (!strchr(t, '=') || repeated)
			continue;		/* GKeyFile reports it */
		*strchr(t, '=') = '\0';
		g_strchomp(t);
		key = g_strconcat(group, "]", t, NULL);
		if (!g_hash_table_add(seen, key)) {
			set_err(err, errlen,
				"%s: line %zu: key '%s' appears twice in [%s]",
				name, lineno, t, group);
			bad = -1;
		}
	}
	return bad;
}

int orrery_conf_parse(const char *data, size_t len, const char *name,
		      orrery_conf_t *c, char *err, size_t errlen)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GError) gerr = NULL;
	g_auto(GStrv) groups = NULL;

	orrery_conf_init(c);
	n_errors = 0;
	if (err && errlen)
		err[0] = '\0';
	if (len > ORRERY_CONF_FILE_MAX) {
		set_err(err, errlen, "%s: larger than %d bytes", name,
			ORRERY_CONF_FILE_MAX);
		return -1;
	}
	if (memchr(data, '\0', len)) {
		set_err(err, errlen, "%s: contains a NUL byte (not a text file)",
			name);
		return -1;
	}
	/* reported with the rest: GKeyFile still parses such a file */
	check_duplicates(data, len, name, err, errlen);
	if (!g_key_file_load_from_data(kf, data, len, G_KEY_FILE_NONE,
				       &gerr)) {
		set_err(err, errlen, "%s: %s", name, gerr->message);
		return -1;
	}
	groups = g_key_file_get_groups(kf, NULL);
	for (size_t i = 0; groups && groups[i]; i++) {
		const char *g = groups[i];

		if (!strcmp(g, "orrery"))
			parse_orrery_group(kf, name, c, err, errlen);
		else if (!strcmp(g, "uplinks"))
			parse_uplinks_group(kf, name, c, err, errlen);
		else if (!strncmp(g, "switch.", 7))
			parse_switch_group(kf, name, g, c, err, errlen);
		else
			set_err(err, errlen,
				"%s: unknown group [%s] (known: [orrery], [uplinks], [switch.NAME])",
				name, g);
	}
	if (n_errors) {
		orrery_conf_free(c);
		return -1;
	}
	return 0;
}

int orrery_conf_load(const char *path, orrery_conf_t *c, char *err,
		     size_t errlen)
{
	g_autofree char *data = NULL;
	g_autoptr(GError) gerr = NULL;
	struct stat st;
	gsize len = 0;

	orrery_conf_init(c);
	if (stat(path, &st) && errno == ENOENT) {
		set_err(err, errlen, "%s: not found, using defaults", path);
		return 1;
	}
	if (!stat(path, &st) && (!S_ISREG(st.st_mode) ||
				 st.st_size > ORRERY_CONF_FILE_MAX)) {
		set_err(err, errlen, "%s: not a regular file of at most %d bytes",
			path, ORRERY_CONF_FILE_MAX);
		return -1;
	}
	if (!g_file_get_contents(path, &data, &len, &gerr)) {
		set_err(err, errlen, "%s: %s", path, gerr->message);
		return -1;
	}
	return orrery_conf_parse(data, len, path, c, err, errlen);
}

char *orrery_conf_path(const char *slurm_conf)
{
	g_autofree char *dir = g_path_get_dirname(slurm_conf ? slurm_conf :
						  "/etc/slurm/slurm.conf");
	char *p = g_build_filename(dir, "orrery.conf", NULL);
	char *r = strdup(p);

	g_free(p);
	return r;
}
