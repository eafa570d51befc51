"""ctypes binding of liborrery-runtime (contrib/runtime/orrery_runtime.h).

The library is looked up, in order, at:
  1. $ORRERY_RUNTIME_LIB (a path to the shared object),
  2. the libdir recorded when this package was built (orrery/_config.py),
  3. ctypes.util.find_library("orrery-runtime") and the loader's own path
     (LD_LIBRARY_PATH, ld.so.cache) under its soname.
If none loads, the package is a no-op: one warning on stderr, and every call
returns at once.  It never raises into a training script.
"""
import ctypes
import ctypes.util
import os
import sys
import threading

from . import _config

SONAME = "liborrery-runtime.so.0"


class Stats(ctypes.Structure):
    """orrery_runtime_stats_t, field for field."""
    _fields_ = [
        ("phases", ctypes.c_uint64),
        ("on_slot", ctypes.c_uint64),
        ("late", ctypes.c_uint64),
        ("missed", ctypes.c_uint64),
        ("passthrough", ctypes.c_uint64),
        ("total_wait_us", ctypes.c_int64),
        ("max_wait_us", ctypes.c_int64),
        ("total_late_us", ctypes.c_int64),
        ("period_us", ctypes.c_int64),
        ("slot_base_us", ctypes.c_int64),
        ("recorded", ctypes.c_uint64),
        ("record_dropped", ctypes.c_uint64),
        ("active", ctypes.c_int32),
        ("disabled", ctypes.c_int32),
        ("reanchored", ctypes.c_uint64),
        ("rearmed", ctypes.c_uint64),
        ("disables", ctypes.c_uint64),
        ("period_now_us", ctypes.c_int64),
        ("measured_us", ctypes.c_int64),
        ("mode", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        # The live channel (orrery-runtime(7), CHANNEL).
        ("updates_received", ctypes.c_uint64),
        ("updates_applied", ctypes.c_uint64),
        ("late_switches", ctypes.c_uint64),
        ("channel_gen", ctypes.c_uint64),
        ("last_apply_us", ctypes.c_int64),
        ("last_pub_us", ctypes.c_int64),
        ("channel_gate", ctypes.c_int32),
        ("reserved2", ctypes.c_int32),
        # The gate's measure of the work per iteration.
        ("min_work_us", ctypes.c_int64),
        ("range_us", ctypes.c_int64),
    ]


_lock = threading.Lock()
_lib = None          # the CDLL, or False once the search failed
_lib_path = None
_why = None


def _candidates():
    env = os.environ.get("ORRERY_RUNTIME_LIB")
    if env:
        # An explicit choice: nothing else is tried, so a wrong path is
        # reported rather than silently replaced by another library.
        return [env]
    out = []
    if _config.LIBDIR:
        out.append(os.path.join(_config.LIBDIR, SONAME))
    found = ctypes.util.find_library("orrery-runtime")
    if found:
        out.append(found)
    out.append(SONAME)
    return out


def _declare(lib):
    i64, u64, cp = ctypes.c_int64, ctypes.c_uint64, ctypes.c_char_p
    sigs = {
        "orrery_runtime_init": (ctypes.c_int, []),
        "orrery_runtime_active": (ctypes.c_int, []),
        "orrery_runtime_wait_for_slot": (i64, []),
        "orrery_runtime_release_at": (i64, [i64]),
        "orrery_runtime_now_us": (i64, []),
        "orrery_runtime_stats": (None, [ctypes.POINTER(Stats)]),
        "orrery_runtime_finish": (ctypes.c_int, []),
        "orrery_runtime_record": (ctypes.c_int, [i64, i64, u64, cp, cp]),
        "orrery_runtime_set_source": (ctypes.c_int, [cp]),
        "orrery_runtime_recording": (ctypes.c_int, []),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)  # AttributeError: not the runtime
        fn.restype = res
        fn.argtypes = args


def lib():
    """The loaded runtime, or None (no-op mode, warned once)."""
    global _lib, _lib_path, _why
    if _lib is not None:
        return _lib or None
    with _lock:
        if _lib is not None:
            return _lib or None
        errors = []
        for path in _candidates():
            try:
                cand = ctypes.CDLL(path)
                _declare(cand)
            except (OSError, AttributeError) as e:
                errors.append(f"{path}: {e}")
                continue
            _lib, _lib_path = cand, path
            return _lib
        _lib = False
        _why = "; ".join(errors) or "not found"
        sys.stderr.write(
            "orrery: liborrery-runtime not loaded, communication is not "
            f"gated ({_why}); set ORRERY_RUNTIME_LIB to its path\n")
        sys.stderr.flush()
        return None


def path():
    """Path of the loaded runtime, or None."""
    lib()
    return _lib_path
