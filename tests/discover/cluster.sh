#!/bin/bash
# Per-job RDMA congestion counters end to end, on a real Slurm 22.05
# cluster on this machine (contrib/cluster/orrery-cluster): the SPANK
# plugin's job prolog and epilog read a fake sysfs tree per emulated node
# (sysfs_root=.../%n), the job changes the counters in between, and the
# publisher puts each node's ORRC1: record into the job's AdminComment in
# slurmdbd, where orrery-sacct sums them beside the select plugin's ORR1:
# record.  Also GPU-NIC affinity at launch (nic_affinity=1 with a recorded
# hwloc topology), and the select plugin's capacity check on an orrery.conf
# made from orrery-inventory's output.
#
# Usage: tests/discover/cluster.sh [--build-dir DIR] [--state-dir DIR]
#                                  [--port-base P] [--keep]
# Run as root.  The cluster runs in its own state directory and port range
# and is always taken down again (trap), --keep aside.  The last line is
# "N passed, M failed"; the exit status is 0 only if nothing failed.
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=cluster.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-dc-counters
PORT_BASE=19400
NODES=4

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
PLUGIN=$BUILD/plugins/spank/.libs/spank_orrery.so
PUBLISHER=$BUILD/contrib/inventory/orrery-counters-publish
SACCT_TOOL=$BUILD/contrib/sacct/orrery-sacct
INVENTORY=$BUILD/contrib/inventory/orrery-inventory
SELECT_DIR=${ORRERY_SELECT_PLUGIN_DIR:-$BUILD/plugins/select/orrery/.libs}
cs_require "$PLUGIN" "$PUBLISHER" "$SACCT_TOOL"
cs_extra_cleanup() { rm -rf "$STATE.sysfs" "$STATE.orrery.conf"; }
cs_trap

# One fake sysfs tree per emulated node, with the recorded job-start
# counters; the job copies the job-end values over them.  Root-only, like
# the real /sys counters (the test's jobs run as root).
"$CLUSTER" down --state-dir "$STATE" >/dev/null 2>&1
FAKE=$STATE.sysfs
rm -rf "$FAKE"
mkdir -p "$FAKE"
chmod 755 "$FAKE"
for i in $(seq 1 $NODES); do
	n=$(printf 'node%02d' "$i")
	cp -r "$TOP/tests/data/sysfs/counters-start" "$FAKE/$n"
done
# node04 is an InfiniBand-only node without RoCE hw_counters.
rm -rf "$FAKE"/node04/class/infiniband/*/ports/1/hw_counters

SPANK_ARGS="verbose=1 counters=1 sysfs_root=$FAKE/%n counters_publisher=$PUBLISHER"
SPANK_ARGS="$SPANK_ARGS nic_affinity=1 hwloc_xml=$TOP/tests/data/hwloc/dgx8.xml"

# The select plugin when built: its ORR1: record must survive beside the
# counters, and its capacity check reads an orrery.conf whose node_link
# comes from orrery-inventory (the 8-HCA server), with one switch
# capacity that contradicts topology.conf's LinkSpeed.
SELECT=cons_tres
if [ -f "$SELECT_DIR/select_orrery_cons_tres.so" ] && [ -x "$INVENTORY" ]; then
	SELECT=orrery
	export ORRERY_SELECT_PLUGIN_DIR=$SELECT_DIR
	{
		"$INVENTORY" --hwloc-xml "$TOP/tests/data/hwloc/dgx8.xml" \
			--sysfs-root "$TOP/tests/data/sysfs/dgx8" --format orrery-conf
		printf 'mode=enforce\nlinkspeed_unit=1Gbps\n[switch.leaf1]\nuplink=1Gbps\n'
	} >"$STATE.orrery.conf"
	CLUSTER_SELECT=(--select orrery --orrery-conf "$STATE.orrery.conf")
else
	echo "# select plugin or orrery-inventory not built: stand-in controller, no capacity check"
	SPANK_ARGS="test_controller=1 $SPANK_ARGS"
	CLUSTER_SELECT=(--select cons_tres)
fi

cs_up dc "select $SELECT" --leaf-size 2 --gpus-per-node 8 --cpus-per-node 32 --spank-plugin "$PLUGIN" \
	"${CLUSTER_SELECT[@]}" --spank-args "$SPANK_ARGS"


# orrery-sacct's parsable row of a job once CtrNodes reaches WANT (the
# publishers write seconds after the job ends).
sacct_row() {
	local id=$1 want=$2 deadline row
	deadline=$(( $(date +%s) + 90 ))
	while :; do
		row=$("$SACCT_TOOL" -j "$id" --parsable --noheader 2>&1)
		[ "$(cut -d'|' -f10 <<<"$row")" = "$want" ] && break
		[ "$(date +%s)" -lt "$deadline" ] || break
		sleep 2
	done
	echo "$row"
}

# ------------------------------------------------------------------ tests
# A 3-node exclusive job (node01-03: RoCE) whose batch script moves every
# node's counters to the recorded job-end values, and adds another tool's
# AdminComment token that must survive.
J1=$(timeout 20 sbatch --parsable -J dc-roce -N3 -w 'node[01-03]' --exclusive -o "$OUT/j1.out" \
	--comm-profile='period=100ms;up=0ms+10ms@1Gbps' \
	--wrap "for n in \$(scontrol show hostnames \$SLURM_JOB_NODELIST); do
			cp -r $TOP/tests/data/sysfs/counters-end/class/infiniband/. $FAKE/\$n/class/infiniband/
		done
		old=\$(scontrol -o show job \$SLURM_JOB_ID | grep -o 'AdminComment=[^ ]*' | cut -d= -f2-)
		scontrol update jobid=\$SLURM_JOB_ID AdminComment=\"JS1:keepme \$old\"
		sleep 8" 2>"$OUT/j1.err")
# Both jobs run >= 7 s: a job that starts and ends within one cycle of
# slurmctld's accounting thread may never get its start record, and the
# publisher then waits for a finished job that accounting never shows
# (seen: J2 ran 0.06 s and its counters were never recorded).
# A 1-node job on the InfiniBand node whose counters do not move.
J2=$(timeout 20 sbatch --parsable -J dc-ib -N1 -w node04 --exclusive -o "$OUT/j2.out" \
	--wrap "sleep 8" 2>"$OUT/j2.err")

if [ -z "$J1" ] || [ -z "$J2" ]; then
	not_ok "jobs submitted" "$(cat "$OUT/j1.err" "$OUT/j2.err")"
	exit 1
fi
s1=$(cs_wait_job "$J1" 90); s2=$(cs_wait_job "$J2" 90)
if [ "$s1" = COMPLETED ] && [ "$s2" = COMPLETED ]; then
	ok "both jobs completed"
else
	not_ok "both jobs completed" "J1=$s1 J2=$s2" "$(cat "$OUT/j1.out" 2>/dev/null)"
fi

# Per node (tests/data/sysfs/counters-{start,end}, see test_counters.c):
# tx 1000004400 B, rx 400009600 B, xmit_wait 900030, ecn 1005,
# cnp_handled 502, cnp_sent 1000; three nodes.
row=$(sacct_row "$J1" 3)
# Columns: JobID..NodeList, Period, (Shift, scores, Links), CtrNodes,
# TxBytes, RxBytes, XmitWait, EcnMarked, CnpHandled, CnpSent, Profile.
want="$J1|dc-roce|COMPLETED|node[01-03]|100.000ms|3|3000013200|1200028800|2700090|3015|1506|3000"
if [ "$(cut -d'|' -f1-5,10-16 <<<"$row")" = "$want" ] &&
   [[ $(cut -d'|' -f17 <<<"$row") == period=100ms* ]]; then
	ok "3-node job: orrery-sacct sums the nodes' congestion deltas (wrap and reset included)"
else
	not_ok "3-node job: orrery-sacct sums the nodes' congestion deltas" "got:  $row" "want: $want" \
		"$(grep -h "job $J1:" "$STATE"/spool/node0*/orrery/publish.log 2>/dev/null)"
fi
admin=$(timeout 10 sacct -n -X -P -j "$J1" -o AdminComment)
n_rec=$(tr ' ' '\n' <<<"$admin" | grep -c '^ORRC1:node=node0[1-3],')
if [[ " $admin " == *" JS1:keepme "* ]] && [ "$n_rec" -eq 3 ] &&
   [[ " $admin " == *" ORR1:period_us=100000,"* ]]; then
	ok "AdminComment keeps ORR1: and the other tool's token beside one ORRC1: per node"
else
	not_ok "AdminComment keeps ORR1: and the other tool's token beside one ORRC1: per node" "$admin"
fi

row=$(sacct_row "$J2" 1)
# fields 1-17, 18 Requested and 19 Fallback (no profile, so -), 20
# CtrMissing (its one node recorded: -), 21 Realigned and 22 LastGate
# (no channel record: -), 23 Held (never held: -), 24-32 the gate's
# statistics, 33-35 Iteration, ProfileOff and IterRange (gate_stats is
# off here: -) and 36 Reported (no learn=: -)
want="$J2|dc-ib|COMPLETED|node04|-|-|-|-|-|1|0|0|0|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-"
if [ "$row" = "$want" ]; then
	ok "InfiniBand node, idle job: zero traffic, no RoCE counters (shown as -)"
else
	not_ok "InfiniBand node, idle job: zero traffic, RoCE counters absent" "got:  $row" "want: $want"
fi

if ls "$STATE"/spool/node0*/orrery/*.counters >/dev/null 2>&1; then
	not_ok "the epilog removed every start snapshot" "$(ls "$STATE"/spool/node0*/orrery/)"
else
	ok "the epilog removed every start snapshot"
fi

# GPU-NIC affinity (hwloc_xml = the recorded 8-GPU/8-HCA server, where GPU
# i shares a PCIe switch with mlx5_i).
unset NCCL_IB_HCA UCX_NET_DEVICES
SHOW='echo "GPUS=${SLURM_STEP_GPUS:-$SLURM_JOB_GPUS} NCCL=${NCCL_IB_HCA:-unset} UCX=${UCX_NET_DEVICES:-unset}"'
J3=$(timeout 20 sbatch --parsable -J dc-aff -N1 -w node02 --gres=gpu:3 -o "$OUT/j3.out" \
	--wrap "srun --gres=gpu:3 bash -c '$SHOW'" 2>"$OUT/j3.err")
J4=$(NCCL_IB_HCA=mlx5_7 timeout 20 sbatch --parsable -J dc-aff-user -N1 -w node02 --gres=gpu:1 \
	-o "$OUT/j4.out" --wrap "srun --gres=gpu:1 bash -c '$SHOW'" 2>"$OUT/j4.err")
s3=$(cs_wait_job "$J3" 60); s4=$(cs_wait_job "$J4" 60)
line=$(grep '^GPUS=' "$OUT/j3.out" 2>/dev/null | head -n 1)
gpus=$(sed -n 's/^GPUS=\([0-9,]*\) .*/\1/p' <<<"$line")
want_list=$(tr ',' '\n' <<<"$gpus" | sed 's/^/mlx5_/; s/$/:1/' | paste -sd, -)
if [ "$s3" = COMPLETED ] && [ -n "$gpus" ] && [ "$(tr ',' '\n' <<<"$gpus" | wc -l)" -eq 3 ] &&
   [ "$line" = "GPUS=$gpus NCCL==$want_list UCX=$want_list" ]; then
	ok "nic_affinity: the step's 3 GPUs get their PCIe-switch HCAs ($want_list)"
else
	not_ok "nic_affinity: the step's GPUs get their PCIe-switch HCAs" "state=$s3" "$line" "$(cat "$OUT/j3.err" "$OUT/j3.out" 2>/dev/null | tail -n 5)"
fi
line=$(grep '^GPUS=' "$OUT/j4.out" 2>/dev/null | head -n 1)
if [ "$s4" = COMPLETED ] && [[ $line == *" NCCL=mlx5_7 UCX=unset" ]]; then
	ok "nic_affinity: a user's NCCL_IB_HCA is left alone, and UCX_NET_DEVICES not added"
else
	not_ok "nic_affinity: a user's NCCL_IB_HCA is left alone" "state=$s4" "$line"
fi

if [ "$SELECT" = orrery ]; then
	log=$STATE/log/slurmctld.log
	n_dis=$(grep -c 'select/orrery: capacity: switch leaf1: orrery.conf \[switch.NAME\] uplink=1Gbps disagrees with topology.conf LinkSpeed' "$log")
	n_leaf0=$(grep -c 'capacity: switch leaf0' "$log")
	if [ "$n_dis" -eq 1 ] && [ "$n_leaf0" -eq 0 ]; then
		ok "select plugin: one log line for the capacity disagreement, not one per job; agreeing leaf0 silent"
	else
		not_ok "select plugin: one log line per capacity finding" "leaf1=$n_dis leaf0=$n_leaf0" \
			"$(grep 'capacity' "$log" | head -n 5)"
	fi
	if grep -q 'select/orrery: mode=enforce' "$log" && ! grep -q 'running as plain cons_tres' "$log"; then
		ok "orrery.conf with orrery-inventory's node_link snippet is accepted as is"
	else
		not_ok "orrery.conf with orrery-inventory's snippet is accepted" "$(grep 'select/orrery' "$log" | head -n 5)"
	fi
fi

# 20 multi-node jobs that end at the same moment: every node's epilog
# publishes at once, racing for each job's AdminComment in slurmdbd.
# Every node of every job must have exactly one ORRC1: token.
GO=$OUT/burst.go
rm -f "$GO"
burst=()
for i in $(seq 20); do
	id=$(timeout 20 sbatch --parsable -J dc-burst -N$((2 + i % 2)) --ntasks-per-node=1 -c1 \
		-o /dev/null --wrap "while [ ! -e $GO ]; do sleep 0.2; done" 2>>"$OUT/burst.err")
	[ -n "$id" ] && burst+=("$id")
done
running() { [ "$(timeout 10 squeue -h -t R -n dc-burst -o %i | wc -l)" -eq ${#burst[@]} ]; }
deadline=$(( $(date +%s) + 120 ))
until running || [ "$(date +%s)" -ge "$deadline" ]; do sleep 1; done
if [ ${#burst[@]} -eq 20 ] && running; then
	ok "20 multi-node jobs running at once"
else
	not_ok "20 multi-node jobs running at once" "submitted ${#burst[@]}" "$(cat "$OUT/burst.err")" \
		"$(timeout 10 squeue -h -n dc-burst -o '%i %T %R' | head -n 5)"
fi
touch "$GO"
for id in "${burst[@]}"; do cs_wait_job "$id" 90 >/dev/null; done
# Each job's missing nodes (its NodeList less the nodes with one ORRC1:
# token), until none is missing or the publishers' deadline has passed.
missing_nodes() {
	local id=$1 nl admin n
	nl=$(timeout 10 sacct -n -X -P -j "$id" -o NodeList)
	admin=$(timeout 10 sacct -n -X -P -j "$id" -o AdminComment)
	for n in $(scontrol show hostnames "$nl"); do
		[ "$(tr ' ' '\n' <<<"$admin" | grep -c "^ORRC1:node=$n,")" -eq 1 ] || printf '%s ' "$n"
	done
}
deadline=$(( $(date +%s) + 150 ))
while :; do
	lost=""
	for id in "${burst[@]}"; do
		m=$(missing_nodes "$id")
		[ -n "$m" ] && lost="$lost $id:[${m% }]"
	done
	[ -z "$lost" ] || [ "$(date +%s)" -ge "$deadline" ] && break
	sleep 3
done
n_pub=$(cat "$STATE"/spool/node0*/orrery/publish.log 2>/dev/null | grep -c ' counters recorded (')
echo "# publishers: $n_pub 'recorded' lines; writes per publisher: $(sed -n 's/.* counters recorded (\([0-9]*\) writes.*/\1/p' "$STATE"/spool/node0*/orrery/publish.log 2>/dev/null | sort -n | uniq -c | awk '{ printf "%sx%s ", $1, $2 }')"
if [ ${#burst[@]} -eq 20 ] && [ -z "$lost" ]; then
	ok "20 jobs ended at once: every node's ORRC1: record reached each job's AdminComment exactly once"
else
	not_ok "20 jobs ended at once: every node's ORRC1: record in AdminComment exactly once" \
		"missing:$lost" "$(grep -hv ' counters recorded ' "$STATE"/spool/node0*/orrery/publish.log 2>/dev/null | tail -n 8)"
fi
# orrery-sacct's CtrMissing column says the same as the records: "-" for
# every burst job when nothing is missing, else the missing nodes.
cm=$(for id in "${burst[@]}"; do "$SACCT_TOOL" -j "$id" --parsable --noheader -o jobid,ctrmissing 2>&1; done)
cm_bad=$(awk -F'|' '$2 != "-"' <<<"$cm")
if [ -z "$lost" ] && [ -z "$cm_bad" ] && [ "$(wc -l <<<"$cm")" -eq ${#burst[@]} ]; then
	ok "orrery-sacct: CtrMissing is '-' for all ${#burst[@]} burst jobs"
elif [ -n "$lost" ] && [ -n "$cm_bad" ]; then
	ok "orrery-sacct: CtrMissing names the missing nodes ($(tr '\n' ' ' <<<"$cm_bad"))"
else
	not_ok "orrery-sacct: CtrMissing agrees with the ORRC1: records" "records missing:${lost:- none}" "orrery-sacct: $(tr '\n' ' ' <<<"$cm")"
fi
