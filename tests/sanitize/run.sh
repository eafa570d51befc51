#!/bin/bash
# Build liborrery, the plugins' testable parts, the tools and every unit
# test with AddressSanitizer + UndefinedBehaviorSanitizer (gcc), and run
# `make check` there.  Any ASan/UBSan/LeakSanitizer report fails the test
# that triggered it, and so the run.
#
#   tests/sanitize/run.sh [--build DIR]     (default _build/sanitize)
#
# The Slurm select plugin itself needs Slurm's source tree and runs inside
# slurmctld; its Slurm-free parts (orrery.conf parser, ORR1 record) are
# built and tested here, as is the SPANK plugin's (tests/unit/test_spank).
# Last line: "N passed, M failed" (test programs of make check).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$top/_build/sanitize
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "sanitize: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
# halt_on_error: the first report ends the test with a failure;
# detect_leaks: leaks fail too (LeakSanitizer runs at exit).
# verify_asan_link_order=0: tests/runtime/nccl.sh and the capture test
# LD_PRELOAD the (instrumented) NCCL interposer into an instrumented
# program, which puts it before libasan in the library list; the program
# itself links ASan, so its interceptors are in place.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:verify_asan_link_order=0
# Tests that would load instrumented code into an uninstrumented process
# (the Python package under /usr/bin/python3) skip themselves.
export ORRERY_SANITIZE=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$here/lsan.supp:print_suppressions=0

[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null) || {
	echo "sanitize: autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$build"
cd "$build" || exit 1
if [ ! -f Makefile ]; then
	"$top/configure" CFLAGS="$san" CXXFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" \
		> configure.log 2>&1 || {
		tail -n 20 configure.log; echo "sanitize: configure failed"
		echo "0 passed, 1 failed"; exit 1; }
fi
make -j2 > make.log 2>&1 || {
	grep -E 'error|Error' make.log | head -n 20
	echo "sanitize: build failed (log: $build/make.log)"
	echo "0 passed, 1 failed"; exit 1; }
# tests/sim/simgrid-crosscheck.sh compiles a program with $CXX against the
# (sanitized) engine library: it must link the sanitizer runtimes too.
make -j2 check TESTS_ENVIRONMENT='CXX="g++ -fsanitize=address,undefined"; export CXX;' \
	> check.log 2>&1
rc=$?
# Which tests failed, and why (the sanitizer's summary line).
for log in $(find . -name '*.log' ! -name test-suite.log ! -name config.log \
	     ! -name make.log ! -name check.log ! -name configure.log | sort); do
	res=$(sed -n 's/^:test-result: //p' "${log%.log}.trs" 2>/dev/null)
	case $res in
	PASS|SKIP|"") ;;
	*) echo "sanitize: ${log#./}: $res"
	   grep -hE 'ERROR: (Address|Leak)Sanitizer|runtime error|SUMMARY' "$log" | head -n 5 ;;
	esac
done
pass=$(sed -n 's/^# PASS: *//p' test-suite.log 2>/dev/null)
fail=$(( $(sed -n 's/^# FAIL: *//p' test-suite.log 2>/dev/null || echo 0) + \
	 $(sed -n 's/^# ERROR: *//p' test-suite.log 2>/dev/null || echo 0) ))
grep -E '^# (TOTAL|PASS|SKIP|FAIL|ERROR)' test-suite.log 2>/dev/null
[ $rc -ne 0 ] && [ "${fail:-0}" -eq 0 ] && fail=1
echo "${pass:-0} passed, ${fail:-0} failed"
[ $rc -eq 0 ]
