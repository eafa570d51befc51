/*
 * gpu_allreduce_loop.c - a small real NCCL job for contrib/runtime/gpu-check:
 * one GPU, one or two single-rank communicators, N iterations of
 * "compute" (a host sleep, the GPU idle) followed by an all-reduce of
 * BYTES, waited for with cudaStreamSynchronize.  Unmodified NCCL code:
 * the gate comes from LD_PRELOAD=liborrery-nccl.so.
 *
 * Prints one line per iteration:
 *   iter comm entered_us returned_us done_us
 * (returned: ncclAllReduce returned to the caller, i.e. after the gate and
 * the enqueue; done: the stream finished the all-reduce).
 * With -G it first captures one all-reduce into a CUDA graph and launches
 * the graph G times (the interposer must leave captured calls alone).
 *
 * Build (gpu-check does this):
 *   gcc -O2 -I/usr/local/cuda/include gpu_allreduce_loop.c \
 *       -L/usr/local/cuda/lib64 -lcudart -l:libnccl.so.2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#define CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NCCL(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); exit(1); } } while (0)

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	int iters = 60, n_comms = 1, graph_launches = 0, opt, i, dev = 0, version = 0;
	int64_t compute_us = 30000;
	size_t bytes = 256u << 20;
	ncclComm_t comms[2];
	cudaStream_t stream;
	float *send, *recv;

	while ((opt = getopt(argc, argv, "n:c:b:m:G:")) != -1) {
		switch (opt) {
		case 'n': iters = atoi(optarg); break;
		case 'c': compute_us = atoll(optarg); break;
		case 'b': bytes = strtoull(optarg, NULL, 10); break;
		case 'm': n_comms = atoi(optarg) == 2 ? 2 : 1; break;
		case 'G': graph_launches = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n iters] [-c compute_us] [-b bytes] [-m 1|2] [-G graph_launches]\n", argv[0]);
			return 2;
		}
	}
	CUDA(cudaSetDevice(dev));
	CUDA(cudaMalloc((void **)&send, bytes));
	CUDA(cudaMalloc((void **)&recv, bytes));
	CUDA(cudaMemset(send, 0, bytes));
	CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	NCCL(ncclGetVersion(&version));
	/* Single-rank communicators: NCCL refuses two ranks on one GPU. */
	for (i = 0; i < n_comms; i++)
		NCCL(ncclCommInitAll(&comms[i], 1, &dev));
	fprintf(stderr, "gpu_allreduce_loop: NCCL %d, %d communicator(s), %zu bytes, %d iterations, compute %lld us\n",
		version, n_comms, bytes, iters, (long long)compute_us);

	/* Warm-up (connection setup, first-call costs), outside the loop. */
	NCCL(ncclAllReduce(send, recv, bytes / 4, ncclFloat32, ncclSum, comms[0], stream));
	CUDA(cudaStreamSynchronize(stream));

	if (graph_launches > 0) {
		cudaGraph_t graph;
		cudaGraphExec_t exec;

		CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
		NCCL(ncclAllReduce(send, recv, bytes / 4, ncclFloat32, ncclSum, comms[0], stream));
		CUDA(cudaStreamEndCapture(stream, &graph));
		CUDA(cudaGraphInstantiate(&exec, graph, 0));
		for (i = 0; i < graph_launches; i++)
			CUDA(cudaGraphLaunch(exec, stream));
		CUDA(cudaStreamSynchronize(stream));
		CUDA(cudaGraphExecDestroy(exec));
		CUDA(cudaGraphDestroy(graph));
		fprintf(stderr, "gpu_allreduce_loop: CUDA graph with a captured all-reduce launched %d times\n",
			graph_launches);
	}

	for (i = 0; i < iters; i++) {
		int64_t entered, returned, done;
		int c = i % n_comms;

		usleep(compute_us);
		entered = now_us();
		NCCL(ncclAllReduce(send, recv, bytes / 4, ncclFloat32, ncclSum, comms[c], stream));
		returned = now_us();
		CUDA(cudaStreamSynchronize(stream));
		done = now_us();
		printf("%d %d %lld %lld %lld\n", i, c, (long long)entered, (long long)returned,
		       (long long)done);
	}
	for (i = 0; i < n_comms; i++)
		ncclCommDestroy(comms[i]);
	cudaFree(send);
	cudaFree(recv);
	return 0;
}
