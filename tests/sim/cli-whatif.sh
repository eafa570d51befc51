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

# The queue (orrery-sim(1), Queue): sacct's Priority and Timelimit and the
# site's SchedulerParameters.  Job 5003 (priority 5000) was submitted after
# 5002 (1000) and both need the whole fabric: under Slurm's queue 5003
# starts when 5001 ends, 5002 after it; the greedy queue keeps submit
# order.
"$sim" --topology "$D/topology.conf" --orrery-conf "$D/orrery.conf" \
	--sacct "$D/sacct-queue.txt" --slurm-conf "$D/slurm.conf" --seeds 1 \
	--policies default --out "$tmp/q" > /dev/null 2> "$tmp/qerr" || {
	echo "FAIL: queue run"; cat "$tmp/qerr"; fails=$((fails + 1)); }
want qerr "queue: slurm (priority order, main scheduler, backfill every 60 s, bf_resolution=300 s, bf_window=2880 min, bf_max_job_test=500, max_switch_wait=600 s"
starts() {  # the start_s of jobs 1 and 2 (5002, 5003)
	awk -F, '$1 == 1 { a = $4 } $1 == 2 { b = $4 } END { print (a > b ? "priority" : "submit") }' "$1"
}
[ "$(starts "$tmp/q/jobs-default-s1.csv")" = priority ] || {
	echo "FAIL: slurm queue did not start 5003 (priority 5000) before 5002"
	sed 's/^/  | /' "$tmp/q/jobs-default-s1.csv"; fails=$((fails + 1)); }
"$sim" --topology "$D/topology.conf" --orrery-conf "$D/orrery.conf" \
	--sacct "$D/sacct-queue.txt" --queue greedy --seeds 1 --quiet \
	--policies default --out "$tmp/g" > /dev/null 2>&1
[ "$(starts "$tmp/g/jobs-default-s1.csv")" = submit ] || {
	echo "FAIL: greedy queue did not keep submit order"; fails=$((fails + 1)); }

# A history recorded on real Slurm 22.05 (tests/fidelity/run.sh's cons_tres
# run: 56 sleep jobs of 1-8 nodes on the local 16-node cluster, equal
# priorities, no time limits; topology-slurm2205.conf is that cluster's).
# Slurm's main scheduler blocks behind the first job that does not fit, so
# it started them in submit order; the model must reproduce that order
# (at least 95 % of job pairs, and more than the greedy queue, which lets
# small jobs pass).
order() {  # order QUEUE: the "same order" share of the default policy
	"$sim" --topology "$D/topology-slurm2205.conf" --sacct "$D/sacct-slurm2205.txt" \
		--default-profile resnet50 --gpus-per-node 8 --queue "$1" --seeds 1 --quiet \
		--policies default > "$tmp/o-$1" 2>&1
	awk '$1 == "default" && $3 == "s" && $5 == "s" { print $8 }' "$tmp/o-$1"
}
os=$(order slurm) og=$(order greedy)
want o-slurm "start fidelity: default"
awk -v a="$os" -v b="$og" 'BEGIN { exit !(a != "" && b != "" && a >= 0.95 && a > b) }' || {
	echo "FAIL: start order on the recorded Slurm history: slurm queue '$os', greedy '$og'"
	sed 's/^/  | /' "$tmp/o-slurm"; fails=$((fails + 1)); }

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
bad "timelimit" "sacct-bad-timelimit.txt:3: field Timelimit='two hours': expected [D-]HH:MM:SS, UNLIMITED or Partition_Limit" \
	--topology "$D/topology.conf" --sacct "$D/sacct-bad-timelimit.txt"
bad "priority" "sacct-bad-priority.txt:2: field Priority='-3': expected an integer from 0 to 4294967295" \
	--topology "$D/topology.conf" --sacct "$D/sacct-bad-priority.txt"
bad "slurm.conf" "slurm-bad-bf.conf:4: SchedulerParameters bf_resolution='0': expected an integer from 1 to 3600" \
	--topology "$D/topology.conf" --sacct "$D/sacct-good.txt" --slurm-conf "$D/slurm-bad-bf.conf"
bad "queue" "--queue: 'fifo': expected slurm or greedy" \
	--topology "$D/topology.conf" --sacct "$D/sacct-good.txt" --queue fifo
bad "no topology" "need --topology FILE" --sacct "$D/sacct-good.txt"
bad "missing" "cannot open $D/none.txt" --topology "$D/topology.conf" --sacct "$D/none.txt"

[ "$fails" = 0 ] && echo "what-if: all checks passed"
exit "$fails"
