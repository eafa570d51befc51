#!/bin/sh
# The orrery Python package with Debian's python3-torch (1.13) on CPU:
# install it with pip from the source tree (as a user would, no network),
# check the library lookup, then run the 2-process gloo DDP job of
# test_torch_ddp.py against the built liborrery-runtime.
# Debian's torch serves Debian's interpreter: /usr/bin/python3, not the
# first python3 on PATH.  Skipped (77) only when python3-torch is missing,
# and in the sanitizer build (tests/sanitize/run.sh sets ORRERY_SANITIZE=1):
# an uninstrumented interpreter cannot load an ASan-instrumented library
# (ASan must be the first library of the process); the same C runtime code
# runs under ASan in tests/runtime/test_runtime and nccl.sh.
set -u
if [ -n "${ORRERY_SANITIZE:-}" ]; then
	echo "skip: sanitizer build: /usr/bin/python3 is not instrumented"
	exit 77
fi
srcdir=${srcdir:-.}
PY=/usr/bin/python3
RT=$PWD/contrib/runtime/.libs/liborrery-runtime.so.0
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch' 2>/dev/null; then
	echo "skip: /usr/bin/python3 cannot import torch (apt-get install python3-torch)"
	exit 77
fi
if ! "$PY" -m pip --version >/dev/null 2>&1; then
	echo "FAIL: /usr/bin/python3 has no pip (apt-get install python3-pip)"
	exit 1
fi
[ -f "$RT" ] || { echo "FAIL: $RT not built"; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# pip builds in the source directory: build from a copy (the source tree
# may be read-only, as under make distcheck).  ORRERY_LIBDIR stands in for
# the installed libdir that a real install takes from orrery.pc.
cp -R "$srcdir/contrib/python" "$tmp/src" && chmod -R u+w "$tmp/src" &&
	rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info || exit 99
if ! ORRERY_LIBDIR=$(dirname "$RT") "$PY" -m pip install --no-build-isolation \
	--no-deps --no-index --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1; then
	echo "FAIL: pip install contrib/python"
	sed 's/^/  | /' "$tmp/pip.log"
	exit 1
fi
echo "ok   pip install --no-build-isolation --no-deps contrib/python"

# Lookup order: the libdir recorded at build time when nothing is set...
got=$(env -u ORRERY_RUNTIME_LIB PYTHONPATH="$tmp/site" "$PY" -c \
	'import orrery; print(orrery.runtime_path())' 2>&1)
if [ "$got" != "$RT" ]; then
	echo "FAIL: recorded libdir: runtime_path() = '$got', expected $RT"
	exit 1
fi
echo "ok   installed package finds the runtime in its recorded libdir"
# ...and ORRERY_RUNTIME_LIB first, with no fallback when it is wrong.
got=$(ORRERY_RUNTIME_LIB=$tmp/none.so PYTHONPATH="$tmp/site" "$PY" -c \
	'import orrery; print(orrery.wait_for_slot(), orrery.active(), orrery.runtime_path())' 2>"$tmp/err")
if [ "$got" != "0 False None" ] || [ "$(grep -c 'liborrery-runtime not loaded' "$tmp/err")" != 1 ]; then
	echo "FAIL: a wrong ORRERY_RUNTIME_LIB: '$got', stderr:"
	sed 's/^/  | /' "$tmp/err"
	exit 1
fi
echo "ok   a wrong ORRERY_RUNTIME_LIB: no-op, one warning"

accepts=$PWD/tests/capture/spank_accepts
[ -x "$accepts" ] || accepts=
PYTHONPATH="$tmp/site" ORRERY_TEST_RUNTIME_LIB=$RT \
	ORRERY_TEST_CAPTURE=$PWD/contrib/capture/orrery-capture \
	ORRERY_TEST_ACCEPTS=$accepts \
	"$PY" "$srcdir/tests/python/test_torch_ddp.py"
