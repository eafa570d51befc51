/*
 * interposer.c - liborrery-nccl.so: gate NCCL jobs without changing them.
 *
 * LD_PRELOAD=liborrery-nccl.so puts these wrappers in front of libnccl's
 * collectives.  Each wrapper finds the real function with
 * dlsym(RTLD_NEXT), and before forwarding decides whether this call starts
 * a new communication phase; the first collective of a phase waits for
 * the job's slot in liborrery-runtime (one gate per process, shared with
 * any other caller of the runtime, e.g. the PyTorch hook), the others of
 * the phase pass at once.
 *
 * Phase rule (orrery-runtime(7)): a collective starts a new phase when
 *   - no other collective of this process is inside NCCL or at the gate,
 *   - the previous one returned at least GAP ago (ORRERY_GATE_GAP_US,
 *     default period/10: collectives closer than that are one burst), and
 *   - the last phase was released at least MIN_INTERVAL ago
 *     (ORRERY_GATE_MIN_INTERVAL_US, default the larger of period/2 and the
 *     profile's communication span ORRERY_PHASE_SPAN_US, at most
 *     period - GAP): a profile's later Up phases of the same iteration
 *     are not gated again, and
 *   - with the profile's phases (ORRERY_PHASES_US, from the SPANK plugin),
 *     the iteration's other bursts have been seen since that release, or
 *     it was period - GAP ago: a later phase that a stall of the host
 *     thread delayed past MIN_INTERVAL still passes, so the gate keeps
 *     holding the first phase (orrery-runtime(7)).  Three periods in a
 *     row with fewer bursts, or with a late one, turn the count off.
 * A collective of the current phase that arrives while its first one is
 * still waiting waits for the same release (several threads, several
 * communicators).
 *
 * Groups: NCCL launches a group's operations at the outermost
 * ncclGroupEnd, so the group is gated once, at its first operation (the
 * first point where the stream is known), and counts as one call.
 *
 * CUDA graphs: an operation captured into a graph runs when the graph is
 * launched, which no interposer sees; captured calls (checked with the
 * application's own cudaStreamIsCapturing, looked up at run time) are
 * forwarded untouched and not recorded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#ifdef HAVE_NCCL_H
#include <nccl.h>
#else
#include "nccl_abi.h"
#endif
#include "orrery_runtime.h"

#define LOG_PREFIX "orrery-nccl: "
#define MAX_COMMS 64
#define MAX_PENDING 256

/* ---------------------------------------------------------------- state */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int verbose;
static int active;              /* the runtime gates */
static int recording;
static int record_sync;         /* ORRERY_RECORD_SYNC=1: end = stream done */
static int64_t gap_us, min_interval_us, period_us;
static int n_bursts;            /* a period's bursts (ORRERY_PHASES_US); 0: not counted */

/* Process-wide phase state. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int inflight;            /* calls between gate and return */
static int64_t last_end = INT64_MIN, last_release = INT64_MIN;
static int64_t cur_release = INT64_MIN;
static int bursts_seen;         /* bursts since the last release */
static int stalled;             /* a stalled phase passed since the release */
static int odd_runs;            /* periods in a row unlike the profile */
static int stall_noted;
static ncclComm_t comms[MAX_COMMS];
static int n_comms;

/* Per thread (NCCL groups are per thread). */
struct pending {
	uint64_t bytes;
	ncclComm_t comm;
	const char *op;
};
static __thread int group_depth;
static __thread int group_open;         /* the group passed the gate */
static __thread int64_t group_start;
static __thread cudaStream_t group_stream;
static __thread struct pending pending[MAX_PENDING];
static __thread int n_pending;

typedef int (*is_capturing_fn)(cudaStream_t, int *);
typedef int (*stream_sync_fn)(cudaStream_t);
static is_capturing_fn is_capturing;
static stream_sync_fn stream_sync;

static void say(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbose < level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static int64_t env_us(const char *name, int64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	long long v;

	if (!s || !s[0])
		return dflt;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < 0 || strspn(s, "0123456789") != strlen(s)) {
		say(1, LOG_PREFIX "%s='%.32s' is not a number of microseconds: using %" PRId64 "\n",
		    name, s, dflt);
		return dflt;
	}
	return v;
}

/* ORRERY_PHASES_US, "OFFSET+DURATION,..." (offsets from the first phase,
 * in order): how many bursts the gate sees a period, phases whose quiet
 * time between them is shorter than the gap being one burst.  -1 if the
 * value is not such a list. */
static int count_bursts(const char *s, int64_t gap)
{
	int64_t end = INT64_MIN, prev = -1;
	int n = 0, phases = 0;

	while (*s) {
		char *e;
		long long o, d;

		if (*s < '0' || *s > '9')
			return -1;
		o = strtoll(s, &e, 10);
		if (*e != '+' || e[1] < '0' || e[1] > '9')
			return -1;
		d = strtoll(e + 1, &e, 10);
		if ((*e != ',' && *e) || (*e == ',' && !e[1]) || o < prev || d <= 0 || o > INT64_MAX / 2 ||
		    d > INT64_MAX / 2 || ++phases > 4096)
			return -1;
		if (end == INT64_MIN || o - end >= gap)
			n++;
		if (o + d > end)
			end = o + d;
		prev = o;
		s = *e ? e + 1 : e;
	}
	return n;
}

static void setup(void)
{
	orrery_runtime_stats_t st;
	const char *v = getenv("ORRERY_RUNTIME_VERBOSE");
	int64_t period, span;

	verbose = v ? atoi(v) : 0;
	orrery_runtime_set_source("nccl");
	active = orrery_runtime_init();
	recording = orrery_runtime_recording();
	v = getenv("ORRERY_RECORD_SYNC");
	record_sync = v && strcmp(v, "1") == 0;
	/* The application's CUDA runtime, if any (never loaded by us). */
	is_capturing = (is_capturing_fn)dlsym(RTLD_DEFAULT, "cudaStreamIsCapturing");
	stream_sync = (stream_sync_fn)dlsym(RTLD_DEFAULT, "cudaStreamSynchronize");
	if (!active)
		return;
	orrery_runtime_stats(&st);
	period = st.period_us;
	gap_us = env_us("ORRERY_GATE_GAP_US", period / 10);
	span = env_us("ORRERY_PHASE_SPAN_US", 0);
	min_interval_us = span > period / 2 ? span : period / 2;
	if (min_interval_us > period - gap_us)
		min_interval_us = period - gap_us;
	min_interval_us = env_us("ORRERY_GATE_MIN_INTERVAL_US", min_interval_us);
	period_us = period;
	v = getenv("ORRERY_PHASES_US");
	if (v && v[0]) {
		n_bursts = count_bursts(v, gap_us);
		if (n_bursts < 0)
			say(1, LOG_PREFIX "ORRERY_PHASES_US='%.64s' is not a list of OFFSET+DURATION: "
			    "bursts not counted\n", v);
		if (n_bursts < 2)
			n_bursts = 0;	/* one burst: the time rule is the count */
	}
	say(1, LOG_PREFIX "gating NCCL collectives: a phase starts after %" PRId64
	    " us without collectives and %" PRId64 " us after the last phase, %d bursts a period%s\n",
	    gap_us, min_interval_us, n_bursts ? n_bursts : 1,
	    is_capturing ? "" : " (no cudaStreamIsCapturing: CUDA graph capture not detected)");
}

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f)
		fprintf(stderr, LOG_PREFIX "%s: not found after the interposer (is libnccl.so.2 linked?): %s\n",
			name, dlerror());
	return f;
}

#define RESOLVE(name)                                                        \
	static __typeof__(&name) real_fn;                                    \
	__typeof__(&name) fn = __atomic_load_n(&real_fn, __ATOMIC_ACQUIRE);  \
	if (!fn) {                                                           \
		fn = (__typeof__(&name))real(#name);                         \
		if (!fn)                                                     \
			return ncclSystemError;                              \
		__atomic_store_n(&real_fn, fn, __ATOMIC_RELEASE);            \
	}

static size_t type_size(ncclDataType_t t)
{
	switch ((int)t) {
	case 0: case 1: return 1;      /* int8, uint8 */
	case 2: case 3: return 4;      /* int32, uint32 */
	case 4: case 5: return 8;      /* int64, uint64 */
	case 6: case 9: return 2;      /* float16, bfloat16 */
	case 7: return 4;
	case 8: return 8;
	default: return 1;             /* fp8 and later types */
	}
}

/* "c0", "c1", ...: communicators in the order this process first used
 * them (called with lock held). */
static void comm_id(ncclComm_t c, char *out, size_t len)
{
	int i;

	for (i = 0; i < n_comms; i++)
		if (comms[i] == c)
			break;
	if (i == n_comms && n_comms < MAX_COMMS)
		comms[n_comms++] = c;
	if (i < MAX_COMMS)
		snprintf(out, len, "c%d", i);
	else
		snprintf(out, len, "p%" PRIxPTR, (uintptr_t)c);
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000, .tv_nsec = (t % 1000000) * 1000 };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int captured(cudaStream_t s)
{
	int status = 0;

	return is_capturing && is_capturing(s, &status) == 0 && status != 0;
}

/* A burst that starts MIN_INTERVAL or more after the last release, before
 * the profile's other bursts were all seen: a later phase that a stall
 * delayed, not the next iteration (called with lock held). */
static int stalled_phase(int64_t now)
{
	if (!n_bursts || bursts_seen >= n_bursts - 1 || now - last_release >= period_us - gap_us)
		return 0;
	stalled = 1;
	if (!stall_noted++)
		say(1, LOG_PREFIX "a burst %" PRId64 " us after the last release is burst %d of "
		    "the profile's %d: passed as a stalled phase, not gated (noted once)\n",
		    now - last_release, bursts_seen + 2, n_bursts);
	return 1;
}

/* The release that starts a phase.  A stall is a one-off: a period that
 * passed a stalled phase or showed fewer bursts than the profile, three
 * times in a row, means the job's bursts are not the profile's, and the
 * count would move the gate around; the time rule alone is then used. */
static void released(int64_t t)
{
	if (n_bursts && last_release != INT64_MIN) {
		if (bursts_seen >= n_bursts - 1 && !stalled) {
			odd_runs = 0;
		} else if (++odd_runs == 3) {
			say(1, LOG_PREFIX "3 periods in a row unlike the profile's %d bursts (the "
			    "last: %d, %s): bursts not counted from now on\n", n_bursts,
			    bursts_seen + 1, stalled ? "one of them late" : "too few");
			n_bursts = 0;
		}
	}
	bursts_seen = 0;
	stalled = 0;
	cur_release = last_release = t;
}

/* The gate: returns the release time (now or later), after waiting. */
static int64_t gate(void)
{
	int64_t now, t;

	pthread_mutex_lock(&lock);
	now = orrery_runtime_now_us();
	if (!active) {
		t = now;
	} else if (inflight > 0 || (last_end != INT64_MIN && now - last_end < gap_us)) {
		/* part of the current burst */
		t = cur_release > now ? cur_release : now;
	} else if (last_release != INT64_MIN &&
		   (now - last_release < min_interval_us || stalled_phase(now))) {
		/* a later phase of the current iteration */
		bursts_seen++;
		t = cur_release > now ? cur_release : now;
	} else {
		t = orrery_runtime_release_at(now);
		released(t);
	}
	inflight++;
	pthread_mutex_unlock(&lock);
	if (t > now)
		sleep_until(t);
	return t;
}

static void record(int64_t start, int64_t end, const struct pending *p)
{
	char id[32];

	pthread_mutex_lock(&lock);
	comm_id(p->comm, id, sizeof(id));
	pthread_mutex_unlock(&lock);
	orrery_runtime_record(start, end, p->bytes, id, p->op);
}

static int64_t done(cudaStream_t stream)
{
	int64_t end;

	if (recording && record_sync && stream_sync)
		stream_sync(stream);
	end = orrery_runtime_now_us();
	pthread_mutex_lock(&lock);
	inflight--;
	last_end = end;
	pthread_mutex_unlock(&lock);
	return end;
}

/* Around every collective.  Returns 0 to skip the exit work. */
static int enter(cudaStream_t stream, int64_t *start)
{
	pthread_once(&once, setup);
	if (!active && !recording)
		return 0;
	if (captured(stream))
		return 0;
	if (group_depth > 0) {
		if (!group_open) {
			group_start = gate();
			group_open = 1;
		}
		group_stream = stream;
		return 1;
	}
	*start = gate();
	return 1;
}

static void leave(cudaStream_t stream, int64_t start, uint64_t bytes,
		  ncclComm_t comm, const char *op)
{
	struct pending p = { .bytes = bytes, .comm = comm, .op = op };
	int64_t end;

	if (group_depth > 0) {
		if (!recording)
			return;
		if (n_pending < MAX_PENDING)
			pending[n_pending++] = p;
		else
			record(group_start, orrery_runtime_now_us(), &p);
		return;
	}
	end = done(stream);
	if (recording)
		record(start, end, &p);
}

#define WRAP(name, op, bytes_expr, params, args, stream_arg, comm_arg)     \
	ncclResult_t name params                                             \
	{                                                                    \
		int64_t start = 0;                                           \
		ncclResult_t rc;                                             \
		int on;                                                      \
		RESOLVE(name)                                                \
		on = enter(stream_arg, &start);                              \
		rc = fn args;                                                \
		if (on)                                                      \
			leave(stream_arg, start, (uint64_t)(bytes_expr),     \
			      comm_arg, op);                                 \
		return rc;                                                   \
	}

WRAP(ncclAllReduce, "allreduce", count * type_size(datatype),
     (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
      ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),
     (sendbuff, recvbuff, count, datatype, op, comm, stream), stream, comm)
WRAP(ncclBroadcast, "broadcast", count * type_size(datatype),
     (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
      int root, ncclComm_t comm, cudaStream_t stream),
     (sendbuff, recvbuff, count, datatype, root, comm, stream), stream, comm)
WRAP(ncclBcast, "broadcast", count * type_size(datatype),
     (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
      cudaStream_t stream),
     (buff, count, datatype, root, comm, stream), stream, comm)
WRAP(ncclReduce, "reduce", count * type_size(datatype),
     (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
      ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream),
     (sendbuff, recvbuff, count, datatype, op, root, comm, stream), stream, comm)
WRAP(ncclAllGather, "allgather", sendcount * type_size(datatype),
     (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
      ncclComm_t comm, cudaStream_t stream),
     (sendbuff, recvbuff, sendcount, datatype, comm, stream), stream, comm)
WRAP(ncclReduceScatter, "reducescatter", recvcount * type_size(datatype),
     (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
      ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),
     (sendbuff, recvbuff, recvcount, datatype, op, comm, stream), stream, comm)
WRAP(ncclSend, "send", count * type_size(datatype),
     (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
      ncclComm_t comm, cudaStream_t stream),
     (sendbuff, count, datatype, peer, comm, stream), stream, comm)
WRAP(ncclRecv, "recv", count * type_size(datatype),
     (void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
      ncclComm_t comm, cudaStream_t stream),
     (recvbuff, count, datatype, peer, comm, stream), stream, comm)

ncclResult_t ncclGroupStart(void)
{
	RESOLVE(ncclGroupStart)
	group_depth++;
	return fn();
}

ncclResult_t ncclGroupEnd(void)
{
	ncclResult_t rc;
	int64_t end;
	int i;

	RESOLVE(ncclGroupEnd)
	rc = fn();
	if (group_depth > 0)
		group_depth--;
	if (group_depth > 0 || !group_open)
		return rc;
	/* The outermost group end launched the group's operations. */
	end = done(group_stream);
	for (i = 0; i < n_pending; i++)
		record(group_start, end, &pending[i]);
	n_pending = 0;
	group_open = 0;
	return rc;
}
