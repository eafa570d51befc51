#!/bin/sh
# orrery-query end to end on the shipped example: key output lines and the
# exit codes of bad input (0 ok, 1 bad input, 2 usage, 3 no candidate).
set -u
srcdir=${srcdir:-.}
Q=${ORRERY_QUERY:-./contrib/query/orrery-query}
EX=$srcdir/examples
BAD=$srcdir/tests/data/topology/bad
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fails=0

# run NAME EXPECTED_RC CMD...: output in $tmp/out, stderr in $tmp/err
run() {
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit $rc, expected $want"
		sed 's/^/  | /' "$tmp/out" "$tmp/err"
		fails=$((fails + 1))
		return 1
	fi
	echo "ok   $name"
}
# has FILE LINE: the exact line is present
has() {
	if ! grep -qxF -- "$2" "$tmp/$1"; then
		echo "FAIL   missing in $1: '$2'"
		sed 's/^/  | /' "$tmp/$1"
		fails=$((fails + 1))
	fi
}
# matches FILE REGEX
matches() {
	if ! grep -qE -- "$2" "$tmp/$1"; then
		echo "FAIL   no line in $1 matches '$2'"
		sed 's/^/  | /' "$tmp/$1"
		fails=$((fails + 1))
	fi
}

# --- topology -----------------------------------------------------------
run "topology summary of the example" 0 $Q topology --topology "$EX/two-tier-32.conf"
has out "nodes      32 (node link 100 Gb/s)"
has out "switches   5 in 2 levels, root spine"
matches out '^0 +4 +8 +400 Gb/s +2\.00:1$'
matches out '^leaf03 +0 +spine +nodes node\[017-024\] +400 Gb/s +2\.00:1$'

run "uplink override by level" 0 $Q topology --topology "$EX/two-tier-32.conf" \
	--uplink 0=200Gbps --node-link 200Gbps
matches out '^0 +4 +8 +200 Gb/s +8\.00:1$'

run "uplink override by switch" 0 $Q topology --topology "$EX/two-tier-32.conf" \
	--uplink leaf02=800Gbps
matches out '^0 +4 +8 +400 Gb/s to 800 Gb/s +1\.00:1 to 2\.00:1$'

run "generate and write" 0 $Q topology \
	--generate tiers=3,leaves=8,leaves-per-pod=4,nodes-per-leaf=16,link=200Gbps,oversub=2,pod-oversub=2 \
	--write "$tmp/gen.conf"
has out "nodes      128 (node link 200 Gb/s)"
matches out '^1 +2 +64 +3200 Gb/s +4\.00:1$'
run "read back what was written" 0 $Q topology --topology "$tmp/gen.conf" --node-link 200Gbps
matches out '^0 +8 +16 +1600 Gb/s +2\.00:1$'
matches out '^1 +2 +64 +3200 Gb/s +4\.00:1$'
has out "switches   11 in 3 levels, root core"

run "generated topology.conf on stdout" 0 $Q topology \
	--generate tiers=2,leaves=4,nodes-per-leaf=8,link=100Gbps,oversub=2 --write -
has out "SwitchName=leaf01 Nodes=node[001-008] LinkSpeed=400"
has out "SwitchName=spine Switches=leaf[01-04]"

run "bad topology file" 1 $Q topology --topology "$BAD/cycle.conf"
has err "orrery-query: topology: $BAD/cycle.conf:2: switch 'a' is on a cycle of Switches= (a -> b -> a): the tree has no root"
run "missing topology file" 1 $Q topology --topology "$tmp/none.conf"
has err "orrery-query: topology: $tmp/none.conf: cannot open: No such file or directory"
run "bad fabric" 1 $Q topology --generate tiers=4,leaves=2,nodes-per-leaf=2
has err "orrery-query: topology: --generate: tiers=4 not supported (accepted: 2 or 3)"
run "bad uplink level" 1 $Q topology --topology "$EX/two-tier-32.conf" --uplink 1=100Gbps
has err "orrery-query: topology: --uplink 1=100Gbps: no uplinks at level 1 (levels with uplinks: 0 to 0)"
run "bad bandwidth" 2 $Q topology --topology "$EX/two-tier-32.conf" --uplink 0=fast
run "no topology given" 2 $Q topology
run "unknown command" 2 $Q frobnicate

# --- profile ------------------------------------------------------------
run "explicit profile" 0 $Q profile 'period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a'
has out "period       250 ms"
has out "duty cycle   40.0 %"
matches out '^  Up +150 ms +20 ms +170 ms +10 Gb/s +all-to-all$'
matches out '^  Down +170 ms +80 ms +250 ms +- +-$'
run "bad profile" 1 $Q profile 'period=250ms;up=0ms+300ms@45Gbps'
matches err '^orrery-query: profile: .+'
run "pipeline and rail profile" 0 $Q profile 'period=100ms;up=0ms+30ms@25Gbps/pp4;up=50ms+20ms@400Gbps/rail8'
has out "canonical    period=100ms;up=0s+30ms@25Gbps/pp4;up=50ms+20ms@400Gbps/rail8"
matches out '^  Up +0 ms +30 ms +30 ms +25 Gb/s +pipeline, 4 stages$'
matches out '^  Up +50 ms +20 ms +70 ms +400 Gb/s +rail, 8 rails$'
run "pipeline without stages" 1 $Q profile 'period=100ms;up=0ms+30ms@25Gbps/pp'
has err "orrery-query: profile: 'up=0ms+30ms@25Gbps/pp': collective 'pp' needs its number of pipeline stages, e.g. pp4"
run "MoE model" 0 $Q profile mixtral-8x7b --nodes 4
has out "resolved     period=14766301us;up=0s+5497558us@100Gbps/a2a;up=10773176us+3993125us@100Gbps"

# --- place and solve ----------------------------------------------------
JOBS=$EX/running-jobs.txt
PROF='period=200ms;up=0ms+60ms@100Gbps/a2a'
run "place on the example" 0 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$JOBS" --nodes 12 --profile "$PROF"
has out "running      2 jobs from $JOBS; 16 nodes free"
# leaf04 plus the light job's leaf (leaf03), not the heavy job's
matches out '^  1 +node\[021-032\] +1 +2 +1\.000 '
matches out '^  leaf03 +0 +400 Gb/s +1\.000 .* 102$'
run "place with SVGs" 0 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$JOBS" --nodes 12 --profile "$PROF" --svg-dir "$tmp"
[ -s "$tmp/link-leaf03.svg" ] || { echo "FAIL   no link-leaf03.svg"; fails=$((fails + 1)); }
run "place fits inside one leaf" 0 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$JOBS" --nodes 8 --profile "$PROF"
matches out '^  1 +node\[025-032\] +0 +1 +1\.000 '
has out "The best candidate stays below one switch: it crosses no uplink."
# ECMP, by hand (orrery-score(7)): a one-flow job Up half of 100 ms at
# 100 Gb/s on both leaf uplinks; a newcomer like it.  One 200 Gb/s pipe
# holds both at any shift; two 100 Gb/s links collide half of the time:
# 0.875 in step, 1 shifted by 50 ms.
printf '101 node[001,003] period=100ms;up=0ms+50ms@100Gbps shift=0ms\n' >"$tmp/ecmp.jobs"
run "place on one pipe" 0 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--uplink 0=200Gbps --flows 1 --jobs "$tmp/ecmp.jobs" --nodes 2 \
	--profile 'period=100ms;up=0ms+50ms@100Gbps'
matches out '^  leaf01 +0 +200 Gb/s +1\.000 +1\.000 '
run "place on two ECMP links" 0 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--uplink 0=2x100Gbps --flows 1 --jobs "$tmp/ecmp.jobs" --nodes 2 \
	--profile 'period=100ms;up=0ms+50ms@100Gbps'
matches out '^  1 +node\[002,004\] +1 +2 +1\.000 +1\.000 +\+[0-9.]+ +50 ms '
matches out '^  leaf01 +0 +2x100 Gb/s +1\.000 +0\.875 '
# The only candidate crosses contended uplinks: its predicted slowdown is
# shown, with --rank-spread 1 too.
run "place with --rank-spread 1" 0 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--uplink 0=2x100Gbps --flows 1 --jobs "$tmp/ecmp.jobs" --nodes 2 \
	--profile 'period=100ms;up=0ms+50ms@100Gbps' --rank-spread 1
matches out '^  1 +node\[002,004\] +1 +2 +1\.000 +1\.000 +\+[0-9.]+ +50 ms '
matches out '^  slowdown: what placing the job there is predicted to add'
run "bad --rank-spread" 2 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--nodes 2 --profile resnet50 --rank-spread 5
matches err "expected a whole number 0..4"
run "bad ECMP uplink" 2 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--uplink 0=0x100Gbps --nodes 2 --profile resnet50
matches err "KxCAP for K parallel links"
run "bad flows" 2 $Q place --generate tiers=2,leaves=2,nodes-per-leaf=2,link=100Gbps \
	--flows 0 --nodes 2 --profile resnet50
matches err "flows per job per uplink, 1 to 4096"
run "place: no room" 3 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$JOBS" --nodes 17 --profile "$PROF"
run "place: explicit free list" 0 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$JOBS" --nodes 4 --profile "$PROF" --free 'node[005-008]'
matches out '^  1 +node\[005-008\] '
printf '101 node[001-004] %s\n201 node999 %s\n' "$PROF" "$PROF" >"$tmp/jobs"
run "jobs file: unknown node" 1 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$tmp/jobs" --nodes 4 --profile "$PROF"
has err "orrery-query: place: $tmp/jobs:2: node 'node999' is not in the topology"
printf '101 node[001-004 %s\n' "$PROF" >"$tmp/jobs"
run "jobs file: bad hostlist" 1 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$tmp/jobs" --nodes 4 --profile "$PROF"
has err "orrery-query: place: $tmp/jobs:1: 'node[001-004' is not a valid hostlist"
printf '101 node[001-004] %s\n101 node[005-008] %s\n' "$PROF" "$PROF" >"$tmp/jobs"
run "jobs file: duplicate id" 1 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$tmp/jobs" --nodes 4 --profile "$PROF"
matches err "^orrery-query: place: $tmp/jobs:2: .*101"
printf '101 node[001-004] %s shift=soon\n' "$PROF" >"$tmp/jobs"
run "jobs file: bad shift" 1 $Q place --topology "$EX/two-tier-32.conf" \
	--jobs "$tmp/jobs" --nodes 4 --profile "$PROF"
has err "orrery-query: place: $tmp/jobs:1: 'shift=soon': expected shift=TIME, e.g. shift=20ms"
run "place: missing --profile" 2 $Q place --topology "$EX/two-tier-32.conf" --nodes 4

run "solve the example" 0 $Q solve --topology "$EX/two-tier-32.conf" --jobs "$JOBS"
has out "jobs         2"
matches out '^  leaf02 +400 Gb/s +2 +'
matches out '^  101 +200 ms +0 ms +'
# three jobs pairwise on three uplinks: one loop in the affinity graph
cat >"$tmp/loop" <<LOOP
1 node[001-002,009-010] period=200ms;up=0ms+100ms@100Gbps/a2a
2 node[011-012,017-018] period=200ms;up=0ms+100ms@100Gbps/a2a
3 node[019-020,003-004] period=300ms;up=0ms+100ms@100Gbps/a2a
LOOP
run "solve with a loop" 0 $Q solve --topology "$EX/two-tier-32.conf" --jobs "$tmp/loop" \
	--uplink 0=200Gbps
matches out '^loops +1 '
matches out 'loop-closing$'
# one link group of three jobs on three uplinks; every mode predicted
matches out '^  group 1: 3 jobs, 3 links \('
matches out '^  because    score [0-9.]+; predicted slowdown rotate [0-9.]+, divide [0-9.]+, share [0-9.]+$'
run "solve: missing jobs" 2 $Q solve --topology "$EX/two-tier-32.conf"

# --- score --------------------------------------------------------------
# the worked example of the design notes: three 50 %-duty jobs on one 50 Gb/s link
J='period=100ms;up=50ms+50ms@50Gbps'
run "score three jobs" 0 $Q score --capacity 50Gbps "$J" "$J" "$J"
matches out '^score +0\.000 unshifted -> 0\.500 best$'
# ... time-divided: a common 150 ms period, slots 0/50/100 ms, 150 ms
# predicted against 200 ms for sharing
has out "  choice     divide, common period 150 ms"
matches out '^    2 +100 ms +[0-9.]+ ms +150 ms +50 ms +200 ms +50 ms \+ 150 ms$'
matches out '^    3 +100 ms +[0-9.]+ ms +150 ms +100 ms +200 ms +100 ms \+ 150 ms$'
run "score two jobs that fit" 0 $Q score --capacity 50Gbps "$J" "$J" --svg "$tmp/two.svg"
matches out '^score +[-0-9.]+ unshifted -> 1\.000 best$'
has out "  choice     rotate"
[ -s "$tmp/two.svg" ] || { echo "FAIL   no two.svg"; fails=$((fails + 1)); }
run "score: no capacity" 2 $Q score "$J"
# two jobs that need 1.71 of the link on average: rotation is predicted
# best but not chosen (orrery-score(7), TIME DIVISION); time division
H='period=394ms;up=40ms+354ms@95Mbps'
run "score a pair over capacity" 0 $Q score --capacity 100Mbps "$H" "$H"
has out "  choice     divide, common period 708 ms"
matches out '^  because    score 0\.283; predicted slowdown rotate 1\.765, divide 1\.797, share 1\.809; load 1\.71 of the busiest link: no rotation$'

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
