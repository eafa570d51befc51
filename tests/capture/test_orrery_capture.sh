#!/bin/sh
# orrery-capture on recorded timelines (tests/data/timelines, made by its
# generate.py with known patterns): period, phases and demand against the
# hand-computed values written in generate.py; bad input names the file and
# line; the produced spec and file pass the SPANK plugin's --comm-profile
# validation (what sbatch runs).
set -u
srcdir=${srcdir:-.}
CAP=${ORRERY_CAPTURE:-./contrib/capture/orrery-capture}
ACCEPTS=./tests/capture/spank_accepts
QUERY=./contrib/query/orrery-query
TL=$srcdir/tests/data/timelines
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
ok() {
	echo "ok   $*"
	passes=$((passes + 1))
}

# run NAME EXPECTED_RC CMD...: stdout in $tmp/out, stderr in $tmp/err
run() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, expected $want"
		sed 's/^/  | /' "$tmp/out" "$tmp/err"
		return 1
	fi
	ok "$name"
}

# key FILE GROUP KEY: a value from a profile key-file
key() {
	awk -v g="[$2]" -v k="$3" '
		/^\[/ { in_g = ($0 == g); next }
		in_g && index($0, k "=") == 1 { print substr($0, length(k) + 2); exit }
	' "$1"
}
# us VALUE: a grammar time (250ms, 1500us, 2s) in microseconds
us() {
	echo "$1" | awk '/us$/ { print $0 + 0; next } /ms$/ { print ($0 + 0) * 1000; next }
		/s$/ { print ($0 + 0) * 1000000; next } { print "NaN" }'
}
# mbps VALUE: a grammar rate in Mbit/s
mbps() {
	echo "$1" | awk '/Tbps$/ { print ($0 + 0) * 1000000; next } /Gbps$/ { print ($0 + 0) * 1000; next }
		/Mbps$/ { print $0 + 0; next } { print "NaN" }'
}
# near WHAT GOT WANT TOL: |GOT - WANT| <= TOL
near() {
	if awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g == g + 0 && d <= t) }'; then
		ok "$1 = $2 (expected $3 +- $4)"
	else
		fail "$1 = $2, expected $3 +- $4"
	fi
}
# same WHAT GOT WANT
same() {
	if [ "$2" = "$3" ]; then ok "$1 = $2"; else fail "$1 = '$2', expected '$3'"; fi
}
# phase FILE N OFFSET_US DURATION_US DEMAND_MBPS COLLECTIVE
phase() {
	f=$1 n=$2
	near "$(basename "$f") phase.$n offset" "$(us "$(key "$f" "phase.$n" offset)")" "$3" 200
	near "$(basename "$f") phase.$n duration" "$(us "$(key "$f" "phase.$n" duration)")" "$4" 200
	near "$(basename "$f") phase.$n demand" "$(mbps "$(key "$f" "phase.$n" demand)")" "$5" \
		"$(awk -v d="$5" 'BEGIN { print d * 0.02 }')"
	same "$(basename "$f") phase.$n collective" "$(key "$f" "phase.$n" collective)" "$6"
}
# accepted FILE: the SPANK plugin takes @FILE and the printed spec, and both
# give the canonical spec orrery-capture printed.
accepted() {
	spec=$(sed -n 's/^spec  *//p' "$tmp/out")
	[ -n "$spec" ] || { fail "no spec line"; return; }
	if [ -x "$ACCEPTS" ]; then
		a=$("$ACCEPTS" "@$1") || { fail "sbatch validation refuses @$1: $a"; return; }
		b=$("$ACCEPTS" "$spec") || { fail "sbatch validation refuses '$spec': $b"; return; }
		same "sbatch canonical of @$(basename "$1")" "$a" "$spec"
		same "sbatch canonical of the printed spec" "$b" "$spec"
	else
		echo "skip sbatch validation (SPANK plugin not built: no Slurm headers)"
	fi
	if [ -x "$QUERY" ]; then
		c=$("$QUERY" profile "$spec" | sed -n 's/^canonical  *//p')
		same "orrery-query profile canonical" "$c" "$spec"
	fi
}

# --- data-parallel job, 2 ranks, 2 phases per 150 ms iteration -------------
if run "dp-2bucket: 2 ranks" 0 "$CAP" -o "$tmp/dp.profile" \
	"$TL/dp-2bucket.rank0.timeline" "$TL/dp-2bucket.rank1.timeline"; then
	f=$tmp/dp.profile
	near "dp period" "$(us "$(key "$f" profile period)")" 150000 500
	same "dp phases" "$(grep -c '^\[phase\.' "$f")" 2
	phase "$f" 0 0 12000 16667 ring
	phase "$f" 1 30000 18000 17778 ring
	# 42 iterations per rank: the warm-up one is irregular (250 ms), the
	# last is open, --warmup 1 drops one: 39 per rank.
	same "dp iterations" "$(key "$f" capture iterations)" 78
	same "dp dropped_irregular" "$(key "$f" capture dropped_irregular)" 2
	same "dp confidence" "$(key "$f" capture confidence)" high
	same "dp ring_n" "$(key "$f" capture ring_n)" 2
	accepted "$f"
fi

# --- one rank of 8, noisy period, a checkpoint pause, odd iterations --------
if run "dp-straggler: --ranks 8" 0 "$CAP" -n 8 -o "$tmp/st.profile" "$TL/dp-straggler.timeline"; then
	f=$tmp/st.profile
	near "straggler period" "$(us "$(key "$f" profile period)")" 100000 1500
	same "straggler phases" "$(grep -c '^\[phase\.' "$f")" 1
	phase "$f" 0 0 20000 35000 ring
	same "straggler iterations" "$(key "$f" capture iterations)" 55
	same "straggler dropped_irregular (the pause)" "$(key "$f" capture dropped_irregular)" 1
	same "straggler dropped_shape (metrics all-reduce)" "$(key "$f" capture dropped_shape)" 2
	same "straggler confidence (period CV ~3%)" "$(key "$f" capture confidence)" medium
	accepted "$f"
fi
# Without --ranks the ring size is unknown: the large-n factor 2.
if run "dp-straggler: no --ranks" 0 "$CAP" -o "$tmp/st2.profile" "$TL/dp-straggler.timeline"; then
	near "straggler demand, n unknown" "$(mbps "$(key "$tmp/st2.profile" phase.0 demand)")" 40000 800
	grep -q "ring size unknown" "$tmp/out" && ok "summary says the ring size is unknown" ||
		fail "summary does not say the ring size is unknown"
fi

# All-gathers record one rank's chunk (orrery-timeline(5)): n-1 chunks
# leave the rank, 50 MB x 7 x 8 / 20 ms = 140 Gbit/s with --ranks 8; without
# --ranks their traffic is unknown and the tool says so.
sed 's/ncclAllReduce$/ncclAllGather/' "$TL/dp-straggler.timeline" > "$tmp/ag.timeline"
if run "all-gather timeline: --ranks 8" 0 "$CAP" -n 8 -o "$tmp/ag.profile" "$tmp/ag.timeline"; then
	near "all-gather demand" "$(mbps "$(key "$tmp/ag.profile" phase.0 demand)")" 140000 2800
fi
run "all-gather timeline without --ranks" 1 "$CAP" "$tmp/ag.timeline" &&
	grep -q "allgather records the chunk of one rank.*give --ranks N" "$tmp/err" &&
	ok "asks for --ranks" || fail "$(cat "$tmp/err")"

# --- recorded, not generated: a loaded machine's late iterations ----------
# ddp-loaded.rank{0,1}: test_torch_ddp's 2-rank gloo job (two buckets,
# gated on a 400 ms grid, 24 iterations) recorded on a 2-core machine
# running two more copies of it and two busy loops.  A few iterations
# start 70-90 ms late and the next one early, and a few all-reduces take
# 110-135 ms.  The lag of 3 iterations (1.2 s) has every difference inside
# its tolerance, 8% of 1.2 s; the period is still 400 ms, with the late
# ones dropped as irregular.
for r in 0 1; do
	run "ddp-loaded: rank $r alone" 0 "$CAP" -s --gap 5ms --jitter 0.08 \
		"$TL/ddp-loaded.rank$r.timeline" &&
		grep -qE '^period=400ms;' "$tmp/out" && ok "ddp-loaded rank $r: period=400ms" ||
		fail "ddp-loaded rank $r: $(cat "$tmp/out" "$tmp/err")"
done
if run "ddp-loaded: 2 ranks" 0 "$CAP" --gap 5ms --jitter 0.08 -o "$tmp/dl.profile" \
	"$TL/ddp-loaded.rank0.timeline" "$TL/ddp-loaded.rank1.timeline"; then
	near "ddp-loaded period" "$(us "$(key "$tmp/dl.profile" profile period)")" 400000 1000
	accepted "$tmp/dl.profile"
fi

# --- a bucket that now and then splits off, and late iterations ------------
# dp-split (generate.py): 400 ms, in about one iteration in five the second
# all-reduce of phase 1 is a burst of its own, in one in ten the iteration
# runs 60-90 ms long.  Counting bursts found a 2 s lag here and no
# iteration boundary; the period found in time is 400 ms, with the split
# iterations left out for their shape.
if run "dp-split: --ranks 2" 0 "$CAP" --ranks 2 -o "$tmp/ds.profile" "$TL/dp-split.timeline"; then
	f=$tmp/ds.profile
	near "dp-split period" "$(us "$(key "$f" profile period)")" 400000 1000
	same "dp-split phases" "$(grep -c '^\[phase\.' "$f")" 2
	phase "$f" 0 0 12000 16667 ring
	phase "$f" 1 30000 18000 17778 ring
	accepted "$f"
fi

# --- pipeline stage: p2p, all-to-all and all-reduce phases ------------------
if run "pipeline: --ranks 4" 0 "$CAP" --ranks=4 -o "$tmp/pp.profile" "$TL/pipeline.timeline"; then
	f=$tmp/pp.profile
	near "pipeline period" "$(us "$(key "$f" profile period)")" 450000 500
	same "pipeline phases" "$(grep -c '^\[phase\.' "$f")" 5
	phase "$f" 0 0 4000 16000 ring
	phase "$f" 1 60000 4000 16000 ring
	phase "$f" 2 120000 4000 16000 ring
	phase "$f" 3 200000 12000 24000 a2a
	phase "$f" 4 280000 50000 24000 ring
	same "pipeline iterations" "$(key "$f" capture iterations)" 28
	accepted "$f"
fi
# Completion order: recorders write a collective when it ends, so lines
# may be slightly out of start order.  Swapping neighbours changes nothing.
if run "pipeline, sorted: --spec-only" 0 "$CAP" -s -n 4 "$TL/pipeline.timeline"; then
	cp "$tmp/out" "$tmp/sorted.spec"
	awk 'NR <= 2 { print; next } NR % 2 == 1 { held = $0; next } { print; print held; held = "" }
		END { if (held != "") print held }' "$TL/pipeline.timeline" > "$tmp/swapped.timeline"
	if cmp -s "$tmp/swapped.timeline" "$TL/pipeline.timeline"; then
		fail "the swapped copy is identical: the test would prove nothing"
	elif run "pipeline, neighbours swapped" 0 "$CAP" -s -n 4 "$tmp/swapped.timeline"; then
		same "spec of the swapped copy" "$(cat "$tmp/out")" "$(cat "$tmp/sorted.spec")"
	fi
fi
run "--spec-only prints the spec alone" 0 "$CAP" -s -n 4 "$TL/pipeline.timeline" &&
	same "--spec-only lines" "$(wc -l < "$tmp/out" | tr -d ' ')" 1
# A coarser --round changes the times the spec carries.
run "--round 1ms" 0 "$CAP" -s --round 1ms "$TL/dp-2bucket.rank0.timeline" &&
	grep -qE '^period=150ms;' "$tmp/out" && ok "--round 1ms: period=150ms" ||
	fail "--round 1ms: $(cat "$tmp/out")"

# --- no period, bad files, bad options --------------------------------------
run "random timeline: no period" 1 "$CAP" "$TL/random.timeline" &&
	grep -q "random.timeline: no periodic pattern" "$tmp/err" && ok "message says no periodic pattern" ||
	fail "message: $(cat "$tmp/err")"
# bad NAME EXPECTED_MESSAGE_FRAGMENT
bad() {
	if run "bad/$1" 1 "$CAP" "$TL/bad/$1"; then
		if grep -qF -- "$2" "$tmp/err"; then ok "bad/$1 says '$2'"
		else fail "bad/$1: '$(cat "$tmp/err")' lacks '$2'"; fi
	fi
}
bad empty.timeline "empty.timeline: empty file"
bad wrong-header.timeline "wrong-header.timeline:1: not an orrery timeline"
bad version2.timeline "version2.timeline:1: timeline format version 2 not supported"
bad non-monotonic.timeline "non-monotonic.timeline:5: start_us 10000900 is 90.002 s before line 4's 100003000"
bad end-before-start.timeline "end-before-start.timeline:3: end_us 900 is before start_us 1000"
bad garbage.timeline "garbage.timeline:4: expected 5 fields"
bad binary.timeline "binary.timeline:3: control or non-ASCII byte 0x00"
bad negative.timeline "negative.timeline:3: start_us '-5' is not a whole number"
bad no-events.timeline "no-events.timeline: no collectives recorded"
run "missing file" 1 "$CAP" "$tmp/nope.timeline"
run "a directory" 1 "$CAP" "$TL"
# Too short: 3 iterations are not a profile.
head -n 12 "$TL/dp-2bucket.rank0.timeline" > "$tmp/short.timeline"
run "3 iterations are too few" 1 "$CAP" "$tmp/short.timeline"
# One line too long.
{ head -n 2 "$TL/pipeline.timeline"; printf '1 2 3 c %02000d\n' 0; } > "$tmp/long.timeline"
run "a 2 kB line" 1 "$CAP" "$tmp/long.timeline" &&
	grep -q "long.timeline:3: line longer than" "$tmp/err" && ok "long line named" || fail "$(cat "$tmp/err")"
# The same file twice is one rank given twice.
run "same rank twice" 1 "$CAP" "$TL/pipeline.timeline" "$TL/pipeline.timeline"
# Ranks of different jobs (periods 150 ms and 450 ms) do not mix.
run "ranks of two jobs" 1 "$CAP" "$TL/dp-2bucket.rank0.timeline" "$TL/pipeline.timeline" &&
	grep -q "differs from the other ranks" "$tmp/err" && ok "period mismatch named" || fail "$(cat "$tmp/err")"
run "no arguments" 2 "$CAP"
run "--ranks 1" 2 "$CAP" -n 1 "$TL/pipeline.timeline"
run "--gap without unit" 2 "$CAP" --gap 5 "$TL/pipeline.timeline"
run "--jitter 2" 2 "$CAP" --jitter 2 "$TL/pipeline.timeline"
run "unwritable output" 1 "$CAP" -o "$tmp/no/such/dir/x.profile" "$TL/pipeline.timeline"
run "--help" 0 "$CAP" --help

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
