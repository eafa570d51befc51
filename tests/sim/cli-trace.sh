#!/bin/sh
# orrery-sim end to end on a small trace: two 2-node jobs with an explicit
# 50%-duty pattern placed in one rack each cross no uplink, so every policy
# must give exactly iterations x period, and the files must be written.
set -eu
top_builddir=${top_builddir:-.}
sim=$top_builddir/contrib/sim/orrery-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.csv" <<'CSV'
arrival_s,nodes,profile,iterations
0,2,"period=100ms;up=50ms+50ms@50Gbps",1000
0,2,"period=100ms;up=50ms+50ms@50Gbps",1000
CSV
"$sim" --trace "$tmp/t.csv" --seeds 1 --quiet \
	--policies ideal,default,orrery-place,orrery --out "$tmp/out" > "$tmp/table"
for p in ideal default orrery-place orrery; do
	f=$tmp/out/jobs-$p-s1.csv
	[ -s "$f" ] || { echo "no $f"; exit 1; }
	# jct_s is field 6: 1000 x 0.1 s (orrery: plus at most one gate period).
	awk -F, -v p=$p 'NR > 1 { if ($6 < 99.999 || $6 > 100.101) { print p ": job " $1 " jct " $6; bad = 1 } }
		END { exit bad }' "$f"
done
grep -q "ratio to default" "$tmp/table"
# A malformed trace is an error naming the line.
printf '0,2,resnet50\n' > "$tmp/bad.csv"
if "$sim" --trace "$tmp/bad.csv" --quiet 2> "$tmp/err"; then
	echo "bad trace accepted"; exit 1
fi
grep -q "bad.csv:1" "$tmp/err"
# Pinned nodes (the 'at' field): three 2-node jobs, each from one rack
# of 3 to the other, 50% duty at the full uplink rate, 150% of both
# uplinks.  Left to themselves they would sit in one rack each; pinned,
# default shares in step (each job 2x its isolated time) and orrery
# time-divides (one common period of 3 Up phases: 1.5x).
cat > "$tmp/pin.csv" <<'CSV'
arrival_s,nodes,profile,iterations,at
0,2,"period=200ms;up=100ms+100ms@100Mbps",100,0+3
0,2,"period=200ms;up=100ms+100ms@100Mbps",100,1+4
0,2,"period=200ms;up=100ms+100ms@100Mbps",100,2+5
CSV
"$sim" --trace "$tmp/pin.csv" --leaves 2 --nodes-per-leaf 3 --node-link-mbps 200 \
	--oversub-leaf 6 --seeds 1 --quiet --policies default,orrery --out "$tmp/pin" > /dev/null
awk -F, 'NR > 1 && ($8 < 1.99 || $8 > 2.01) { print "default: job " $1 " slowdown " $8; bad = 1 } END { exit bad }' \
	"$tmp/pin/jobs-default-s1.csv"
awk -F, 'NR > 1 && ($8 < 1.45 || $8 > 1.55 || $12 < 0.299 || $12 > 0.301) { print "orrery: job " $1 " slowdown " $8 " period " $12; bad = 1 } END { exit bad }' \
	"$tmp/pin/jobs-orrery-s1.csv"
# The group decisions orrery made: the three jobs time-divided at 300 ms
# (predicted 1.5x against 2.0x sharing); default makes none.
awk -F, 'NR > 1 && $2 == "0 1 2" && $4 == "divide" && $9 == 0.3 && $7 == 1.5 && $8 == 2 { n++ }
	END { exit n == 1 ? 0 : 1 }' "$tmp/pin/groups-orrery-s1.csv" || {
	echo "groups-orrery-s1.csv has no divide decision for jobs 0 1 2 at 300 ms:"
	sed 's/^/  | /' "$tmp/pin/groups-orrery-s1.csv"; exit 1; }
[ ! -e "$tmp/pin/groups-default-s1.csv" ] || { echo "default wrote group decisions"; exit 1; }
# A pinned node outside the fabric is an error naming it.
printf '0,2,resnet50,10,0+99\n' > "$tmp/pinbad.csv"
if "$sim" --trace "$tmp/pinbad.csv" --leaves 2 --nodes-per-leaf 3 --quiet --seeds 1 --policies default 2> "$tmp/err"; then
	echo "pinned node outside the fabric accepted"; exit 1
fi
grep -q "node 99 of its 'at' field is not in the fabric" "$tmp/err"
# --profile-error: the same pinned jobs, each computing 0.8-1.2x what its
# profile says (the same factor under every policy).  Alone a job takes
# 100 x (f x 100 ms + 100 ms): 18-22 s, not all 20 s.  orrery still
# time-divides on the profiles: one Up phase each per 300 ms, so every job
# ends after about 100 x 300 ms whatever its compute (a job computing less
# than its profile waits for its slot).
"$sim" --trace "$tmp/pin.csv" --leaves 2 --nodes-per-leaf 3 --node-link-mbps 200 \
	--oversub-leaf 6 --seeds 1 --quiet --policies ideal,orrery --profile-error 0.2 --out "$tmp/pe" > /dev/null
awk -F, 'NR > 1 { if ($7 < 17.99 || $7 > 22.01 || $6 != $7) { print "ideal: job " $1 " isolated " $7 " jct " $6; bad = 1 }
		if ($7 != 20) off++ }
	END { if (off < 2) { print "ideal: profile-error left the jobs at their profiles"; bad = 1 }; exit bad }' \
	"$tmp/pe/jobs-ideal-s1.csv"
awk -F, 'NR > 1 && ($6 < 29.79 || $6 > 30.21 || $12 < 0.299 || $12 > 0.301) { print "orrery: job " $1 " jct " $6 " period " $12; bad = 1 }
	END { exit bad }' "$tmp/pe/jobs-orrery-s1.csv"
if "$sim" --trace "$tmp/pin.csv" --profile-error 0.6 --quiet 2> "$tmp/err"; then
	echo "--profile-error 0.6 accepted"; exit 1
fi
grep -q -- "--profile-error: a fraction in \[0, 0.5\]" "$tmp/err"
# --learn-periods: two pinned jobs that fill a 100 Mbit/s uplink half
# their 200 ms profile each fit by rotation, but with --profile-error 0.1
# one computes longer than its profile (its iteration: the longer isolated
# time / 100) and arrives late at every slot.  Without learning both end
# later than under default; with it, liborrery models each job at its
# measured iteration, re-solves their group, and both end sooner: each
# gated at a period that holds the longer iteration (at most 1 % over).
cat > "$tmp/pin2.csv" <<'CSV'
arrival_s,nodes,profile,iterations,at
0,2,"period=200ms;up=100ms+100ms@100Mbps",100,0+2
0,2,"period=200ms;up=100ms+100ms@100Mbps",100,1+3
CSV
for l in no 0.005; do
	set -- ; [ "$l" = no ] || set -- --learn-periods "$l"
	"$sim" --trace "$tmp/pin2.csv" --leaves 2 --nodes-per-leaf 2 --node-link-mbps 200 \
		--oversub-leaf 4 --seeds 1 --quiet --policies ideal,default,orrery \
		--profile-error 0.1 "$@" --out "$tmp/learn-$l" > /dev/null
done
awk -F, 'FNR == 1 { f++; next }
	f == 1 { iso = $7 > iso ? $7 : iso; if ($7 != 20) off++ }
	f == 2 { def[$1] = $6 }
	f == 3 { if ($6 <= def[$1]) { print "no learning: job " $1 " jct " $6 " not above default " def[$1]; bad = 1 }
		 if ($21 != 0) { print "no learning: job " $1 " learned " $21; bad = 1 }; was[$1] = $6 }
	f == 4 { if ($6 > 0.95 * was[$1] || $6 >= def[$1]) { print "learning: job " $1 " jct " $6 " against " was[$1] " unlearned, " def[$1] " default"; bad = 1 }
		 if ($21 < 1 || $12 < iso / 100 || $12 > 1.01 * iso / 100) { print "learning: job " $1 " learned " $21 " period " $12 " for a " iso / 100 " s iteration"; bad = 1 } }
	END { if (off < 2) { print "profile-error left the jobs at their profiles"; bad = 1 }; exit bad }' \
	"$tmp/learn-no/jobs-ideal-s1.csv" "$tmp/learn-no/jobs-default-s1.csv" \
	"$tmp/learn-no/jobs-orrery-s1.csv" "$tmp/learn-0.005/jobs-orrery-s1.csv"
if "$sim" --trace "$tmp/pin2.csv" --learn-periods 0.7 --quiet 2> "$tmp/err"; then
	echo "--learn-periods 0.7 accepted"; exit 1
fi
grep -q -- "--learn-periods: a fraction in \[0, 0.5\]" "$tmp/err"

# --iteration-jitter and --gate-margin: two pinned jobs at 40 % duty each
# on the uplinks they share, rotated apart (shifts 0 and 100 ms of a 250
# ms period).  With each compute gap 150 ms +-10 %, default's ungated jobs
# mostly miss each other, and the gated jobs' lateness adds up from one
# iteration to the next until they miss slots (each a whole period); a
# 3 % margin takes most of those misses away.  Without jitter every job
# of ideal runs its isolated 25 s and the gates miss nothing.
cat > "$tmp/pin40.csv" <<'CSV'
arrival_s,nodes,profile,iterations,at
0,2,"period=250ms;up=150ms+100ms@100Mbps",100,0+2
0,2,"period=250ms;up=150ms+100ms@100Mbps",100,1+3
CSV
# pin40 OUT ARGS...: the pair on its fabric, results in $tmp/OUT.
pin40() {
	local out=$1
	shift
	"$sim" --trace "$tmp/pin40.csv" --leaves 2 --nodes-per-leaf 2 --node-link-mbps 200 \
		--oversub-leaf 4 --seeds 1 --quiet --out "$tmp/$out" "$@" > /dev/null
}
# missed_then_margin WHAT BARE MARGIN: orrery's jobs under BARE miss at
# least 5 slots each; under MARGIN each ends sooner, with at most a third
# of the misses.
missed_then_margin() {
	awk -F, -v what="$1" 'FNR == 1 { f++; next }
	f == 1 { if ($14 < 5) { print what ": job " $1 " missed only " $14; bad = 1 }; miss += $14; jct[$1] = $6 }
	f == 2 { miss_m += $14; if ($6 >= jct[$1]) { print what " with margin: job " $1 " jct " $6 " not below " jct[$1]; bad = 1 } }
	END { if (miss_m * 3 > miss) { print what " with margin: " miss_m " misses against " miss; bad = 1 }; exit bad }' \
		"$tmp/$2/jobs-orrery-s1.csv" "$tmp/$3/jobs-orrery-s1.csv"
}
for c in "0 0" "0.1 0" "0.1 0.03"; do
	set -- $c
	pin40 "jit-$1-$2" --policies ideal,default,orrery --iteration-jitter "$1" --gate-margin "$2"
done
awk -F, 'FNR > 1 && $14 != 0 { print "no jitter: job " $1 " missed " $14; bad = 1 } END { exit bad }' \
	"$tmp/jit-0-0/jobs-orrery-s1.csv"
missed_then_margin "compute jitter" jit-0.1-0 jit-0.1-0.03
# The gate's measure of how much the work varies (iter_range_s, what
# orrery-sacct's IterRange shows): none without jitter; with the margin,
# the compute gaps' own spread (8 draws of 150 ms +-15 ms: 23 ms
# expected); without it wider, by the late slots' overlap with the
# neighbour.
awk -F, 'FNR == 1 { f++; next }
	f == 1 && ($22 != 0.25 || $23 != 0) { print "no jitter: job " $1 " work " $22 " range " $23; bad = 1 }
	f == 2 { if ($23 < 0.015 || $23 > 0.03) { print "jitter with margin: job " $1 " range " $23; bad = 1 }; r[$1] = $23 }
	f == 3 && $23 <= r[$1] { print "jitter without margin: job " $1 " range " $23 " not above " r[$1]; bad = 1 }
	END { exit bad }' "$tmp/jit-0-0/jobs-orrery-s1.csv" "$tmp/jit-0.1-0.03/jobs-orrery-s1.csv" \
	"$tmp/jit-0.1-0/jobs-orrery-s1.csv"
# The jitter is the job's own, the same under every policy and run.
cmp -s "$tmp/jit-0.1-0/jobs-default-s1.csv" "$tmp/jit-0.1-0.03/jobs-default-s1.csv"
awk -F, 'FNR > 1 && ($6 == $7) { print "default: job " $1 " unaffected by jitter"; bad = 1 } END { exit bad }' \
	"$tmp/jit-0.1-0/jobs-default-s1.csv"
# --transfer-jitter: the same jobs with every Up phase's bits +-10 %
# instead (a transfer's end, and the iteration's, moves by up to 10 ms):
# a late transfer's lateness carries into the next iteration as a late
# compute gap's does, the gates miss slots, and a margin takes most of
# those misses away; ideal's jobs send on no constrained link and run
# their 25 s.  The draws are apart from the compute gaps': both jitters
# together differ from either.
for m in 0 0.03; do
	pin40 "tjit-$m" --policies ideal,default,orrery --transfer-jitter 0.1 --gate-margin "$m"
done
missed_then_margin "transfer jitter" tjit-0 tjit-0.03
awk -F, 'FNR > 1 && $6 != 25 { print "ideal under transfer jitter: job " $1 " jct " $6; bad = 1 } END { exit bad }' \
	"$tmp/tjit-0/jobs-ideal-s1.csv"
pin40 both --policies default --iteration-jitter 0.1 --transfer-jitter 0.1
for one in jit-0.1-0 tjit-0; do
	if cmp -s "$tmp/both/jobs-default-s1.csv" "$tmp/$one/jobs-default-s1.csv"; then
		echo "both jitters: default's jobs as under $one alone"; exit 1
	fi
done
for bad in "--iteration-jitter 0.6" "--transfer-jitter 0.6" "--gate-margin 0.3"; do
	if "$sim" --trace "$tmp/pin40.csv" $bad --quiet 2> "$tmp/err"; then
		echo "$bad accepted"; exit 1
	fi
	grep -q -- "${bad%% *}: a fraction in" "$tmp/err"
done
