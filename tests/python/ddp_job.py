#!/usr/bin/python3
"""One rank of a small data-parallel training job on CPU (gloo), with the
orrery DDP hook.  Run by test_torch_ddp.py, two ranks at a time:

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p \
        ddp_job.py --iterations N --out result.json

Writes what the test checks: the time each iteration's first all-reduce
was launched (just after the hook released it), the hook's and the
runtime's counters, and a checksum of the trained parameters (equal on all
ranks when the all-reduces really ran).
"""
import argparse
import json
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

import orrery
import orrery.torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--out", required=True)
    ap.add_argument("--state-none", action="store_true",
                    help="register the hook with state None, as DDP's own hooks allow")
    args = ap.parse_args()

    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(1234 + rank)  # different data per rank
    # Small enough that an iteration takes a few ms even on a loaded CI
    # machine (the gate, not the compute, sets the pace), big enough for
    # several buckets: DDP's first bucket holds 1 MB, later ones
    # bucket_cap_mb; 2.4 MB of parameters make 2 buckets in the first
    # iteration and 3 or more later.
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10))
    ddp = DistributedDataParallel(model, bucket_cap_mb=0.25)
    state = None if args.state_none else orrery.torch.AlignedHookState()
    releases = []

    def probing_hook(st, bucket):
        fut = orrery.torch.aligned_allreduce_hook(st, bucket)
        if bucket.index() == 0:
            releases.append(orrery.now_us())
        return fut

    ddp.register_comm_hook(state, probing_hook)
    if state is None:  # the hook keeps one state per process group
        state = orrery.torch._state_of(None)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x = torch.randn(32, 64)
    y = torch.randint(0, 10, (32,))
    iter_ms = []
    for _ in range(args.iterations):
        t0 = orrery.now_us()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        iter_ms.append((orrery.now_us() - t0) / 1e3)
    checksum = float(sum(p.detach().double().sum() for p in model.parameters()))
    dist.barrier()
    orrery.finish()
    with open(args.out, "w") as f:
        json.dump({
            "rank": rank,
            "torch": torch.__version__,
            "releases_us": releases,
            "iteration_ms": iter_ms,
            "hook_iterations": state.iterations,
            "hook_buckets": state.buckets,
            "hook_waited_us": state.waited_us,
            "hook_active": state.active,
            "stats": orrery.stats(),
            "checksum": checksum,
            "loss": float(loss),
            "pid": os.getpid(),
        }, f)
    # Leave without destroy_process_group() and the interpreter's teardown:
    # torch's gloo teardown now and then hangs in the rank whose peer has
    # already exited (pytorch/pytorch#75097, open; here 1 run in about 100,
    # the 2 December CI's distcheck one of them).  Everything this job
    # reports is written above; orrery.finish() has run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
