/*
 * counters.h - RDMA port congestion counters from sysfs, their per-job
 * deltas and the ORRC1: record that carries them into accounting.
 *
 * Plain C, no Slurm and no GLib: the SPANK plugin (job prolog/epilog, as
 * root), the publisher, orrery-sacct and the tests all use it.  Every path
 * is below an admin-given sysfs root (normally "/sys"), so tests run on
 * recorded trees (tests/data/sysfs/).  See orrery-counters(7).
 */
#ifndef ORRERY_COUNTERS_H
#define ORRERY_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The counters read, in this order.  Files under
 * <root>/class/infiniband/<dev>/ports/<port>/{counters,hw_counters}/. */
enum orc_counter {
	ORC_XMIT_DATA = 0,	/* counters/port_xmit_data, 4-byte words   */
	ORC_RCV_DATA,		/* counters/port_rcv_data, 4-byte words    */
	ORC_XMIT_WAIT,		/* counters/port_xmit_wait, ticks          */
	ORC_ECN_MARKED,		/* hw_counters/np_ecn_marked_roce_packets  */
	ORC_CNP_HANDLED,	/* hw_counters/rp_cnp_handled              */
	ORC_CNP_SENT,		/* hw_counters/np_cnp_sent                 */
	ORC_N
};

#define ORC_DEV_MAX    64	/* characters of a device name            */
#define ORC_PORTS_MAX  64	/* ports read on one node                 */
#define ORC_RECORD_MAX 512	/* bytes of one ORRC1: token              */
#define ORC_TAG        "ORRC1:"

/* sysfs file name of a counter ("port_xmit_data", ...). */
const char *orc_counter_file(enum orc_counter c);
/* Key of a counter in the ORRC1: record ("tx_bytes", ...). */
const char *orc_counter_key(enum orc_counter c);

struct orc_port {
	char dev[ORC_DEV_MAX];
	unsigned port;
	uint32_t have;			/* bit c: counter c was read     */
	uint64_t v[ORC_N];
};

struct orc_sample {
	size_t n;
	struct orc_port p[ORC_PORTS_MAX];
};

/* Read every port of every RDMA device under root.  0 (also with no
 * devices: n = 0), or -1 with a message when root itself is unusable.
 * Unreadable or malformed counter files are left out (bit clear). */
int orc_read(const char *root, struct orc_sample *s, char *err, size_t errlen);

/* Snapshot files (the prolog's sample, read by the epilog): one
 * "dev port counter value" line per counter read.  Parsing is strict. */
int orc_snapshot_write(FILE *f, const struct orc_sample *s);
int orc_snapshot_read(FILE *f, struct orc_sample *s, char *err, size_t errlen);

/* A node's totals over the job: bytes for the data counters (words * 4),
 * raw counts for the rest. */
struct orc_totals {
	uint32_t have;			/* bit c: at least one port had c */
	uint64_t v[ORC_N];
	unsigned ports;			/* ports seen at start and end    */
	unsigned wrapped;		/* counters that went backwards   */
	unsigned nodes;			/* nodes summed (records)         */
};

/* One counter's increase from a to b.  b >= a: b - a.  b < a: a 32-bit
 * counter (a <= UINT32_MAX) is taken to have wrapped once
 * (2^32 - a + b); a 64-bit one cannot wrap in a job's lifetime, so the
 * port was reset and b is what it counted since (a lower bound).
 * *wrapped is set when b < a. */
uint64_t orc_delta_one(uint64_t a, uint64_t b, int *wrapped);

/* Totals of end - start over the ports present in both (matched by device
 * and port); a counter counts only where both samples have it. */
void orc_delta(const struct orc_sample *start, const struct orc_sample *end,
	       struct orc_totals *t);

/* "ORRC1:node=NAME,ports=N,tx_bytes=...,...,wrapped=K" with the counters
 * that are present (missing ones are left out, not zero).  0, or -1 when
 * node is not a plain name or the buffer is too small. */
int orc_record_format(const char *node, const struct orc_totals *t,
		      char *buf, size_t len);

/* Parse one ORRC1: token into *t (nodes = 1) and its node name.  1 on
 * success, -1 if malformed.  Unknown keys are skipped. */
int orc_record_parse(const char *token, struct orc_totals *t, char *node,
		     size_t nodelen);

/* A node record "TAGnode=NAME,key=count,...": NAME (a plain name) into
 * node, and field(key, count) for every other key, in order.  1, or -1
 * when the tag, a name or a count is wrong or the token is over 639
 * bytes (ORRC1: and ORRS1: records). */
int orc_record_walk(const char *token, const char *tag, char *node,
		    size_t nodelen,
		    void (*field)(const char *key, uint64_t v, void *arg),
		    void *arg);

/* Sum every ORRC1: token of an AdminComment.  Returns the number of
 * records summed (t->nodes), 0 if none, -1 if any was malformed (the
 * others are still summed). */
int orc_comment_sum(const char *comment, struct orc_totals *t);

/* AdminComment with this node's record in place of any earlier ORRC1:
 * token of the same node; every other token is kept in order.  malloc()ed,
 * NULL on allocation failure. */
char *orc_comment_merge(const char *old, const char *node, const char *record);

/* A node name fit for a record and a path: [A-Za-z0-9._-], not starting
 * with '.', 1..63 characters. */
int orc_valid_node(const char *node);

/* Decimal, at most 20 digits, optional trailing newline; no sign.  0, or
 * -1 (out unchanged). */
int orc_parse_u64(const char *s, uint64_t *out);

#endif /* ORRERY_COUNTERS_H */
