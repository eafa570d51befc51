#!/bin/bash
# Build orrery's libFuzzer targets with clang (ASan + UBSan) and run each
# for a bounded time on its seed corpus; then replay every saved crash
# reproducer (tests/fuzz/regress/<target>/), which must no longer crash.
#
#   tests/fuzz/run.sh [--seconds N] [--execs E] [--jobs J] [--build DIR] [--keep] [TARGET...]
#
#   --seconds N  fuzzing time per target (default 20; `make fuzz-long`
#                and the nightly idea use 3600); with --execs, the cap
#   --execs E    fuzz each target until E executions (CI: 1000000), at
#                most --seconds: a target stops as soon as it has E; one
#                the cap stops short of E fails the run (with its figures)
#   --jobs J     targets fuzzed at once (default 2)
#   --build DIR  objects, binaries and the grown corpora (default
#                _build/fuzz); the seed corpora in the repository are
#                never written
# Prints one line per target (executions, seconds, executions a second,
# result) and last "N passed, M failed".  A crash leaves its input under
# DIR/artifacts/ and the run fails.  Needs clang-14 and libclang-rt-14-dev
# (libFuzzer).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=20
execs_goal=0
jobs=2
build=$top/_build/fuzz
keep=0
targets=()
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift 2 ;;
	--execs) execs_goal=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	-*) echo "fuzz: unknown option '$1'" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
all_targets=(profile_spec profile_file orrery_conf state_file topology_conf
	     admin_record spank_input node_records)
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

CC=${FUZZ_CC:-clang-14}
CXX=${FUZZ_CXX:-clang++-14}
for c in "$CC" "$CXX"; do
	command -v "$c" >/dev/null || {
		echo "fuzz: $c not found (apt-get install clang-14 libclang-rt-14-dev)" >&2
		exit 2
	}
done

san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
glib_cflags=$(pkg-config --cflags glib-2.0)
glib_libs=$(pkg-config --libs glib-2.0)
version=$(sed -n 's/^AC_INIT(\[orrery\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
mkdir -p "$build/obj" "$build/bin" "$build/corpus" "$build/artifacts" "$build/log"
printf '#define PACKAGE_VERSION "%s"\n' "${version:-fuzz}" > "$build/obj/config.h.new"
cmp -s "$build/obj/config.h.new" "$build/obj/config.h" ||
	mv "$build/obj/config.h.new" "$build/obj/config.h"
rm -f "$build/obj/config.h.new"

# --- build -----------------------------------------------------------
# One object per source, rebuilt when the source or a header is newer.
compile() {  # SRC OBJ
	local src=$1 obj=$2 cc flags
	case $src in
	*.cpp) cc=$CXX; flags="-std=c++17" ;;
	*) cc=$CC; flags="-std=gnu11" ;;
	esac
	$cc $flags -O1 -g $san -fsanitize=fuzzer-no-link \
		-I"$build/obj" -I"$top/lib" -I"$top" -I"$top/plugins/select/orrery" \
		$glib_cflags -c "$src" -o "$obj"
}
export -f compile
export CC CXX san glib_cflags build top

newest_header=$(find "$top/lib" "$top/plugins" "$top/contrib/inventory" "$here" -name '*.h' -o -name '*.hpp' |
		xargs ls -t | head -n 1)
# liborrery's sources, C++ and C (lib/gate is C)
lib_srcs=$(find "$top/lib" \( -name '*.cpp' -o -name '*.c' \) | sort)
plugin_srcs="$top/plugins/select/orrery/orrery_conf.c
$top/plugins/select/orrery/admin_record.c
$top/plugins/common/admin_comment.c
$top/plugins/spank/args.c
$top/plugins/spank/option.c
$top/plugins/spank/relay.c
$top/plugins/spank/gate.c
$top/contrib/inventory/counters.c
$top/contrib/inventory/gate_stats.c"
todo=()
for src in $lib_srcs $plugin_srcs "${targets[@]/#/$here/}"; do
	[ -f "$src" ] || src=$src.c
	rel=${src#$top/}
	obj=$build/obj/${rel//\//_}.o
	if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
		todo+=("$src $obj")
	fi
done
if [ ${#todo[@]} -gt 0 ]; then
	echo "fuzz: compiling ${#todo[@]} sources with $CXX"
	printf '%s\n' "${todo[@]}" |
		xargs -P "$jobs" -L 1 bash -c 'compile "$0" "$1" || exit 255' || {
		echo "fuzz: build failed"; echo "0 passed, ${#targets[@]} failed"; exit 1; }
fi
lib_objs=()
for src in $lib_srcs; do rel=${src#$top/}; lib_objs+=("$build/obj/${rel//\//_}.o"); done
# liborrery as an archive: a target links only the objects it calls.  Each
# object linked adds its coverage counters, which libFuzzer clears and
# scans on every execution (state_file: 21,246 counters with all of them, 11,849 so).
lib_a=$build/obj/liborrery-fuzz.a
rm -f "$lib_a"
ar rcs "$lib_a" "${lib_objs[@]}" || {
	echo "fuzz: cannot archive liborrery"; echo "0 passed, ${#targets[@]} failed"; exit 1; }
obj_of() { local rel=${1#$top/}; echo "$build/obj/${rel//\//_}.o"; }
conf_o=$(obj_of "$top/plugins/select/orrery/orrery_conf.c")
admin_o="$(obj_of "$top/plugins/select/orrery/admin_record.c") $(obj_of "$top/plugins/common/admin_comment.c")"
spank_o="$(obj_of "$top/plugins/spank/args.c") $(obj_of "$top/plugins/spank/option.c") $(obj_of "$top/plugins/spank/relay.c") $(obj_of "$top/plugins/spank/gate.c")"
records_o="$(obj_of "$top/contrib/inventory/counters.c") $(obj_of "$top/contrib/inventory/gate_stats.c") $(obj_of "$top/plugins/common/admin_comment.c")"
for t in "${targets[@]}"; do
	case $t in
	orrery_conf) extra=$conf_o ;;
	node_records) extra=$records_o ;;
	admin_record) extra=$admin_o ;;
	spank_input) extra=$spank_o ;;
	*) extra= ;;
	esac
	$CXX $san -fsanitize=fuzzer -o "$build/bin/$t" "$(obj_of "$here/$t.c")" \
		$extra "$lib_a" $glib_libs || {
		echo "fuzz: cannot link $t"; echo "0 passed, ${#targets[@]} failed"; exit 1; }
done

# --- run -------------------------------------------------------------
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Longest input per target.  Every branch of these parsers is reached
# within a few lines (the seeds are 0.1-1 KiB); their size limits (MiB)
# are far beyond any -max_len and are tested by tests/unit.  A longer
# bound lets libFuzzer grow inputs past what any branch needs, and an
# execution costs in proportion to its input's length.
max_len() {
	case $1 in
	profile_spec|spank_input|admin_record|node_records) echo 16384 ;;
	state_file|topology_conf) echo 8192 ;;
	*) echo 65536 ;;
	esac
}
run_one() {  # TARGET -> writes log/TARGET.result
	local t=$1 log=$build/log/$1.log dict=() rc=0 regress=() runs=()
	[ "$execs_goal" -gt 0 ] && runs=(-runs="$execs_goal")
	mkdir -p "$build/corpus/$t"
	[ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
	# Replay the fixed crashes first: each must pass.
	if [ -d "$here/regress/$t" ]; then
		mapfile -t regress < <(find "$here/regress/$t" -type f | sort)
	fi
	if [ ${#regress[@]} -gt 0 ]; then
		"$build/bin/$t" -runs=1 "${regress[@]}" > "$build/log/$t.regress.log" 2>&1 || rc=1
	fi
	local t0 t1
	t0=$(date +%s%N)
	if [ $rc -eq 0 ]; then
		"$build/bin/$t" -max_total_time="$seconds" -max_len="$(max_len "$t")" \
			"${runs[@]}" \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$build/artifacts/$t-" "${dict[@]}" \
			"$build/corpus/$t" "$here/corpus/$t" > "$log" 2>&1 || rc=2
	fi
	t1=$(date +%s%N)
	local execs secs
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" 2>/dev/null | tail -n 1)
	# wall time of the fuzzing run itself (its start-up included), in s
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	# Stopped by the time cap short of the goal: a failure of its own.
	[ $rc -eq 0 ] && [ "$execs_goal" -gt 0 ] && [ "${execs:-0}" -lt "$execs_goal" ] && rc=3
	echo "$rc ${execs:-0} ${#regress[@]} ${secs:-$seconds}" > "$build/log/$t.result"
}
export -f run_one max_len
export seconds here execs_goal

if [ "$execs_goal" -gt 0 ]; then
	echo "fuzz: ${#targets[@]} targets, $execs_goal executions each (at most $seconds s), $jobs at a time"
else
	echo "fuzz: ${#targets[@]} targets, $seconds s each, $jobs at a time"
fi
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'

passed=0
failed=0
total_execs=0
for t in "${targets[@]}"; do
	read -r rc execs nreg secs < "$build/log/$t.result"
	total_execs=$((total_execs + execs))
	rate=$(awk -v x="$execs" -v s="$secs" 'BEGIN { printf "%d", (s > 0 ? x / s : 0) }')
	case $rc in
	0) passed=$((passed + 1))
	   printf 'fuzz %-14s %10s executions in %6ss (%6s/s), %s reproducers replayed: no crash\n' \
		   "$t" "$execs" "$secs" "$rate" "$nreg" ;;
	3) failed=$((failed + 1))
	   printf 'fuzz %-14s %10s executions in %6ss (%6s/s): FAILED, the %ss cap stopped it short of %s executions (no crash)\n' \
		   "$t" "$execs" "$secs" "$rate" "$seconds" "$execs_goal" ;;
	1) failed=$((failed + 1))
	   echo "fuzz $t: a saved reproducer crashes again:"
	   grep -E 'ERROR|SUMMARY|fuzz check failed|runtime error' "$build/log/$t.regress.log" | head -n 5 ;;
	*) failed=$((failed + 1))
	   echo "fuzz $t: CRASH after $execs executions; input: $(ls -t "$build/artifacts/$t-"* 2>/dev/null | head -n 1)"
	   grep -E 'ERROR|SUMMARY|fuzz check failed|runtime error' "$build/log/$t.log" | head -n 5 ;;
	esac
done
echo "fuzz: $total_execs executions in all"
[ $keep -eq 1 ] || rm -rf "$build/corpus"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
