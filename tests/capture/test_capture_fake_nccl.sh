#!/bin/bash
# Capture from a run: the training-loop driver over the stand-in libnccl
# (tests/runtime/fake-nccl, FAKE_NCCL_GBPS=8: a collective of B bytes
# takes 20 us + B*8/8000 us), under the NCCL interposer with a slot grid
# (period 200 ms) and record mode.  Each iteration: 40 ms of compute, the
# first burst of 3 all-reduces of 4 MB (3 x 4 ms), 60 ms of compute, the
# second burst: 124 ms of work in a 200 ms period.  The slack is for a
# loaded CI machine: every compute phase and collective is a sleep, and 8
# late wake-ups an iteration there can add tens of milliseconds; an
# iteration that misses its slot takes two periods, and a run where many
# do has no period to find (with 74 ms of work in 100 ms, that happened).
# ORRERY_PHASE_SPAN_US (the profile's communication span, as the SPANK
# plugin exports it) is 100 ms: the interposer gates a burst that starts
# 100 ms or more after the last phase began, so the second burst (at
# 72 ms) is not gated and the next iteration's first (at 124 ms) is; late
# wake-ups only delay bursts, which can push the second one 28 ms before
# it would be taken for a new phase.  A stall longer than that (seen once
# in a CI run under ASan beside the cluster suites, before the interposer
# counted bursts) got the second burst held for the next slot; the first
# then came 52 ms after it and passed, and the gate stayed locked on the
# second burst (both compute gaps are shorter than the 100 ms minimum
# interval, so both locks are stable; orrery-runtime(7), Phase rule).
# ORRERY_PHASES_US (the profile's two phases, as the SPANK plugin exports
# them) now lets the interposer pass a second burst up to 180 ms after the
# release; a stall longer than 108 ms still moves the gate.  The run then
# still has a 200 ms period and the same two bursts, rotated: the second
# burst is phase 0 and the first follows after the 40 ms compute, not the
# 60 ms one, which the checks accept.
# orrery-capture must find: period 200 ms (the gate's), two phases, the
# second about 60 ms after the first ends (or 40 ms, in the other lock),
# each with the stand-in's rate
# (8 Gbit/s at most; n=2 so the all-reduce factor is 1); and the SPANK
# plugin's validation must accept the file.
set -u -o pipefail
BUILD=$PWD
LOOP=$BUILD/tests/runtime/nccl_train_loop
GATE=$BUILD/contrib/runtime/nccl/.libs/liborrery-nccl.so
RTLIB=$BUILD/contrib/runtime/.libs
CAP=$BUILD/contrib/capture/orrery-capture
ACCEPTS=$BUILD/tests/capture/spank_accepts
for f in "$LOOP" "$GATE" "$CAP"; do
	[ -e "$f" ] || { echo "test_capture_fake_nccl: $f not built"; exit 99; }
done
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
passes=0 fails=0
ok() { passes=$((passes + 1)); echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; }
# within NAME VALUE LO HI
within() {
	if awk -v v="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(v == v + 0 && v >= lo && v <= hi) }'; then
		ok "$1 = $2 (in $3..$4)"
	else
		fail "$1 = $2, expected $3..$4"
	fi
}
key() {
	awk -v g="[$2]" -v k="$3" '/^\[/ { in_g = ($0 == g); next }
		in_g && index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }' "$1"
}
us() {
	echo "$1" | awk '/us$/ { print $0 + 0; next } /ms$/ { print ($0 + 0) * 1000; next }
		/s$/ { print ($0 + 0) * 1000000; next } { print "NaN" }'
}
mbps() {
	echo "$1" | awk '/Gbps$/ { print ($0 + 0) * 1000; next } /Mbps$/ { print $0 + 0; next } { print "NaN" }'
}

. "$(dirname "$0")/../lib/rt.sh"
epoch=$(( $(date +%s%N) / 1000 ))
$RTPRIO env -u ORRERY_RUNTIME_STATS -u ORRERY_GATE -u ORRERY_PHASE_OFFSET_US \
	LD_LIBRARY_PATH=$RTLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} LD_PRELOAD=$GATE \
	ORRERY_PERIOD_US=200000 ORRERY_EPOCH_US=$epoch ORRERY_SHIFT_US=20000 \
	ORRERY_PHASE_SPAN_US=100000 ORRERY_PHASES_US=0+12000,72000+12000 ORRERY_RECORD=$tmp/run RANK=0 FAKE_NCCL_GBPS=8 \
	"$LOOP" -n 30 -c 40000 -k 3 -b 4000000 -s 60000 -o "$tmp/loop.txt" \
	>"$tmp/loop.log" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "driver ran 30 iterations under the interposer" ||
	{ fail "driver exit $rc"; sed 's/^/  | /' "$tmp/loop.log"; }
set -- "$tmp"/run.*.timeline
if [ ! -f "$1" ]; then
	fail "record mode wrote no timeline"
else
	ok "record mode wrote $(basename "$1") ($(grep -vc '^#' "$1") collectives)"
	if "$CAP" -n 2 -o "$tmp/fake.profile" "$1" >"$tmp/out" 2>&1; then
		ok "orrery-capture makes a profile"
		sed 's/^/  | /' "$tmp/out"
		f=$tmp/fake.profile
		within "period (us)" "$(us "$(key "$f" profile period)")" 198000 202000
		within "phases" "$(grep -c '^\[phase\.' "$f")" 2 2
		# Sleeps overrun on a loaded machine: durations only grow, and
		# the demand (bytes over duration) only falls below 8 Gbit/s.
		d0=$(us "$(key "$f" phase.0 duration)")
		within "phase 0 duration (us), 3 x 4 ms" "$d0" 12000 30000
		# Which burst the gate held: the compute between phase 0's end
		# and phase 1 is 60 ms (the first burst) or 40 ms (the second).
		off1=$(us "$(key "$f" phase.1 offset)")
		if awk -v o="$off1" -v d="$d0" 'BEGIN { exit !(o - d >= 58000) }'; then
			within "phase 1 offset (us), 60 ms after phase 0 (gate held the first burst)" \
				"$off1" 68000 $((d0 + 75000))
		else
			within "phase 1 offset (us), 40 ms after phase 0 (gate held the second burst after a stall)" \
				"$off1" $((d0 + 38000)) $((d0 + 57999))
		fi
		for n in 0 1; do
			dm=$(mbps "$(key "$f" phase.$n demand)")
			du=$(us "$(key "$f" phase.$n duration)")
			within "phase $n demand (Mbit/s), at most the stand-in's 8 Gbit/s" "$dm" 1000 8000
			within "phase $n demand x duration / 8 (bytes), the 12 MB sent" \
				"$(awk -v d="$dm" -v t="$du" 'BEGIN { print d * t / 8 }')" 11400000 12600000
		done
		[ "$(key "$f" capture source)" = nccl ] && ok "source=nccl" || fail "source $(key "$f" capture source)"
		if [ -x "$ACCEPTS" ]; then
			spec=$(sed -n 's/^spec  *//p' "$tmp/out")
			got=$("$ACCEPTS" "@$f") && [ "$got" = "$spec" ] &&
				ok "sbatch's --comm-profile validation accepts it: $got" ||
				fail "sbatch validation: '$got' (spec '$spec')"
		fi
	else
		fail "orrery-capture on the recorded run"
		sed 's/^/  | /' "$tmp/out"
	fi
fi
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
