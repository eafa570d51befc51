"""orrery: the job side of orrery for Python training scripts.

orrery assigns each job a slot grid (ORRERY_PERIOD_US, ORRERY_EPOCH_US,
ORRERY_SHIFT_US, set by the SPANK plugin) so that neighbouring jobs'
communication phases interleave.  Call wait_for_slot() before the first
communication of each iteration, or let orrery.torch's DDP hook do it.

Without those variables, or without liborrery-runtime, every call is a
no-op that returns at once: the same script runs anywhere.  See
orrery-python(7).
"""
import ctypes

from . import _runtime

__all__ = ["wait_for_slot", "release_at", "now_us", "active", "stats",
           "finish", "record", "recording", "set_source", "runtime_path"]
__version__ = "0.1.0"

_OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce",
        "send", "recv", "alltoall")


def _lib():
    lib = _runtime.lib()
    if lib is not None:
        lib.orrery_runtime_init()
    return lib


def active():
    """True if the gate is active for this process (an orrery job with a
    slot grid and the runtime loaded)."""
    lib = _lib()
    return bool(lib and lib.orrery_runtime_active())


def wait_for_slot():
    """Block until this job's next slot; returns the microseconds waited
    (0 at once in no-op mode)."""
    lib = _lib()
    return int(lib.orrery_runtime_wait_for_slot()) if lib else 0


def now_us():
    """CLOCK_REALTIME in microseconds, the clock of the slots."""
    lib = _lib()
    if lib:
        return int(lib.orrery_runtime_now_us())
    import time
    return time.time_ns() // 1000


def release_at(now=None):
    """The gate's decision for a phase ready at `now` (µs), without
    sleeping.  Counts in the statistics like wait_for_slot()."""
    if now is None:
        now = now_us()
    lib = _lib()
    return int(lib.orrery_runtime_release_at(int(now))) if lib else int(now)


def stats():
    """The gate's counters as a dict (orrery-runtime(7), COUNTERS); in
    no-op mode active is False and the counters are 0."""
    s = _runtime.Stats()
    lib = _lib()
    if lib:
        lib.orrery_runtime_stats(ctypes.byref(s))
    out = {name: getattr(s, name) for name, _ in _runtime.Stats._fields_}
    out["active"] = bool(out["active"])
    out["disabled"] = bool(out["disabled"])
    del out["reserved"]
    del out["reserved2"]
    out["runtime"] = _runtime.path()
    return out


def finish():
    """Write the statistics file and flush the record-mode timeline now
    (the runtime also does it at exit).  0 on success, -1 on failure."""
    lib = _lib()
    return int(lib.orrery_runtime_finish()) if lib else 0


def recording():
    """True if record mode is on (ORRERY_RECORD=PREFIX)."""
    lib = _lib()
    return bool(lib and lib.orrery_runtime_recording())


def set_source(source):
    """Name the recorder in the timeline header ("torch", "nccl", ...);
    only before the first record."""
    lib = _lib()
    return int(lib.orrery_runtime_set_source(source.encode())) if lib else 0


def record(start_us, end_us, nbytes, comm, op="allreduce"):
    """Record one collective in the timeline (record mode only).  op is one
    of allreduce, allgather, reducescatter, broadcast, reduce, send, recv,
    alltoall.  Returns True if recorded."""
    if op not in _OPS:
        raise ValueError(f"op {op!r} not one of {', '.join(_OPS)}")
    lib = _lib()
    if not lib:
        return False
    rc = lib.orrery_runtime_record(int(start_us), int(end_us), int(nbytes),
                                   str(comm).encode()[:31], op.encode())
    return rc == 1


def runtime_path():
    """Path of the loaded liborrery-runtime, or None in no-op mode."""
    return _runtime.path()
