#!/bin/bash
# Placement fidelity: does orrery-sim place jobs the way Slurm does?
# A fixed trace of 56 jobs (1 to 8 whole nodes, several spanning leaves,
# 2-8 s sleeps, submitted in bursts) runs twice on the local cluster
# (contrib/cluster/orrery-cluster, 16 nodes in leaves of 4, topology/tree):
# once under select/cons_tres, once under select/orrery_cons_tres.  Then
# orrery-sim --fidelity replays every recorded start through its `default`
# and `orrery` policies on the same topology.conf, with the nodes free at
# that instant (from the recorded Start/End), and compares node sets.
# Each difference is printed with its cause; the result lines are
#   queue fidelity: slurm same order X, median Y s; greedy same order ...
#   placement fidelity: default M/N, orrery M/N
# (the first compares the recorded start times with orrery-sim's model of
# Slurm's queue and with its greedy queue, on the cons_tres run).
# It fails when a job does not complete, when fewer than 50 jobs are
# compared per run, or when a difference comes without a cause.
#
# Usage: tests/fidelity/run.sh [--build-dir DIR] [--state-dir DIR]
#                              [--port-base P] [--keep]
# Run as root.  Defaults: state /var/tmp/orrery-fidelity, ports 17700..
# About 4 minutes on 2 cores (two cluster start-ups, ~60 s of jobs each).
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=run.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-fidelity
PORT_BASE=17700
NODES=16

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
SIM=$BUILD/contrib/sim/orrery-sim
SEL=${ORRERY_SELECT_PLUGIN_DIR:-$BUILD/plugins/select/orrery/.libs}
cs_require "$SIM" "$SEL/select_orrery_cons_tres.so" "$BUILD/lib/.libs/liborrery.so.1"
cs_extra_cleanup() { rm -rf "$STATE.lib" "$STATE.work"; }
cs_trap

rm -rf "$STATE.lib" "$STATE.work"
mkdir -p "$STATE.lib" "$STATE.work"
chmod 755 "$STATE.lib"
install -m 755 "$SEL/select_orrery_cons_tres.so" "$BUILD/lib/.libs/liborrery.so.1" "$STATE.lib/"
export ORRERY_SELECT_PLUGIN_DIR=$STATE.lib
W=$STATE.work
# Every job gets the same profile: from orrery.conf under select/orrery,
# from --default-profile in the simulator.
PROFILE=resnet50
cat > "$W/orrery.conf" <<CONF
[orrery]
mode=enforce
default_profile=$PROFILE
node_link=100Gbps
CONF

# The trace: "nodes seconds" per job; a blank line is a 1 s pause between
# bursts.  56 jobs, 17 of them larger than a leaf (4 nodes).
TRACE='2 3
1 2
4 4
3 5
8 6
2 2

6 4
1 3
1 3
2 5
4 2
5 4

3 3
8 5
2 2
2 2
1 4
6 3

4 6
4 2
3 2
1 5
2 3
7 4

1 2
2 2
5 6
3 3
8 3
1 2

2 4
4 4
6 2
1 3
3 5
2 2

5 3
1 2
2 6
4 3
8 2
3 4

2 2
6 5
1 3
4 2
3 3
2 4

7 3
1 2
5 4
2 3
4 5
1 2
3 2
2 3'

# run_trace NAME SELECT: bring the cluster up, submit the trace, wait for
# every job, write $W/NAME.sacct.
run_trace() {
	local name=$1 sel=$2 ids=() id n s st left
	cs_up "fid-$name" "select $sel" --leaf-size 4 --no-spank --select "$sel" \
		--orrery-conf "$W/orrery.conf"
	cp "$STATE/etc/topology.conf" "$W/topology.conf"
	cp "$SLURM_CONF" "$W/slurm.conf"
	while IFS= read -r line; do
		if [ -z "$line" ]; then sleep 1; continue; fi
		set -- $line
		id=$(sbatch --parsable -N "$1" --exclusive -o /dev/null -J "fid" --wrap "sleep $2" 2>"$W/sbatch.err") ||
			{ not_ok "$name: sbatch -N $1" "$(cat "$W/sbatch.err")"; continue; }
		ids+=("${id%%;*}")
	done <<<"$TRACE"
	left=0
	for id in "${ids[@]}"; do
		st=$(cs_wait_job "$id" 300)
		[ "$st" = COMPLETED ] || { left=$((left + 1)); echo "# job $id: $st"; }
	done
	if [ "$left" -eq 0 ]; then ok "$name: all ${#ids[@]} jobs completed"
	else not_ok "$name: $left of ${#ids[@]} jobs did not complete"; fi
	# Accounting lands a moment after the controller's end.
	local want=${#ids[@]} got=0 i
	for i in $(seq 1 30); do
		sacct -X --parsable2 --name=fid -S now-1hour \
			--format=JobID,Submit,Start,End,NNodes,NodeList,Priority,Timelimit,AdminComment \
			>"$W/$name.sacct" 2>"$W/sacct.err"
		got=$(awk -F'|' 'NR > 1 && $4 != "Unknown" && $4 != ""' "$W/$name.sacct" | wc -l)
		[ "$got" -ge "$want" ] && break
		sleep 1
	done
	[ "$got" -ge "$want" ] && ok "$name: $got jobs in accounting" ||
		not_ok "$name: $got of $want jobs in accounting" "$(cat "$W/sacct.err")"
}

run_trace default cons_tres
run_trace orrery orrery

"$SIM" --topology "$W/topology.conf" --default-profile "$PROFILE" --gpus-per-node 8 \
	--fidelity "default=$W/default.sacct" --fidelity "orrery=$W/orrery.sacct" \
	>"$W/fidelity.txt" 2>&1
rc=$?
sed 's/^/# /' "$W/fidelity.txt"
line=$(grep '^placement fidelity: ' "$W/fidelity.txt")
if [ "$rc" -eq 0 ] && [ -n "$line" ]; then ok "orrery-sim --fidelity ran"
else not_ok "orrery-sim --fidelity (exit $rc)"; fi
for p in default orrery; do
	n=$(echo "$line" | sed -n "s/.*$p [0-9]*\/\([0-9]*\).*/\1/p")
	[ "${n:-0}" -ge 50 ] && ok "$p: $n jobs compared" || not_ok "$p: ${n:-no} jobs compared (50 needed)"
done
bad=$(grep '^fidelity: ' "$W/fidelity.txt" | grep -vc ': recorded .*: [a-z]' || true)
[ "$bad" -eq 0 ] && ok "every difference names its cause" || not_ok "$bad differences without a cause"

# Start times (orrery-sim(1), Queue): the cons_tres run's history replayed
# through the default policy under orrery-sim's model of Slurm's queue
# (FIFO here: every job has the same priority and no time limit, so the
# main scheduler blocks behind a job that does not fit and backfill only
# starts jobs that fit now) and under the greedy queue (any job that fits
# starts).  The Slurm model must start at least 95 % of the job pairs in
# the order Slurm started them, and more than the greedy queue does; the
# start times themselves drift by Slurm's latencies (doc/benchmark-report.md,
# Slurm's queue).
declare -A med order
for q in slurm greedy; do
	"$SIM" --topology "$W/topology.conf" --default-profile "$PROFILE" --gpus-per-node 8 \
		--sacct "$W/default.sacct" --slurm-conf "$W/slurm.conf" --queue "$q" \
		--policies default --seeds 1 --quiet >"$W/start-$q.txt" 2>&1
	read -r med[$q] order[$q] < <(awk '$1 == "default" && $3 == "s" && $5 == "s" { print $2, $8 }' "$W/start-$q.txt")
	sed -n '/^start times against/,$p' "$W/start-$q.txt" | sed "s/^/# $q: /"
done
qline="queue fidelity: slurm same order ${order[slurm]:-?}, median ${med[slurm]:-?} s; greedy same order ${order[greedy]:-?}, median ${med[greedy]:-?} s (job pairs started in the recorded order; |simulated - recorded start|)"
if [ -n "${order[slurm]:-}" ] && [ -n "${order[greedy]:-}" ] &&
	awk -v a="${order[slurm]}" -v b="${order[greedy]}" 'BEGIN { exit !(a > b && a >= 0.95) }'; then
	ok "Slurm's queue model starts the jobs in the recorded order (${order[slurm]} of pairs; greedy ${order[greedy]})"
else
	not_ok "Slurm's queue model does not follow the recorded start order" "$qline"
fi
echo "$qline"
echo "$line"
