#!/bin/bash
# nccl.sh - the NCCL interposer without GPUs: nccl_train_loop over the
# stand-in libnccl (tests/runtime/fake-nccl), run with
# LD_PRELOAD=liborrery-nccl.so and a synthetic ORRERY_* environment
# (period 100 ms, shift 20 ms, phase offset 5 ms, epoch now).
#
# Asserts where each collective was released relative to the slots
# (releases.awk): the first collective of each iteration within TOL µs
# after its slot, on consecutive slots, the rest at once; and the runtime's
# statistics.  Stated tolerance: at least 80% of the releases within
# TOL = 10 ms of their slot (the gate's own late tolerance, period/10),
# and at most 20% of the iterations anomalous (half a period late, on the
# previous iteration's slot, threads on different slots, a skipped slot);
# on an idle machine releases are typically 100-200 µs after the slot,
# but a loaded 2-core CI machine can keep a thread off the CPU for tens of
# milliseconds (the loop runs at a real-time priority where it can,
# tests/lib/rt.sh, so that the shares measure the gate, not the
# machine's wake-up latency).  ORRERY_TEST_TOL_US overrides TOL.
#
# Run by make check from the build directory; ORRERY_BUILD_DIR overrides.
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${ORRERY_BUILD_DIR:-$PWD}
LOOP=$BUILD/tests/runtime/nccl_train_loop
GATE=$BUILD/contrib/runtime/nccl/.libs/liborrery-nccl.so
RTLIB=$BUILD/contrib/runtime/.libs
TOL=${ORRERY_TEST_TOL_US:-10000}
PERIOD=100000
SHIFT=20000
OFFSET=5000
. "$HERE/../lib/tap.sh"
. "$HERE/../lib/rt.sh"

for f in "$LOOP" "$GATE"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "nccl.sh: $f not built" >&2; exit 1; }
done
TMP=$(mktemp -d /tmp/orrery-nccl-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
unset ORRERY_PERIOD_US ORRERY_EPOCH_US ORRERY_SHIFT_US ORRERY_PHASE_OFFSET_US \
	ORRERY_GATE ORRERY_RECORD ORRERY_RUNTIME_STATS ORRERY_RUNTIME_VERBOSE \
	ORRERY_GATE_GAP_US ORRERY_GATE_MIN_INTERVAL_US ORRERY_PHASE_SPAN_US \
	ORRERY_PHASES_US ORRERY_RECORD_SYNC
export LD_LIBRARY_PATH=$RTLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

now_us() { echo $(( $(date +%s%N) / 1000 )); }

# run NAME [ENV=VALUE...] -- LOOP_ARGS: gated run with the synthetic slots.
EPOCH=
run() {
	local name=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	EPOCH=$(now_us)
	$RTPRIO env ORRERY_PERIOD_US=$PERIOD ORRERY_EPOCH_US=$EPOCH ORRERY_SHIFT_US=$SHIFT \
		ORRERY_GATE_MIN_INTERVAL_US=20000 \
		ORRERY_PHASE_OFFSET_US=$OFFSET ORRERY_RUNTIME_STATS="$TMP/$name.stats" \
		ORRERY_RUNTIME_VERBOSE=1 "${envs[@]}" LD_PRELOAD="$GATE" \
		"$LOOP" -o "$TMP/$name.out" "$@" 2>"$TMP/$name.err"
}
stat() { sed -n "s/^$2=//p" "$TMP/$1.stats"; }
check() {  # check NAME PHASES: releases on the slots, runtime counted PHASES
	local name=$1 want=$2 res
	res=$(awk -v period=$PERIOD -v base=$((EPOCH + OFFSET + SHIFT)) -v tol=$TOL \
		-f "$HERE/releases.awk" "$TMP/$name.out")
	# A thread kept off the CPU past the phase gap (loaded machine) opens
	# a phase of its own: up to a fifth more phases are such anomalies.
	local got
	got=$(stat "$name" phases)
	[ -n "$got" ] && [ "$got" -ge "$want" ] && [ "$got" -le $((want + want / 5)) ] ||
		res="$res
problem: runtime counted ${got:-no} phases, want $want (at most $((want + want / 5)))"
	[ "$(stat "$name" active)" = 1 ] || res="$res
problem: runtime not active: $(stat "$name" reason)"
	if grep -q '^problem' <<<"$res"; then
		not_ok "$name" $(echo "$res" | head -n 8 | tr ' ' '_') "$(head -n 3 "$TMP/$name.err")"
	else
		ok "$name: $(echo "$res" | tail -n 1)"
	fi
}

# Iterations of about 30 ms, much shorter than the 100 ms period so that a
# loaded machine's sleeps may take twice as long and the phases still wait
# for their slots; ORRERY_GATE_MIN_INTERVAL_US=20000 (run's default here)
# lets the phase rule see each iteration as a new phase.  Test 6 checks
# the default minimum interval.
# 1. one communicator, 12 iterations of 25 ms compute + 4 x 1 MB allreduce
run plain -- -n 12 -c 25000 -k 4
check plain 12

# 2. two communicators used alternately: still one gate per iteration
run two-comms -- -n 10 -c 25000 -k 4 -m 2
check two-comms 10

# 3. the phase inside ncclGroupStart/End: gated once, at its first call
run group -- -n 10 -c 25000 -k 4 -g
check group 10

# 4. two threads with a communicator each: one gate for the process; both
#    threads' phases go on the same slot
run threads -- -n 10 -c 25000 -k 3 -t 2
check threads 10

# 5. the first 4 iterations captured into a CUDA graph (as a job does
#    when it captures, then replays the graph): not gated; the rest are
run capture -- -n 10 -c 25000 -k 3 -C 4
check capture 6

# 6. a profile with two Up phases: each iteration has a second burst 50 ms
#    after the first ends.  With ORRERY_PHASE_SPAN_US=75000 (what the SPANK
#    plugin exports for such a profile) it belongs to the iteration and
#    passes; without it (minimum interval period/2) it is taken for a new
#    phase and waits for the next slot.
# (Iterations of 79 ms leave little room for a loaded machine, so this
# checks the phase count and that second bursts pass, not release times.
# The second burst comes about 53 ms after the release, 22 ms inside the
# span: a machine that keeps the loop off the CPU that long makes it a
# phase of its own, held for the next slot, and the next iteration's
# first burst then passes inside the new span.  As in check, a fifth of
# the iterations may be such anomalies: at most 9 phases, and at most 2
# second bursts held, where without the span all 8 are held, 16 phases.)
run span ORRERY_GATE_MIN_INTERVAL_US= ORRERY_PHASE_SPAN_US=75000 -- -n 8 -c 25000 -s 50000 -k 2
n=$(stat span phases)
held=$(awk -v q=$((PERIOD / 4)) '$3 == 2 && $6 - $5 > q { n++ } END { print n + 0 }' "$TMP/span.out")
[ -n "$n" ] && [ "$n" -ge 8 ] && [ "$n" -le 9 ] && [ "$held" -le 2 ] &&
	ok "ORRERY_PHASE_SPAN_US=75000: $n phases for 8 two-burst iterations (8 to 9), $held second burst(s) held (at most 2 of 8)" ||
	not_ok "ORRERY_PHASE_SPAN_US=75000: want 8 to 9 phases and at most 2 second bursts held" "phases=$n held=$held"
run nospan ORRERY_GATE_MIN_INTERVAL_US= -- -n 1 -c 25000 -s 50000 -k 2
held=$(awk '$3 == 2 { print $6 - $5 }' "$TMP/nospan.out")
[ "${held:-0}" -gt $((PERIOD / 4)) ] && ok "without ORRERY_PHASE_SPAN_US the second burst is gated as a new phase (held $held us)" ||
	not_ok "without ORRERY_PHASE_SPAN_US the second burst should wait for a slot" "held ${held:-?} us"

# 6b. a stall before a later phase.  Two bursts (25 ms compute, 2 ms
#    burst, 30 ms compute, 2 ms burst), the minimum interval at its default
#    (period/2: both compute gaps are shorter), and iteration 2's second
#    burst 30 ms late (nccl_train_loop -S): it comes 62 ms after the
#    release, past the minimum interval.  With ORRERY_PHASES_US (the
#    profile's phases, as the SPANK plugin exports them) the gate counts
#    the bursts and passes it as the iteration's second; in iterations
#    3-7 the first burst still waits for the slot and the second goes at
#    once.  Without the list the gate holds it for the next slot and stays
#    locked on the second burst (orrery-runtime(7), Phase rule): most of
#    iterations 3-7 hold their second burst instead.  Holding is a wait
#    of more than period/4 (the first burst waits about 40 ms, iteration
#    3's about 10 ms: it comes late after the stall).
lock() {  # lock NAME FROM: "FIRST SECOND": iterations FROM on holding that burst
	awk -v q=$((PERIOD / 4)) -v from="$2" '$2 >= from && $6 - $5 > q { if ($3 == 0) f++; if ($3 == 2) s++ }
		END { print f + 0, s + 0 }' "$TMP/$1.out"
}
run stall-counted ORRERY_GATE_MIN_INTERVAL_US= ORRERY_PHASE_SPAN_US=34000 \
	ORRERY_PHASES_US=0+2000,32000+2000 -- -n 8 -c 25000 -s 30000 -S 2:30000 -k 2
check stall-counted 8
read -r first second < <(lock stall-counted 3)
[ "$first" -ge 3 ] && [ "$second" = 0 ] &&
	ok "stalled second burst with ORRERY_PHASES_US: passed; iterations 3-7 hold the first burst ($first of 5), never the second" ||
	not_ok "stalled second burst with ORRERY_PHASES_US: the gate should stay on the first burst" \
		"first=$first second=$second (iterations 3-7 holding each)" "$(head -n 3 "$TMP/stall-counted.err")"
grep -q 'passed as a stalled phase' "$TMP/stall-counted.err" &&
	ok "the interposer says it passed a stalled phase (ORRERY_RUNTIME_VERBOSE=1)" ||
	not_ok "the interposer should say it passed a stalled phase" "$(cat "$TMP/stall-counted.err")"
# The statistics file counts it (what a job's owner reads without verbose).
[ "$(stat stall-counted bursts_counted)" = on ] && [ "$(stat stall-counted stalls_passed)" -ge 1 ] &&
	[ "$(stat stall-counted short_periods)" = 0 ] &&
	ok "stats: bursts_counted=on stalls_passed=$(stat stall-counted stalls_passed) short_periods=0" ||
	not_ok "stats should count the passed stall" "$(grep -E '^(bursts_counted|stalls_passed|short_periods)=' "$TMP/stall-counted.stats")"
# A stall past period - gap is gated as a period's first (short_periods):
# 15 ms compute, a burst, 40 ms, a burst (the second 42 ms after the
# release, the next first at 59 ms, both under the 50 ms minimum
# interval), and a 60 ms stall: the second burst comes 102 ms after the
# release, past the 90 ms limit, and the gate takes it.  The period after
# it has the first burst 17 ms after the release (59 - 42: the job's own
# cycle rotated), not 42 ms: the gate holds the first burst again from
# the next period (relocked, phase_rule.c).  A period a loaded machine
# stretched past gap/2 decides nothing, and the rule judges up to
# PR_JUDGE_PERIODS (8) whole periods: iterations 12-15 hold the first
# burst, never the second, however many of iterations 3-10 were disturbed.
run stall-long ORRERY_GATE_MIN_INTERVAL_US= ORRERY_PHASE_SPAN_US=44000 \
	ORRERY_PHASES_US=0+2000,42000+2000 -- -n 16 -c 15000 -s 40000 -S 2:60000 -k 2
read -r first second < <(lock stall-long 12)
# On failure, each iteration's bursts: when they came after the iteration's
# first arrival, and how long each was held (ms).
arrivals() {
	awk '$3 % 2 == 0 { if (!($2 in t0)) t0[$2] = $5
		line[$2] = line[$2] sprintf(" b%d +%.1f held %.1f", $3 / 2 + 1, ($5 - t0[$2]) / 1e3, ($6 - $5) / 1e3) }
		END { for (i = 0; i in line; i++) printf "iteration %d:%s\n", i, line[i] }' "$TMP/$1.out"
}
[ "$(stat stall-long short_periods)" -ge 1 ] && grep -q 'gated as a period.s first' "$TMP/stall-long.err" &&
	ok "a stall past period - gap: short_periods=$(stat stall-long short_periods) in the stats, said once" ||
	not_ok "a stall past period - gap should be counted in short_periods" \
		"$(grep -E '^(bursts_counted|stalls_passed|short_periods|relocked)=' "$TMP/stall-long.stats")" "$(cat "$TMP/stall-long.err")"
[ "$(stat stall-long relocked)" -ge 1 ] && [ "$first" -ge 3 ] && [ "$second" = 0 ] &&
	grep -q 'holds the first burst again' "$TMP/stall-long.err" &&
	ok "and the gate goes back to the first burst: relocked=$(stat stall-long relocked), iterations 12-15 hold the first ($first of 4), never the second" ||
	not_ok "after a stall past period - gap the gate should hold the first burst again" \
		"relocked=$(stat stall-long relocked) first=$first second=$second" "$(cat "$TMP/stall-long.err")" \
		"$(arrivals stall-long)"
run stall-timed ORRERY_GATE_MIN_INTERVAL_US= ORRERY_PHASE_SPAN_US=34000 \
	-- -n 8 -c 25000 -s 30000 -S 2:30000 -k 2
read -r first second < <(lock stall-timed 3)
[ "$second" -ge 3 ] &&
	ok "stalled second burst without ORRERY_PHASES_US: the gate locks on it ($second of iterations 3-7 hold it)" ||
	not_ok "without ORRERY_PHASES_US the stall should move the gate to the second burst" \
		"first=$first second=$second"
[ "$(stat stall-timed bursts_counted)" = none ] &&
	ok "stats without ORRERY_PHASES_US: bursts_counted=none" ||
	not_ok "stats without the list should say bursts_counted=none" "$(stat stall-timed bursts_counted)"

# 6c. a list that is not the job's: three bursts listed, two in the job.
#    The count would pass the next iteration's first burst as the third
#    (a "stall" every period) and move the gate around; after three such
#    periods the interposer stops counting and says so, and the time rule
#    holds one burst an iteration again (iterations 6-9; which of the two
#    depends on where the count left the gate, Phase rule).  At least 3 of
#    the 4, as the checks above: on a loaded host an iteration that comes
#    late within the slot's tolerance is released at once, not held (CI,
#    8 December: 0 and 3, one late, one missed).  A list that
#    is not OFFSET+DURATION,... is refused at start.
run stall-mismatch ORRERY_GATE_MIN_INTERVAL_US= ORRERY_PHASE_SPAN_US=34000 \
	ORRERY_PHASES_US=0+2000,15000+2000,32000+2000 -- -n 10 -c 25000 -s 30000 -k 2
held=$(lock stall-mismatch 6)
read -r first second <<<"$held"
grep -q 'bursts not counted from now on' "$TMP/stall-mismatch.err" && [ $((first + second)) -ge 3 ] &&
	[ $((first + second)) -le 4 ] && [ "$first" = 0 -o "$second" = 0 ] &&
	ok "a 3-burst list on a 2-burst job: counting stops ('$(grep -o '3 periods.*' "$TMP/stall-mismatch.err")'), iterations 6-9 hold one burst each, the same one ($((first + second)) of 4)" ||
	not_ok "a list that is not the job's should stop the count" "held(first second)=$held" "$(cat "$TMP/stall-mismatch.err")"
[ "$(stat stall-mismatch bursts_counted)" = stopped ] &&
	ok "stats: bursts_counted=stopped" ||
	not_ok "stats should say the count stopped" "$(stat stall-mismatch bursts_counted)"
run phases-bad ORRERY_PHASES_US='0+2000,,5' -- -n 1 -c 1000 -k 1
grep -q "ORRERY_PHASES_US='0+2000,,5' is not a list of OFFSET+DURATION" "$TMP/phases-bad.err" &&
	ok "a malformed ORRERY_PHASES_US is refused with a message" ||
	not_ok "a malformed ORRERY_PHASES_US should be refused" "$(cat "$TMP/phases-bad.err")"

# 7. ORRERY_GATE=off: everything passes at once, runtime inactive
run off ORRERY_GATE=off -- -n 8 -c 5000 -k 4
held=$(awk -v period=$PERIOD -v tol=$TOL -v gated=0 -f "$HERE/releases.awk" "$TMP/off.out" | grep problem)
if [ -z "$held" ] && [ "$(stat off active)" = 0 ] && [ "$(stat off reason)" = ORRERY_GATE=off ] &&
   grep -q 'not gating: ORRERY_GATE=off' "$TMP/off.err"; then
	ok "ORRERY_GATE=off: every collective passes at once, stats say why"
else
	not_ok "ORRERY_GATE=off passes through" "held=$held active=$(stat off active)" "$(cat "$TMP/off.err")"
fi

# 7b. ORRERY_GATE=none:WHY (spank-orrery's mark of a job with no gate,
# e.g. a one-node job): passes through, the reason says why
run nogate ORRERY_GATE=none:single-node -- -n 4 -c 5000 -k 4
held=$(awk -v period=$PERIOD -v tol=$TOL -v gated=0 -f "$HERE/releases.awk" "$TMP/nogate.out" | grep problem)
if [ -z "$held" ] && [ "$(stat nogate active)" = 0 ] &&
   [ "$(stat nogate reason)" = "no gate for this job (single-node)" ]; then
	ok "ORRERY_GATE=none:single-node: passes through, reason '$(stat nogate reason)'"
else
	not_ok "ORRERY_GATE=none:single-node passes through" "held=$held active=$(stat nogate active) reason=$(stat nogate reason)" "$(cat "$TMP/nogate.err")"
fi

# 8. no ORRERY_* at all (not an orrery job): a no-op, silently
$RTPRIO env ORRERY_RUNTIME_STATS="$TMP/none.stats" LD_PRELOAD="$GATE" "$LOOP" -o "$TMP/none.out" \
	-n 8 -c 5000 -k 4 2>"$TMP/none.err"
rc=$?
held=$(awk -v period=$PERIOD -v tol=$TOL -v gated=0 -f "$HERE/releases.awk" "$TMP/none.out" | grep problem)
if [ $rc -eq 0 ] && [ -z "$held" ] && [ "$(stat none active)" = 0 ] && [ ! -s "$TMP/none.err" ]; then
	ok "without ORRERY_* variables the interposer is a silent no-op"
else
	not_ok "without ORRERY_* variables the interposer is a silent no-op" "rc=$rc held=$held" "$(cat "$TMP/none.err")"
fi

# 9. record mode: a parsable timeline, one line per collective
run record ORRERY_RECORD="$TMP/tl" -- -n 6 -c 25000 -k 3 -m 2
tl=$(ls "$TMP"/tl.*.timeline 2>/dev/null | head -n 1)
problems=$(awk '
	NR == 1 { if ($0 != "# orrery-timeline 1") print "bad first line: " $0; next }
	NR == 2 { if ($0 !~ /^# host=[^ ]+ pid=[0-9]+ rank=-?[0-9]+ source=nccl$/) print "bad header: " $0; next }
	/^#/ { next }
	{ n++
	  if (NF != 5 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/) print "bad line " NR ": " $0
	  if ($2 < $1) print "ends before it starts: " $0
	  if ($3 != 1048576 || $5 != "allreduce" || ($4 != "c0" && $4 != "c1")) print "wrong fields: " $0 }
	END { if (n != 18) print "want 18 records, got " n }' "$tl" 2>&1)
[ -n "$tl" ] && [ -z "$problems" ] &&
	ok "record mode: $(basename "$tl") has 18 well-formed lines (bytes, comm c0/c1, allreduce)" ||
	not_ok "record mode writes a parsable timeline" "${tl:-no file}" $problems
check record 6

summary
[ $FAIL -eq 0 ]
