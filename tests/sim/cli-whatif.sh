#!/bin/sh
# orrery-sim's what-if on recorded site files (tests/data/whatif): a
# topology.conf, an orrery.conf with 2 x 100 Gb/s ECMP leaf uplinks, and a
# sacct --parsable2 history of 64 jobs with job steps, ORR1: records
# (placed and not), jobs without one, and four jobs that cannot be
# replayed.  Then bad files: each is refused naming file, line and field.
set -u
top_builddir=${top_builddir:-.}
srcdir=${srcdir:-.}
sim=$top_builddir/contrib/sim/orrery-sim
D=$srcdir/tests/data/whatif
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
want() {  # want FILE FIXED-STRING
	grep -qF -- "$2" "$tmp/$1" || {
		echo "FAIL: no '$2' in $1:"; sed 's/^/  | /' "$tmp/$1"; fails=$((fails + 1)); }
}

"$sim" --topology "$D/topology.conf" --orrery-conf "$D/orrery.conf" \
	--sacct "$D/sacct-good.txt" --seeds 1 --quiet --policies ideal,default,orrery \
	--out "$tmp/out" > "$tmp/table" 2> "$tmp/err" || {
	echo "FAIL: what-if run"; cat "$tmp/err"; exit 1; }
want table "16 nodes, 5 switches (4 leaves), node link 100 Gb/s, 4 uplinks with parallel links, 0 without capacity (unconstrained), 2 flows per job per uplink"
want table "60 jobs replayed over 0.2 days (45 with orrery's ORR1: record, 15 with the default profile, 0 without a profile: run without traffic), 4 skipped, 60 job step lines not jobs"
want table "sacct-good.txt:122: job 4160: field Start=Unknown: never started"
want table "sacct-good.txt:123: job 4161: field End=Unknown: not ended (running?)"
want table "sacct-good.txt:124: job 4162: field NNodes=32: larger than the fabric (16 nodes)"
want table "sacct-good.txt:125: job 4163: field AdminComment: profile 'nosuchmodel': unknown model"
want table "links over capacity"
# ideal never contends; default does on this history, on named ECMP links.
want table "ideal         0 links over"
grep -qE '^default +[1-9][0-9]* links over: leaf[1-4]#[01] [0-9]+ s' "$tmp/table" || {
	echo "FAIL: default shows no over-capacity ECMP link"; sed 's/^/  | /' "$tmp/table"; fails=$((fails + 1)); }
[ "$(grep -c '^default,1,leaf' "$tmp/out/links-over.csv")" -ge 1 ] || {
	echo "FAIL: links-over.csv has no default row"; fails=$((fails + 1)); }
[ "$(grep -c . "$tmp/out/jobs-default-s1.csv")" = 61 ] || {
	echo "FAIL: jobs-default-s1.csv is not 60 jobs"; fails=$((fails + 1)); }

# Without orrery.conf the leaf uplinks are LinkSpeed's one 200 Gb/s pipe
# and jobs without a record have no profile (no default): no traffic.
"$sim" --topology "$D/topology.conf" --sacct "$D/sacct-good.txt" --seeds 1 \
	--quiet --policies default > "$tmp/plain" 2> "$tmp/err" || {
	echo "FAIL: plain run"; cat "$tmp/err"; fails=$((fails + 1)); }
want plain "0 uplinks with parallel links"
want plain "(45 with orrery's ORR1: record, 0 with the default profile, 15 without a profile: run without traffic)"

bad() {  # bad NAME EXPECTED-STRING ARGS...
	name=$1 msg=$2
	shift 2
	if "$sim" --seeds 1 --quiet --policies default "$@" > /dev/null 2> "$tmp/err"; then
		echo "FAIL: $name accepted"; fails=$((fails + 1)); return
	fi
	want err "$msg"
}
bad "time" "sacct-bad-time.txt:3: field Submit='2026-11-02 09:00:00': expected YYYY-MM-DDTHH:MM:SS" \
	--topology "$D/topology.conf" --sacct "$D/sacct-bad-time.txt"
bad "fields" "sacct-bad-fields.txt:3: 6 fields, the header has 9" \
	--topology "$D/topology.conf" --sacct "$D/sacct-bad-fields.txt"
bad "nnodes" "sacct-bad-nnodes.txt:3: field NNodes='two': expected a node count" \
	--topology "$D/topology.conf" --sacct "$D/sacct-bad-nnodes.txt"
bad "header" "sacct-no-header.txt:1: header: no column JobID" \
	--topology "$D/topology.conf" --sacct "$D/sacct-no-header.txt"
bad "topology switch" "topology-unknown-switch.conf:4: switch 'spine' lists unknown switch 'leaf2' in Switches=" \
	--topology "$D/topology-unknown-switch.conf" --sacct "$D/sacct-good.txt"
bad "conf switch" "orrery-unknown-switch.conf: [switch.leaf9] (not in" \
	--topology "$D/topology.conf" --orrery-conf "$D/orrery-unknown-switch.conf" \
	--sacct "$D/sacct-good.txt"
bad "no topology" "need --topology FILE" --sacct "$D/sacct-good.txt"
bad "missing" "cannot open $D/none.txt" --topology "$D/topology.conf" --sacct "$D/none.txt"

[ "$fails" = 0 ] && echo "what-if: all checks passed"
exit "$fails"
