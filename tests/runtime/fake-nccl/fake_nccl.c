/*
 * fake_nccl.c - a stand-in libnccl.so.2 for testing the interposer without
 * GPUs.  Same ABI as NCCL 2.x for what it implements (nccl_abi.h).  Each
 * collective takes latency + bytes / bandwidth of wall time, spent
 * sleeping (FAKE_NCCL_LATENCY_US, default 20; FAKE_NCCL_GBPS, default 8
 * Gbit/s); inside a group the operations' times add up and are spent at
 * the outermost ncclGroupEnd, as NCCL launches groups there.  It logs
 * nothing; fake_nccl_last_start_us() tells the calling thread when its
 * last collective (or group) actually reached the library, i.e. when the
 * interposer released it.
 *
 * It also stands in for cudart's cudaStreamIsCapturing: the stream
 * FAKE_CAPTURING_STREAM is "being captured into a CUDA graph".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contrib/runtime/nccl/nccl_abi.h"

#define FAKE_CAPTURING_STREAM ((cudaStream_t)(uintptr_t)0xCA97)

struct ncclComm {
	int rank, nranks;
};

static __thread int depth;
static __thread int64_t group_us;         /* time owed at group end */
static __thread int64_t first_start;      /* first op of the open group */
static __thread int64_t last_start;

int64_t fake_nccl_last_start_us(void);

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t env_num(const char *name, int64_t dflt)
{
	const char *s = getenv(name);

	return s && s[0] ? atoll(s) : dflt;
}

static void spend(int64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static ncclResult_t op(size_t bytes, ncclComm_t comm)
{
	int64_t gbps = env_num("FAKE_NCCL_GBPS", 8);
	int64_t us = env_num("FAKE_NCCL_LATENCY_US", 20);

	if (!comm)
		return ncclInvalidArgument;
	if (gbps > 0)
		us += (int64_t)(bytes * 8 / (uint64_t)(gbps * 1000));
	if (depth > 0) {
		if (group_us == 0)
			first_start = now_us();
		group_us += us;
		return ncclSuccess;
	}
	last_start = now_us();
	spend(us);
	return ncclSuccess;
}

static size_t tsize(ncclDataType_t t)
{
	static const size_t s[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };

	return (unsigned)t < sizeof(s) / sizeof(*s) ? s[t] : 1;
}

int64_t fake_nccl_last_start_us(void)
{
	return last_start;
}

int cudaStreamIsCapturing(cudaStream_t stream, int *status)
{
	*status = stream == FAKE_CAPTURING_STREAM;
	return 0;
}

ncclResult_t ncclGetVersion(int *version)
{
	*version = 22800;
	return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	memset(id, 0, sizeof(*id));
	return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
	*comm = calloc(1, sizeof(**comm));
	if (!*comm)
		return ncclSystemError;
	(*comm)->rank = rank;
	(*comm)->nranks = nranks;
	return ncclSuccess;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
	ncclUniqueId id;
	int i;

	memset(&id, 0, sizeof(id));
	for (i = 0; i < ndev; i++)
		if (ncclCommInitRank(&comm[i], ndev, id, i) != ncclSuccess)
			return ncclSystemError;
	return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	free(comm);
	return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r)
{
	return r == ncclSuccess ? "no error" : "fake nccl error";
}

ncclResult_t ncclAllReduce(const void *s, void *r, size_t count, ncclDataType_t t,
			   ncclRedOp_t o, ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t count, ncclDataType_t t,
			   int root, ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclBcast(void *b, size_t count, ncclDataType_t t, int root,
		       ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclReduce(const void *s, void *r, size_t count, ncclDataType_t t,
			ncclRedOp_t o, int root, ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t count, ncclDataType_t t,
			   ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t count, ncclDataType_t t,
			       ncclRedOp_t o, ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclSend(const void *s, size_t count, ncclDataType_t t, int peer,
		      ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclRecv(void *r, size_t count, ncclDataType_t t, int peer,
		      ncclComm_t comm, cudaStream_t stream)
{
	return op(count * tsize(t), comm);
}

ncclResult_t ncclGroupStart(void)
{
	depth++;
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
	if (depth == 0)
		return ncclInvalidUsage;
	if (--depth == 0 && group_us > 0) {
		last_start = first_start;
		spend(group_us);
		group_us = 0;
	}
	return ncclSuccess;
}
