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
 * Phase rule (orrery-runtime(7); phase_rule.c): a collective starts a
 * new phase when no other collective of this process is inside NCCL or
 * at the gate, the previous one returned at least GAP ago
 * (ORRERY_GATE_GAP_US, default period/10), the last phase was released
 * at least MIN_INTERVAL ago (ORRERY_GATE_MIN_INTERVAL_US, default the
 * larger of period/2 and ORRERY_PHASE_SPAN_US, at most period - GAP), and
 * with the profile's phases (ORRERY_PHASES_US) the period's other bursts
 * have been seen (a gate a long stall moved to a later burst goes back to
 * the first when the job's own cycle shows the rotation).
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
#include "phase_rule.h"

#define LOG_PREFIX "orrery-nccl: "
#define MAX_COMMS 64
#define MAX_PENDING 256

/* ---------------------------------------------------------------- state */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int verbose;
static int active;              /* the runtime gates */
static int recording;
static int record_sync;         /* ORRERY_RECORD_SYNC=1: end = stream done */

/* Process-wide phase state. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int inflight;            /* calls between gate and return */
static struct phase_rule rule;
static int stall_noted, short_noted, relock_noted;
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

static void setup(void)
{
	orrery_runtime_stats_t st;
	const char *v = getenv("ORRERY_RUNTIME_VERBOSE");
	int64_t period, span, gap_us, min_interval_us;

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
	pr_init(&rule, gap_us, min_interval_us, period);
	v = getenv("ORRERY_PHASES_US");
	if (v && v[0] && pr_set_phases(&rule, v) < 0)
		say(1, LOG_PREFIX "ORRERY_PHASES_US='%.64s' is not a list of OFFSET+DURATION: "
		    "bursts not counted\n", v);
	if (rule.n)
		orrery_runtime_phase_event(ORRERY_RUNTIME_PHASES_COUNTED);
	say(1, LOG_PREFIX "gating NCCL collectives: a phase starts after %" PRId64
	    " us without collectives and %" PRId64 " us after the last phase, %d bursts a period%s\n",
	    gap_us, min_interval_us, rule.n ? rule.n : 1,
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

/* What the rule did that a user should be told: counted in the runtime's
 * statistics, said at ORRERY_RUNTIME_VERBOSE=1 (called with lock held). */
static void tell(void)
{
	switch (pr_take_note(&rule)) {
	case PR_NOTE_STALL:
		orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_STALL);
		if (!stall_noted++)
			say(1, LOG_PREFIX "a burst %" PRId64 " us after the last release is burst %d "
			    "of the profile's %d: passed as a stalled phase, not gated (noted once)\n",
			    rule.note_us, rule.note_a, rule.note_b);
		break;
	case PR_NOTE_SHORT:
		orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_SHORT);
		if (!short_noted++)
			say(1, LOG_PREFIX "a burst %" PRId64 " us after the last release, with %d of the "
			    "period's %d bursts seen: gated as a period's first (a period with fewer "
			    "bursts, or a stall past period - gap: then the gate holds a later phase "
			    "until the next periods show it; noted once, counted in short_periods)%s\n",
			    rule.note_us, rule.note_a, rule.note_b,
			    pr_judging(&rule) ? "" : "; no whole period before it to judge by: the gate "
			    "stays where it is");
		break;
	case PR_NOTE_RELOCK:
		orrery_runtime_phase_event(ORRERY_RUNTIME_PHASE_RELOCK);
		if (!relock_noted++)
			say(1, LOG_PREFIX "the gate held burst %d of %d since a stall (the job's own cycle, "
			    "rotated, within %" PRId64 " us): it holds the first burst again from the "
			    "next period (noted once, counted in relocked)\n",
			    rule.note_a, rule.note_b, rule.note_us);
		break;
	case PR_NOTE_UNJUDGED:
		say(1, LOG_PREFIX "the gate holds burst %d of %d since a stall: %d whole periods "
		    "after it fit neither the job's cycle nor it rotated (the nearest within %" PRId64
		    " us): the gate stays where it is\n", rule.note_a, rule.note_b, PR_JUDGE_PERIODS,
		    rule.note_us);
		break;
	case PR_NOTE_COUNT_OFF:
		orrery_runtime_phase_event(ORRERY_RUNTIME_PHASES_STOPPED);
		say(1, LOG_PREFIX "%d periods in a row unlike the profile's %d bursts (the last: "
		    "%d, %s): bursts not counted from now on\n", PR_ODD_RUNS, rule.note_b,
		    rule.note_a, rule.note_us ? "one of them late" : "too few");
		break;
	case PR_NOTE_NONE:
		break;
	}
}

/* The gate: returns the release time (now or later), after waiting. */
static int64_t gate(void)
{
	int64_t now, t;

	pthread_mutex_lock(&lock);
	now = orrery_runtime_now_us();
	if (!active) {
		t = now;
	} else if (pr_arrive(&rule, now, inflight) != PR_GATE) {
		/* the current burst, or a later phase of the iteration */
		tell();
		t = rule.last_release > now ? rule.last_release : now;
	} else {
		tell();
		t = orrery_runtime_release_at(now);
		pr_released(&rule, t);
		tell();
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
	pr_returned(&rule, end);
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
