#!/bin/bash
# tests/netbed/run.sh - real packets: jobs submitted through a real Slurm
# cluster (contrib/cluster/orrery-cluster) run a TCP ring all-reduce
# (orrery-netbed-trainer) in orrery-netbed's fabric of network namespaces,
# each task in the namespace of its node, under three policies:
#
#   cons_tres     select/cons_tres + topology/tree, no profile, no gate
#   orrery-place  select/orrery_cons_tres, --comm-profile, ORRERY_GATE=off
#   orrery        select/orrery_cons_tres, --comm-profile, gated
#
# Scenario a: 3 leaves of 2 hosts, hosts at 200 Mbit/s, one 100 Mbit/s
# uplink per leaf; two 3-node jobs.  Slurm's tree placement gives one job
# leaf0 and one node of leaf1, the other the rest: both rings cross leaf1's
# uplink (checked, not assumed).  Both jobs begin their first iteration at
# the same instant (--start-at): ungated they collide from the start.
# Printed per policy (the issue's format):
#   netbed: scenario=a policy=P jobs=2 iter_ms_mean=X iter_ms_p99=Y drops=D retrans=R sim_iter_ms_mean=Z
# drops: packets dropped by the fabric's shaped queues (tc -s), retrans:
# TCP retransmitted segments in the host namespaces (nstat), both over
# the policy's two jobs; sim_iter_ms_mean: orrery-sim on the same jobs,
# fabric and policy (cons_tres -> its "default" tree best fit).
# Asserted (what a user notices): the gate makes the mean iteration at
# least 1.3x shorter and drops at least 5x fewer than cons_tres; every
# policy's simulated mean within 15% of the measured one.
#
# Usage: tests/netbed/run.sh [--build-dir DIR] [--state-dir DIR]
#                            [--port-base P] [--keep]
# Env: NETBED_ITERS (default 20), NETBED_LINES=FILE (append the netbed:
# lines there too).  Run as root.  Starts and always stops its own
# clusters and fabric (namespaces onb-pPORT-*).  Last line:
# "N passed, M failed".
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=netbed
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/nb-netbed
PORT_BASE=31000
NODES=6

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
NETBED=$TOP/contrib/netbed/orrery-netbed
TRAINER=$BUILD/contrib/netbed/orrery-netbed-trainer
SIM=$BUILD/contrib/sim/orrery-sim
PLUGIN=$BUILD/plugins/spank/.libs/spank_orrery.so
SELECT_DIR=${ORRERY_SELECT_PLUGIN_DIR:-$BUILD/plugins/select/orrery/.libs}
cs_require "$TRAINER" "$SIM" "$PLUGIN" "$SELECT_DIR/select_orrery_cons_tres.so"
export ORRERY_SELECT_PLUGIN_DIR=$SELECT_DIR
FAB=$STATE.fabric
TAG=p$PORT_BASE
ITERS=${NETBED_ITERS:-20}
WARMUP=2
cs_extra_cleanup() { "$NETBED" down --tag "$TAG" || echo "# warning: namespaces onb-$TAG-* left"; }
cs_trap

# ---------------------------------------------------------------- scenario a
# The shaped uplink, not the CPU, is the bottleneck: 100 Mbit/s, 3 ranks
# per job, a compute phase as long as the all-reduce so that two jobs'
# phases can interleave.  The shaped queues hold 120 kB; each connection's
# window is bounded by a 64 KiB receive buffer: one flow fits a queue,
# two colliding flows overflow it.  The hosts' minimum RTO is 20 ms, as
# data-centre hosts set it: with the kernel's 200 ms, one tail drop in a
# ring step stalls the whole ring for 200 ms in sub-millisecond RTTs.
# The compute phase is 10 ms longer than the profiled Up phase: the
# slack a gated job needs on a loaded 2-core host.  TCP is BBR (the
# kernel has reno, cubic, bbr): its rate does not collapse on a drop, so
# two colliding rings share the uplink instead of one stalling in loss
# recovery (with cubic such stalls shift one job against the other at
# random and the "colliding" baseline is luck; see doc/netbed-report.md).
LEAVES=3 HOSTS_PER_LEAF=2
HOST_MBIT=200 UPLINK_MBIT=100 QUEUE=120000
BYTES=3145728 COMPUTE_MS=400 WINDOW=65536 RTO_MIN=20 CC=bbr
PROFILE=$("$TRAINER" --print-profile --ranks 3 --bytes $BYTES --compute-ms $COMPUTE_MS --rate $UPLINK_MBIT)

"$NETBED" down --tag "$TAG" >/dev/null 2>&1
if "$NETBED" up --state-dir "$FAB" --tag "$TAG" --leaves $LEAVES --hosts-per-leaf $HOSTS_PER_LEAF \
	--host-rate $HOST_MBIT --uplink-rate $UPLINK_MBIT --queue-bytes $QUEUE --rto-min $RTO_MIN 2>"$STATE.netbed.log"; then
	ok "fabric up: $((LEAVES * HOSTS_PER_LEAF)) host namespaces under $LEAVES leaves, $UPLINK_MBIT Mbit/s uplinks (onb-$TAG-*)"
else
	not_ok "fabric up" "$(tail -n 5 "$STATE.netbed.log")"
	exit 1
fi

leaf_of() { awk -v n="$1" '$1 == n { print $4 }' "$FAB/hosts"; }
stat_of() { "$NETBED" stats --state-dir "$FAB" --tag "$TAG" | sed -n "s/^$1=//p"; }

# run_policy POLICY: two jobs at once, aligned first iterations; sets
# M_MEAN M_P99 M_DROPS M_RETRANS and prints what the jobs saw.
run_policy() {
	local pol=$1 j ids=() st d0 r0 start opt=() problems="" f nodes
	d0=$(stat_of drops) r0=$(stat_of retrans)
	case $pol in
	cons_tres) ;;
	orrery-place) opt=(--comm-profile="$PROFILE" --export=ALL,ORRERY_GATE=off) ;;
	orrery) opt=(--comm-profile="$PROFILE" --export=ALL,ORRERY_GATE=on) ;;
	esac
	# Far enough ahead for both jobs to be scheduled and connected.
	start=$(( $(date +%s%6N) + 8000000 ))
	for j in 1 2; do
		ids+=("$(timeout 20 sbatch --parsable -J "nb-$pol-$j" -N3 --ntasks-per-node=1 --exclusive \
			-o "$OUT/$pol.$j.batch" "${opt[@]}" --wrap "srun -o $OUT/$pol.$j.%t \
			$NETBED task --state-dir $FAB --port-base $((PORT_BASE + 100)) -- \
			$TRAINER --iters $ITERS --warmup $WARMUP --compute-ms $COMPUTE_MS --bytes $BYTES \
			--window $WINDOW --cc $CC --start-at $start" 2>"$OUT/$pol.$j.sbatch.err")")
	done
	for j in 1 2; do
		st=$(cs_wait_job "${ids[$((j - 1))]:-0}" $((60 + ITERS * 2)))
		[ "$st" = COMPLETED ] || problems="$problems job$j:$st"
		f=$OUT/$pol.$j.0
		grep -q '^summary:' "$f" 2>/dev/null || problems="$problems job$j:no_summary"
		grep -h 'passed .* ago' "$OUT/$pol.$j".[0-9] >/dev/null 2>&1 && problems="$problems job$j:started_late"
		nodes=$(timeout 5 scontrol show hostnames "$(sacct -n -X -j "${ids[$((j - 1))]:-0}" -o NodeList%60 2>/dev/null | tr -d ' ')" 2>/dev/null | tr '\n' ' ')
		echo "# $pol job $j (${ids[$((j - 1))]:-?}): nodes $nodes$(for n in $nodes; do printf ' %s' "$(leaf_of "$n")"; done); $(sed -n 's/^summary: //p' "$f" 2>/dev/null | cut -d' ' -f5-)"
		eval "NODES_$j=\"\$nodes\""
	done
	M_DROPS=$(( $(stat_of drops) - d0 ))
	M_RETRANS=$(( $(stat_of retrans) - r0 ))
	read -r M_MEAN M_P99 < <(awk -v w=$WARMUP '
		/^iter=/ { split($1, a, "="); if (a[2] + 0 < w) next; split($3, b, "="); v[n++] = b[2]; s += b[2] }
		END { if (!n) { print "nan nan"; exit }
		      asort(v); k = int((n * 99 + 99) / 100); printf "%.1f %.1f\n", s / n, v[k] }' \
		"$OUT/$pol.1.0" "$OUT/$pol.2.0" 2>/dev/null)
	if [ -z "$problems" ]; then
		ok "$pol: two 3-rank ring jobs ran in the fabric (mean ${M_MEAN} ms, p99 ${M_P99} ms per iteration)"
	else
		not_ok "$pol: two 3-rank ring jobs ran in the fabric" $problems \
			"$(tail -n 3 "$OUT/$pol".*.batch "$OUT/$pol".*.sbatch.err 2>/dev/null)"
	fi
	eval "MEAN_${pol//-/_}=\$M_MEAN P99_${pol//-/_}=\$M_P99 DROPS_${pol//-/_}=\$M_DROPS RETRANS_${pol//-/_}=\$M_RETRANS"
}

# Both rings must cross one uplink: some leaf holds nodes of both jobs
# and neither job sits under one leaf.
check_shared_uplink() {
	local pol=$1 l1 l2 shared
	l1=$(for n in $NODES_1; do leaf_of "$n"; done | sort -u)
	l2=$(for n in $NODES_2; do leaf_of "$n"; done | sort -u)
	shared=$(comm -12 <(echo "$l1") <(echo "$l2") | tr '\n' ' ')
	if [ -n "${shared// }" ] && [ "$(echo "$l1" | wc -l)" -gt 1 ] && [ "$(echo "$l2" | wc -l)" -gt 1 ]; then
		ok "$pol: both jobs' rings cross the uplink of ${shared% } (job 1: $NODES_1, job 2: $NODES_2)"
	else
		not_ok "$pol: both jobs' rings cross one uplink" "job 1: $NODES_1($l1)" "job 2: $NODES_2($l2)"
	fi
}

CLUSTER_OPTS=(--cpus-per-node 1 --gpus-per-node 0 --leaf-size $HOSTS_PER_LEAF
	--topology-conf "$FAB/topology.conf" --spank-plugin "$PLUGIN" --spank-args "verbose=1")

# 1. cons_tres: a cluster without orrery's select plugin.
cs_up cons_tres "select/cons_tres, fabric $TAG" "${CLUSTER_OPTS[@]}" --select cons_tres
run_policy cons_tres
check_shared_uplink cons_tres
cd / && "$CLUSTER" down --state-dir "$STATE" >/dev/null 2>&1

# 2, 3. orrery's select plugin, the gate off and on.
cs_up orrery "select/orrery_cons_tres, fabric $TAG" "${CLUSTER_OPTS[@]}" --select orrery \
	--orrery-conf "$FAB/orrery.conf"
run_policy orrery-place
check_shared_uplink orrery-place
run_policy orrery
check_shared_uplink orrery
# The gated jobs were gated: every iteration asked the gate, on two
# different slot phases.
gate=$(for j in 1 2; do sed -n 's/^summary: .*gate_active=\([01]\) period_us=\([0-9]*\) phases=\([0-9]*\) .*slot_base_us=\([0-9]*\).*/\1 \2 \3 \4/p' "$OUT/orrery.$j.0"; done)
if [ "$(echo "$gate" | awk -v n=$ITERS '$1 == 1 && $3 == n' | wc -l)" -eq 2 ] &&
   [ "$(echo "$gate" | awk '{ print $4 % $2 }' | sort -u | wc -l)" -eq 2 ]; then
	ok "orrery: both jobs gated every iteration, on different shifts ($(echo "$gate" | awk '{ printf "%s%d ms", s, ($4 % $2) / 1000; s = " and " }') of a $(echo "$gate" | awk 'NR == 1 { print $2 / 1000 }') ms period)"
else
	not_ok "orrery: both jobs gated, on different shifts" "$gate" "$(grep -h '^summary' "$OUT"/orrery.*.0)"
fi
ungated=$(sed -n 's/^summary: .*gate_active=\([01]\).*/\1/p' "$OUT"/orrery-place.*.0 | sort -u)
[ "$ungated" = 0 ] && ok "orrery-place: ORRERY_GATE=off leaves the jobs ungated" ||
	not_ok "orrery-place: ORRERY_GATE=off leaves the jobs ungated" "gate_active=$ungated"

# ---------------------------------------------------------------- simulator
# The same two jobs (arriving together, 3 nodes, the same profile and
# iteration count) on the same fabric: leaves of 2 hosts at HOST_MBIT
# with a leaf uplink of UPLINK_MBIT (oversubscription 2*HOST/UPLINK).
printf 'arrival_s,nodes,profile,iterations\n0,3,"%s",%d\n0,3,"%s",%d\n' \
	"$PROFILE" "$ITERS" "$PROFILE" "$ITERS" >"$OUT/sim-trace.csv"
if "$SIM" --trace "$OUT/sim-trace.csv" --leaves $LEAVES --nodes-per-leaf $HOSTS_PER_LEAF \
	--node-link-mbps $HOST_MBIT --oversub-leaf $((HOSTS_PER_LEAF * HOST_MBIT / UPLINK_MBIT)) \
	--policies default,orrery-place,orrery --seeds 1 --quiet --out "$OUT/sim" >"$OUT/sim.out" 2>&1; then
	ok "orrery-sim ran the same jobs on the same fabric"
else
	not_ok "orrery-sim ran the same jobs on the same fabric" "$(tail -n 3 "$OUT/sim.out")"
fi
sim_mean() {  # mean over the jobs of (finish - start) / iterations, in ms
	awk -F, -v it=$ITERS 'NR > 1 { s += ($5 - $4) / it * 1000; n++ } END { if (n) printf "%.1f\n", s / n; else print "nan" }' \
		"$OUT/sim/jobs-$1-s1.csv" 2>/dev/null
}
SIM_cons_tres=$(sim_mean default)
SIM_orrery_place=$(sim_mean orrery-place)
SIM_orrery=$(sim_mean orrery)

# ---------------------------------------------------------------- report
for pol in cons_tres orrery-place orrery; do
	v=${pol//-/_}
	eval "line=\"netbed: scenario=a policy=$pol jobs=2 iter_ms_mean=\$MEAN_$v iter_ms_p99=\$P99_$v drops=\$DROPS_$v retrans=\$RETRANS_$v sim_iter_ms_mean=\$SIM_$v\""
	echo "$line"
	[ -z "${NETBED_LINES:-}" ] || echo "$line" >>"$NETBED_LINES"
done

# What a user notices.
speedup=$(awk -v a="$MEAN_cons_tres" -v b="$MEAN_orrery" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print 0 }')
if awk -v s="$speedup" 'BEGIN { exit !(s >= 1.3) }'; then
	ok "the gate makes the mean iteration ${speedup}x shorter than cons_tres (${MEAN_cons_tres} -> ${MEAN_orrery} ms; target >= 1.3x)"
else
	not_ok "the gate makes the mean iteration at least 1.3x shorter than cons_tres" \
		"measured ${speedup}x: ${MEAN_cons_tres} ms ungated, ${MEAN_orrery} ms gated"
fi
if [ "$DROPS_cons_tres" -gt 0 ] && [ $((DROPS_orrery * 5)) -le "$DROPS_cons_tres" ]; then
	ok "the gate drops at least 5x fewer packets at the shaped queues ($DROPS_cons_tres -> $DROPS_orrery)"
else
	not_ok "the gate drops at least 5x fewer packets at the shaped queues" \
		"cons_tres $DROPS_cons_tres, orrery $DROPS_orrery"
fi
for pol in cons_tres orrery-place orrery; do
	v=${pol//-/_}
	eval "m=\$MEAN_$v s=\$SIM_$v"
	err=$(awk -v m="$m" -v s="$s" 'BEGIN { if (m > 0 && s > 0) printf "%.1f", (s - m) / m * 100; else print "nan" }')
	if awk -v e="$err" 'BEGIN { exit !(e != "nan" && e >= -15 && e <= 15) }'; then
		ok "$pol: the simulator's mean iteration ($s ms) is within 15% of the measured ($m ms): ${err}%"
	else
		not_ok "$pol: the simulator's mean iteration within 15% of the measured" "sim $s ms, measured $m ms (${err}%)"
	fi
done
