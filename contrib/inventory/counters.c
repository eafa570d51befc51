/*
 * counters.c - RDMA port counters: read from sysfs, snapshot, delta and
 * the ORRC1: AdminComment record.  See counters.h and orrery-counters(7).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "../../plugins/common/admin_comment.h"

static const struct {
	const char *dir, *file, *key;
	int words;	/* 4-byte words: bytes = value * 4 */
} info[ORC_N] = {
	[ORC_XMIT_DATA]   = { "counters", "port_xmit_data", "tx_bytes", 1 },
	[ORC_RCV_DATA]    = { "counters", "port_rcv_data", "rx_bytes", 1 },
	[ORC_XMIT_WAIT]   = { "counters", "port_xmit_wait", "xmit_wait", 0 },
	[ORC_ECN_MARKED]  = { "hw_counters", "np_ecn_marked_roce_packets", "ecn_marked", 0 },
	[ORC_CNP_HANDLED] = { "hw_counters", "rp_cnp_handled", "cnp_handled", 0 },
	[ORC_CNP_SENT]    = { "hw_counters", "np_cnp_sent", "cnp_sent", 0 },
};

const char *orc_counter_file(enum orc_counter c) { return info[c].file; }
const char *orc_counter_key(enum orc_counter c) { return info[c].key; }

static void set_err(char *err, size_t len, const char *msg, const char *arg)
{
	if (err && len)
		snprintf(err, len, "%s%s", arg ? arg : "", msg);
}

/* A name from a directory listing that we may put in a path and a record. */
static int plain_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < ORC_DEV_MAX && s[0] != '.' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789._-") == n;
}

int orc_valid_node(const char *node)
{
	return node && plain_name(node);
}

int orc_parse_u64(const char *s, uint64_t *out)
{
	size_t n = strspn(s, "0123456789");
	char *end;
	unsigned long long v;

	if (n == 0 || n > 20 || (s[n] != '\0' && strcmp(s + n, "\n") != 0))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	*out = v;
	return 0;
}

static int read_u64(const char *path, uint64_t *out)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return orc_parse_u64(buf, out);
}

static void read_port(const char *root, const char *dev, unsigned port,
		      struct orc_port *p)
{
	char path[4096];

	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = port;
	for (int c = 0; c < ORC_N; c++) {
		int n = snprintf(path, sizeof(path),
				 "%s/class/infiniband/%s/ports/%u/%s/%s",
				 root, dev, port, info[c].dir, info[c].file);

		if (n > 0 && (size_t) n < sizeof(path) &&
		    read_u64(path, &p->v[c]) == 0)
			p->have |= 1u << c;
	}
}

static int parse_port_name(const char *s, unsigned *port)
{
	uint64_t v;

	if (strlen(s) > 3 || orc_parse_u64(s, &v) < 0 || v == 0 || v > 255)
		return -1;
	*port = (unsigned) v;
	return 0;
}

int orc_read(const char *root, struct orc_sample *s, char *err, size_t errlen)
{
	char path[4096];
	DIR *d;
	struct dirent *e;

	s->n = 0;
	if (!root || root[0] != '/' || strlen(root) > 1024) {
		set_err(err, errlen, "sysfs root must be an absolute path", NULL);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband", root);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT) {
			/* Sysfs without RDMA devices: nothing to count. */
			snprintf(path, sizeof(path), "%s/class", root);
			if (access(path, F_OK) == 0)
				return 0;
		}
		set_err(err, errlen, ": no class/ directory (not a sysfs tree)", root);
		return -1;
	}
	while ((e = readdir(d))) {
		char ports[8192];
		DIR *pd;
		struct dirent *pe;

		if (!plain_name(e->d_name))
			continue;
		snprintf(ports, sizeof(ports), "%s/%s/ports", path, e->d_name);
		if (!(pd = opendir(ports)))
			continue;
		while ((pe = readdir(pd)) && s->n < ORC_PORTS_MAX) {
			unsigned port;

			if (parse_port_name(pe->d_name, &port) < 0)
				continue;
			read_port(root, e->d_name, port, &s->p[s->n]);
			if (s->p[s->n].have)
				s->n++;
		}
		closedir(pd);
	}
	closedir(d);
	return 0;
}

int orc_snapshot_write(FILE *f, const struct orc_sample *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (int c = 0; c < ORC_N; c++)
			if (s->p[i].have & (1u << c))
				fprintf(f, "%s %u %s %" PRIu64 "\n", s->p[i].dev,
					s->p[i].port, info[c].file, s->p[i].v[c]);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static struct orc_port *find_port(struct orc_sample *s, const char *dev,
				  unsigned port)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].port == port && strcmp(s->p[i].dev, dev) == 0)
			return &s->p[i];
	return NULL;
}

int orc_snapshot_read(FILE *f, struct orc_sample *s, char *err, size_t errlen)
{
	char line[256];
	unsigned lineno = 0;

	s->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *tok[4], *save = NULL, *p = line;
		struct orc_port *port;
		unsigned pn;
		uint64_t v;
		int n = 0, c;

		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			goto bad;
		line[strcspn(line, "\n")] = '\0';
		while (n < 4 && (tok[n] = strtok_r(p, " ", &save))) {
			p = NULL;
			n++;
		}
		if (n != 4 || strtok_r(NULL, " ", &save) ||
		    !plain_name(tok[0]) || parse_port_name(tok[1], &pn) < 0 ||
		    orc_parse_u64(tok[3], &v) < 0)
			goto bad;
		for (c = 0; c < ORC_N && strcmp(tok[2], info[c].file); c++)
			;
		if (c == ORC_N)
			goto bad;
		if (!(port = find_port(s, tok[0], pn))) {
			if (s->n == ORC_PORTS_MAX)
				goto bad;
			port = &s->p[s->n++];
			memset(port, 0, sizeof(*port));
			snprintf(port->dev, sizeof(port->dev), "%s", tok[0]);
			port->port = pn;
		}
		port->v[c] = v;
		port->have |= 1u << c;
	}
	return 0;
bad:
	if (err && errlen)
		snprintf(err, errlen, "snapshot line %u is malformed", lineno);
	s->n = 0;
	return -1;
}

uint64_t orc_delta_one(uint64_t a, uint64_t b, int *wrapped)
{
	*wrapped = b < a;
	if (b >= a)
		return b - a;
	if (a <= UINT32_MAX)
		return ((uint64_t) UINT32_MAX + 1 - a) + b;
	return b;
}

void orc_delta(const struct orc_sample *start, const struct orc_sample *end,
	       struct orc_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->nodes = 1;
	for (size_t i = 0; i < end->n; i++) {
		const struct orc_port *b = &end->p[i];
		const struct orc_port *a = NULL;

		for (size_t j = 0; j < start->n && !a; j++)
			if (start->p[j].port == b->port &&
			    strcmp(start->p[j].dev, b->dev) == 0)
				a = &start->p[j];
		if (!a)
			continue;	/* appeared during the job: no base */
		t->ports++;
		for (int c = 0; c < ORC_N; c++) {
			uint64_t d;
			int w;

			if (!(a->have & b->have & (1u << c)))
				continue;
			d = orc_delta_one(a->v[c], b->v[c], &w);
			if (info[c].words)
				d = d > UINT64_MAX / 4 ? UINT64_MAX : d * 4;
			t->v[c] = t->v[c] > UINT64_MAX - d ? UINT64_MAX : t->v[c] + d;
			t->have |= 1u << c;
			t->wrapped += w;
		}
	}
}

int orc_record_format(const char *node, const struct orc_totals *t,
		      char *buf, size_t len)
{
	size_t o;
	int n;

	if (!orc_valid_node(node))
		return -1;
	n = snprintf(buf, len, ORC_TAG "node=%s,ports=%u", node, t->ports);
	if (n < 0 || (size_t) n >= len)
		return -1;
	o = (size_t) n;
	for (int c = 0; c < ORC_N; c++) {
		if (!(t->have & (1u << c)))
			continue;
		n = snprintf(buf + o, len - o, ",%s=%" PRIu64, info[c].key, t->v[c]);
		if (n < 0 || (size_t) n >= len - o)
			return -1;
		o += (size_t) n;
	}
	n = snprintf(buf + o, len - o, ",wrapped=%u", t->wrapped);
	return (n < 0 || (size_t) n >= len - o) ? -1 : 0;
}

int orc_record_walk(const char *token, const char *tag, char *node,
		    size_t nodelen,
		    void (*field)(const char *key, uint64_t v, void *arg),
		    void *arg)
{
	char buf[640];
	char *save = NULL, *kv;
	int have_node = 0;

	if (strncmp(token, tag, strlen(tag)) != 0 ||
	    strlen(token) >= sizeof(buf))
		return -1;
	strcpy(buf, token + strlen(tag));
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		uint64_t v;

		if (!eq)
			return -1;
		*eq++ = '\0';
		if (strcmp(kv, "node") == 0) {
			if (!orc_valid_node(eq) || strlen(eq) >= nodelen)
				return -1;
			strcpy(node, eq);
			have_node = 1;
			continue;
		}
		if (orc_parse_u64(eq, &v) < 0 || strchr(eq, '\n'))
			return -1;
		field(kv, v, arg);
	}
	return have_node ? 1 : -1;
}

static void counter_field(const char *key, uint64_t v, void *arg)
{
	struct orc_totals *t = arg;
	int c;

	if (strcmp(key, "ports") == 0) {
		t->ports = v > UINT32_MAX ? UINT32_MAX : (unsigned) v;
		return;
	}
	if (strcmp(key, "wrapped") == 0) {
		t->wrapped = v > UINT32_MAX ? UINT32_MAX : (unsigned) v;
		return;
	}
	for (c = 0; c < ORC_N && strcmp(key, info[c].key); c++)
		;
	if (c < ORC_N) {
		t->v[c] = v;
		t->have |= 1u << c;
	}
}

int orc_record_parse(const char *token, struct orc_totals *t, char *node,
		     size_t nodelen)
{
	memset(t, 0, sizeof(*t));
	if (strlen(token) >= ORC_RECORD_MAX ||
	    orc_record_walk(token, ORC_TAG, node, nodelen, counter_field, t) < 0)
		return -1;
	t->nodes = 1;
	return 1;
}

struct sum_arg {
	struct orc_totals *t;
	int bad;
};

static void sum_one(const char *p, size_t n, void *arg)
{
	struct sum_arg *a = arg;
	struct orc_totals *t = a->t, one;
	char tok[ORC_RECORD_MAX], node[ORC_DEV_MAX];

	if (n >= sizeof(tok)) {
		a->bad = 1;
		return;
	}
	memcpy(tok, p, n);
	tok[n] = '\0';
	if (orc_record_parse(tok, &one, node, sizeof(node)) < 0) {
		a->bad = 1;
		return;
	}
	for (int c = 0; c < ORC_N; c++)
		if (one.have & (1u << c))
			t->v[c] = t->v[c] > UINT64_MAX - one.v[c] ?
				UINT64_MAX : t->v[c] + one.v[c];
	t->have |= one.have;
	t->ports += one.ports;
	t->wrapped += one.wrapped;
	t->nodes++;
}

int orc_comment_sum(const char *comment, struct orc_totals *t)
{
	struct sum_arg a = { t, 0 };

	memset(t, 0, sizeof(*t));
	orr_comment_each(comment, ORC_TAG, sum_one, &a);
	return a.bad ? -1 : (int) t->nodes;
}

char *orc_comment_merge(const char *old, const char *node, const char *record)
{
	struct orr_node_token nt = { ORC_TAG, node };

	return orr_comment_replace(old, orr_token_is_node, &nt, record);
}
