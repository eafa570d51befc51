"""orrery for PyTorch DistributedDataParallel: a communication hook that
waits for the job's slot before the first gradient all-reduce of each
backward pass, then runs PyTorch's default all-reduce hook.

    import orrery.torch
    ddp = DistributedDataParallel(model)
    ddp.register_comm_hook(orrery.torch.AlignedHookState(),
                           orrery.torch.aligned_allreduce_hook)

Which bucket starts an iteration: DDP launches the buckets' all-reduces in
bucket index order (bucket 0 holds the last layers, whose gradients are
ready first), so the hook gates when it sees bucket 0; and, should a
reducer ever start elsewhere, on the first bucket after one that reported
is_last().  The two rules agree in every DDP iteration, so the gate is
asked exactly once per iteration.

In record mode (ORRERY_RECORD=PREFIX) each bucket's all-reduce is recorded
(start when it is launched, end when its future completes, the bucket's
bytes) for orrery-capture(1).  Without an orrery slot grid or without
liborrery-runtime the hook is PyTorch's default all-reduce hook plus a
cheap check.  See orrery-python(7).
"""
import torch  # noqa: F401  (the real torch: this module is orrery.torch)
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

import orrery

__all__ = ["AlignedHookState", "aligned_allreduce_hook"]


class AlignedHookState:
    """State of the hook for one DDP model.

    process_group: the group to all-reduce over (None: the default group,
    as DDP's own default hook).  record: record each bucket (default: on
    when ORRERY_RECORD is set).  comm: the communicator name written to
    the timeline.

    After training, .iterations counts the iterations the hook gated,
    .waited_us the total time it held them, .buckets the all-reduces."""

    def __init__(self, process_group=None, record=None, comm=None):
        self.process_group = process_group
        self.record = orrery.recording() if record is None else bool(record)
        self.comm = comm or ("ddp-world" if process_group is None
                             else "ddp-%x" % (id(process_group) & 0xffffff))
        self.iterations = 0
        self.buckets = 0
        self.waited_us = 0
        self.active = orrery.active()
        self._after_last = True
        if self.record:
            orrery.set_source("torch")


_default_states = {}


def _state_of(state):
    # DDP passes whatever register_comm_hook got: accept a process group
    # or None as well, with one state per group.
    if isinstance(state, AlignedHookState):
        return state
    key = id(state)
    if key not in _default_states:
        _default_states[key] = AlignedHookState(process_group=state)
    return _default_states[key]


def aligned_allreduce_hook(state, bucket):
    """DDP communication hook: gate, then default_hooks.allreduce_hook."""
    st = _state_of(state)
    first = bucket.index() == 0 or st._after_last
    st._after_last = bucket.is_last()
    st.buckets += 1
    if first:
        st.iterations += 1
        # Blocks this autograd thread: the rest of the backward pass waits
        # too (a phase that is early has nothing better to do).
        st.waited_us += orrery.wait_for_slot()
    if not st.record:
        return default_hooks.allreduce_hook(st.process_group, bucket)

    buf = bucket.buffer()
    nbytes = buf.numel() * buf.element_size()
    start = orrery.now_us()
    fut = default_hooks.allreduce_hook(st.process_group, bucket)

    def done(f):
        # Runs when the all-reduce completed (on the backend's thread).
        orrery.record(start, orrery.now_us(), nbytes, st.comm, "allreduce")
        return f.value()

    return fut.then(done)
