#!/bin/bash
# tests/channel/cluster.sh - the live channel (issue 14) end to end on a
# real Slurm 22.05 cluster with select/orrery_cons_tres and the SPANK
# plugin (contrib/cluster/orrery-cluster):
#   - two gated jobs share the leaf uplinks; B is cancelled: within 5 s
#     A's runtime statistics say its gate is off, on every rank, and its
#     iterations stop waiting;
#   - a user (nobody) tries every path of the channel: AdminComment of
#     another's job and of their own, the node's channel file and its
#     directory: refused, logged, nothing changes;
#   - job C joins A: A's gate back on as the next generation, each update
#     received and applied once;
#   - a third job D on the over-committed uplinks: A, C and D move to one
#     common period with distinct slots (time division), A and C while
#     they run;
#   - a node failure under D, then a requeue of D: A and C back on their
#     own period within 5 s each time, and on the common one when D runs
#     again;
#   - kill -9 of slurmctld right after an update, inside the saver's
#     250 ms gap (D and C end 0.1 s apart): every generation A's ranks
#     applied is unique and increasing and has the controller's values
#     for it, and A ends on what the controller serves after the restart;
#   - orrery-sacct shows A's re-alignments and last gate.
# Prints the update latencies (cancel / node failure / requeue to switch,
# publish to switch).
#
# Usage: tests/channel/cluster.sh [--build-dir DIR] [--state-dir DIR]
#                                 [--port-base P] [--keep]
# Run as root.  Starts and always stops its own cluster.  Last line:
# "N passed, M failed".
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=cluster.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-channel
PORT_BASE=19700
NODES=8

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
cs_live_gate_libs
cs_trap
printf '[orrery]\nmode=enforce\nnode_link=100Gbps\nchannel_lead_ms=2000\n[uplinks]\nlevel0=100Gbps\n' \
	>"$STATE.orrery.conf"

cs_up ch "select orrery, live channel" --leaf-size 4 --gpus-per-node 8 \
	--spank-plugin "$STATE.lib/spank_orrery.so" --select orrery --orrery-conf "$STATE.orrery.conf" \
	--spank-args "verbose=1 gate_library=$STATE.lib/liborrery-nccl.so channel_poll_ms=1000 gate_stats=1 counters_publisher=$BUILD/contrib/inventory/orrery-counters-publish"
cs_unset_orrery_env
CTLD_LOG=$STATE/log/slurmctld.log
PROFILE='period=100ms;up=0ms+50ms@80Gbps'

# The task: 50 ms of compute and one collective per iteration, N of them
# (the nccl_train_loop copy finds the fake libnccl beside it).
{
	echo '#!/bin/bash'
	echo 'tag=$1 n=$2'
	echo "env | grep -E '^(ORRERY_[A-Z_]+|LD_PRELOAD)=' | sort >\"$OUT/\$tag.env.\$SLURM_PROCID\""
	echo "export ORRERY_RUNTIME_STATS=\"$OUT/\$tag.stats.%r\" ORRERY_RUNTIME_VERBOSE=1 LD_LIBRARY_PATH=$STATE.lib"
	echo "exec $STATE.lib/nccl_train_loop -n \$n -c 50000 -k 1 -o \"$OUT/\$tag.loop.\$SLURM_PROCID\""
} >"$OUT/task.sh"
chmod 755 "$OUT/task.sh"

submit() {	# TAG ITERATIONS [SBATCH OPTION...]: job id
	local tag=$1 n=$2
	shift 2
	timeout 20 sbatch --parsable -J "ch-$tag" -N5 -n5 -c1 --comm-profile="$PROFILE" --comm-gate=auto \
		-o "$OUT/$tag.out" "$@" --wrap "srun $OUT/task.sh $tag $n"
}
running() { [ "$(timeout 5 squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
wait_running() { local i; for i in $(seq 150); do running "$1" && return 0; sleep 0.2; done; return 1; }
# Key $2 of the ORRG1: record in job $1's AdminComment.
orrc() {
	timeout 10 scontrol show job "$1" 2>/dev/null | sed -n 's/.*ORRG1:\([^ ]*\).*/\1/p' |
		tr ',' '\n' | sed -n "s/^$2=//p"
}
stat_of() { sed -n "s/^$2=//p" "$1" 2>/dev/null; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }
# Wait (up to $3 s) until every rank's stats file of tag $1 has channel_gen >= $2.
wait_gen() {
	local tag=$1 gen=$2 limit=$3 deadline r g okn
	deadline=$(( $(date +%s) + limit ))
	while :; do
		okn=0
		for r in 0 1 2 3 4; do
			g=$(stat_of "$OUT/$tag.stats.$r" channel_gen)
			[ -n "$g" ] && [ "$g" -ge "$gen" ] && okn=$((okn + 1))
		done
		[ $okn -eq 5 ] && return 0
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
restart_ctld() {
	"$CLUSTER" up --state-dir "$STATE" --port-base "$PORT_BASE" --nodes "$NODES" --timeout 60 >>"$OUT/restart.log" 2>&1
}
LAT=()		# cancel to switch, ms, one per rank
PUBLAT=()	# publish to switch, ms, one per rank and update

# ------------------------------------------------------------------ tests
a=$(submit A 1200)
wait_running "$a" || { not_ok "job A runs" "$(tail -n 5 "$OUT/A.out" 2>/dev/null)"; exit 1; }
for _ in $(seq 100); do [ -s "$OUT/A.loop.0" ] && break; sleep 0.2; done
# A alone on its links: the controller switches its launch gate off (a
# gate on a job that shares no constrained link only costs it time).
if wait_gen A 1 15 && [ "$(orrc "$a" gate)" = off ] && [ "$(orrc "$a" mode)" = alone ]; then
	ok "A alone on its links: its launch gate switched off on all 5 ranks (gen $(orrc "$a" gen), mode alone)"
else
	not_ok "A alone on its links: its launch gate switched off" \
		"record: $(timeout 5 scontrol show job "$a" | grep -o 'ORRG1:[^ ]*')" "$(grep 'channel' "$CTLD_LOG" | tail -n 3)"
fi
# That record has no lead: A's tasks did not run yet when it was made,
# so it holds from their first iteration boundary after the poller read
# it (select-orrery(8), CHANNEL), and no rank counts a late switch.
ap=$(orrc "$a" apply_us) pu=$(orrc "$a" pub_us) gated="" bad=""
for r in 0 1 2 3 4; do
	f=$OUT/A.stats.$r
	[ "$(stat_of "$f" late_switches)" = 0 ] || bad="$bad rank$r:late_switches=$(stat_of "$f" late_switches)"
	gated="$gated $(( $(stat_of "$f" phases) - $(stat_of "$f" passthrough) ))"
done
echo "# A's iterations gated before its launch gate went off, per rank:$gated"
if [ -n "$ap" ] && [ "$ap" = "$pu" ] && [ -z "$bad" ]; then
	ok "A's launch gate off from its start: apply_us = pub_us (no lead), no late switch on any rank"
else
	not_ok "A's launch gate off from its start (apply_us = pub_us, no late switch)" "apply_us=$ap pub_us=$pu" $bad
fi
b=$(submit B 1200)
if wait_running "$b"; then
	ok "jobs A ($a) and B ($b) run, 5 nodes each across both leaves"
else
	not_ok "job B runs beside A" "$(tail -n 5 "$OUT/B.out" 2>/dev/null)"; exit 1
fi
for _ in $(seq 100); do [ -s "$OUT/B.loop.0" ] && break; sleep 0.2; done
sleep 3	# any re-solve at B's start has reached A
[ "$(orrc "$a" gate)" = on ] && ok "B joins A's links: A's gate is back on ($(orrc "$a" mode), gen $(orrc "$a" gen))" ||
	not_ok "B joins A's links: A's gate back on" "record: $(timeout 5 scontrol show job "$a" | grep -o 'ORRG1:[^ ]*')"
ga=$(cat "$OUT"/A.env.* 2>/dev/null | grep -c '^ORRERY_CHANNEL=')
if [ "$ga" -eq 5 ] && grep -q "^LD_PRELOAD=$STATE.lib/liborrery-nccl.so" "$OUT/A.env.0"; then
	ok "A's 5 tasks are gated and have ORRERY_CHANNEL"
else
	not_ok "A's tasks are gated and have ORRERY_CHANNEL" "$(cat "$OUT/A.env.0" 2>/dev/null)"
fi
gen0=$(orrc "$a" gen)

# Cancel B: A's last neighbour leaves.
t0=$(now_us)
timeout 10 scancel "$b"
want=$(( ${gen0:-0} + 1 ))
if wait_gen A "$want" 15; then
	bad=""
	for r in 0 1 2 3 4; do
		f=$OUT/A.stats.$r
		[ "$(stat_of "$f" channel)" = off ] || bad="$bad rank$r:channel=$(stat_of "$f" channel)"
		ap=$(stat_of "$f" last_apply_us) pu=$(stat_of "$f" last_pub_us)
		LAT+=($(( (ap - t0) / 1000 )))
		PUBLAT+=($(( (ap - pu) / 1000 )))
		[ $(( ap - t0 )) -le 5000000 ] || bad="$bad rank$r:$(( (ap - t0) / 1000 ))ms"
	done
	[ -z "$bad" ] && ok "B cancelled: all 5 ranks of A switched their gate off within 5 s (gen $want; ${LAT[*]} ms)" ||
		not_ok "B cancelled: A's gate off within 5 s on every rank" $bad
else
	not_ok "B cancelled: A's ranks reach channel gen $want within 15 s" "record: $(timeout 5 scontrol show job "$a" | grep -o 'ORRG1:[^ ]*')" \
		"$(grep 'channel' "$CTLD_LOG" | tail -n 3)" "$(grep -h orrery "$OUT/A.out" | tail -n 5)"
fi
grep -q "channel gen $want applied" "$OUT/A.out" && ok "A's ranks log the switch to gen $want" ||
	not_ok "A's ranks log the switch" "$(grep -h orrery "$OUT/A.out" | tail -n 5)"

# ---- tampering: nobody against root's job A and against their own job.
# slurmctld logs the refusal for A as an AdminComment change (22.05) or as
# an update of another user's job (24.11: "Invalid user id").
nj=$(cd /tmp && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" timeout 20 sbatch --parsable -J ch-nobody -N1 -c1 -o /dev/null --wrap 'sleep 60' 2>"$OUT/nobody.err")
wait_running "${nj:-0}" >/dev/null 2>&1
gen_before=$(orrc "$a" gen)
fake="ORRG1:gen=99,gate=on,period_us=100000,shift_us=1,epoch_us=1,apply_us=1,pub_us=1,mode=rotate"
e1=$(cd /tmp && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" timeout 10 scontrol update jobid="$a" AdminComment="$fake" 2>&1); r1=$?
e2=$(cd /tmp && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" timeout 10 scontrol update jobid="${nj:-0}" AdminComment="$fake" 2>&1); r2=$?
chf=$(sed -n 's/^ORRERY_CHANNEL=//p' "$OUT/A.env.0")
e3=$(runuser -u nobody -- sh -c "echo gen=100 >>'$chf'" 2>&1); r3=$?
e4=$(runuser -u nobody -- sh -c "echo x >'$(dirname "$chf")/$a.channel.tmp'" 2>&1); r4=$?
sleep 2
if [ $r1 -ne 0 ] && [ $r2 -ne 0 ] && [ $r3 -ne 0 ] && [ $r4 -ne 0 ] && [ -n "$nj" ] &&
   [ "$(orrc "$a" gen)" = "$gen_before" ] && [ -z "$(orrc "$nj" gen)" ] &&
   [ "$(stat_of "$OUT/A.stats.0" channel_gen)" = "$gen_before" ] &&
   grep -qE "Attempt to change admin_comment for JobId=$a\$|update_job: JobId=$a uid=[0-9]+: Invalid user id" "$CTLD_LOG"; then
	ok "nobody cannot set a gate: AdminComment of root's job A and of their own job refused ($e1), logged by slurmctld; the channel file and its directory are not writable; A stays at gen $gen_before"
else
	not_ok "nobody's attempts on the channel are refused" "r=$r1/$r2/$r3/$r4 nobody_job=${nj:-none} $(cat "$OUT/nobody.err")" "$e1" "$e2" "$e3" "$e4" \
		"A gen now $(orrc "$a" gen) (was $gen_before); nobody's job record: $(orrc "${nj:-0}" gen)"
fi
[ -n "$nj" ] && timeout 10 scancel "$nj"

pt1=$(stat_of "$OUT/A.stats.0" passthrough)	# rewritten every 2 s
nodes_of() { timeout 5 scontrol show hostnames "$(timeout 5 squeue -h -j "$1" -o %N)"; }
only_d=$(comm -23 <(timeout 5 sinfo -h -N -o %N | sort -u) <(nodes_of "$a" | sort -u) | tail -n 1)
c=$(submit C 1500 ${only_d:+-x "$only_d"})
want2=$(( want + 1 ))
if wait_running "$c" && wait_gen A "$want2" 20; then
	bad=""
	for r in 0 1 2 3 4; do
		f=$OUT/A.stats.$r
		[ "$(stat_of "$f" updates_received)" = "$want2" ] && [ "$(stat_of "$f" updates_applied)" = "$want2" ] ||
			bad="$bad rank$r:received=$(stat_of "$f" updates_received),applied=$(stat_of "$f" updates_applied)"
		[ "$(stat_of "$f" channel)" = on ] || bad="$bad rank$r:channel=$(stat_of "$f" channel)"
		ap=$(stat_of "$f" last_apply_us) pu=$(stat_of "$f" last_pub_us)
		PUBLAT+=($(( (ap - pu) / 1000 )))
	done
	[ -z "$bad" ] && ok "C starts: A's ranks get gen $want2 (gate on, $(orrc "$a" mode)); every update received and applied exactly once ($want2 each)" ||
		not_ok "C starts: gen $want2 at A, no update lost or repeated" $bad
else
	not_ok "C starts: A's ranks reach gen $want2" "C=$(timeout 5 squeue -h -j "$c" -o %T)" \
		"record: $(timeout 5 scontrol show job "$a" | grep -o 'ORRG1:[^ ]*')" "$(grep 'channel' "$CTLD_LOG" | tail -n 4)"
fi
# ---- a third job on the over-committed uplinks: one common period.
# Three 50%-duty jobs cannot be rotated into 100 ms (orrery-score(7),
# TIME DIVISION): the group is re-solved and A, C and D get one common
# period with distinct slots; A and C switch while running.
for _ in $(seq 100); do [ -s "$OUT/C.loop.0" ] && break; sleep 0.2; done
# D gets the node kept from C (and not A's): the node failure below is D's alone.
d=$(submit D 600 ${only_d:+-w "$only_d"})
if wait_running "$d"; then
	sleep 1
	pa=$(orrc "$a" period_us) pc=$(orrc "$c" period_us) pd=$(orrc "$d" period_us)
	ma=$(orrc "$a" mode) sa=$(orrc "$a" shift_us) sc=$(orrc "$c" shift_us) sd=$(orrc "$d" shift_us)
	ga=$(orrc "$a" gen) gc=$(orrc "$c" gen)
	echo "# with D: A gen $ga ${ma:-?} period $pa shift $sa; C gen $gc period $pc shift $sc; D period $pd shift $sd"
	if [ "$ma" = divide ] && [ -n "$pa" ] && [ "$pa" = "$pc" ] && [ "$pa" = "$pd" ] &&
	   [ "$sa" != "$sc" ] && [ "$sa" != "$sd" ] && [ "$sc" != "$sd" ]; then
		ok "D starts: A, C and D move to one common period ($pa us) with distinct slots ($sa, $sc, $sd us)"
		if wait_gen A "$ga" 15 && wait_gen C "$gc" 15 2>/dev/null; then
			bad=""
			for r in 0 1 2 3 4; do
				[ "$(stat_of "$OUT/A.stats.$r" period_us)" = "$pa" ] || bad="$bad A$r:$(stat_of "$OUT/A.stats.$r" period_us)"
				[ "$(stat_of "$OUT/C.stats.$r" period_us)" = "$pc" ] || bad="$bad C$r:$(stat_of "$OUT/C.stats.$r" period_us)"
				ap=$(stat_of "$OUT/A.stats.$r" last_apply_us) pu=$(stat_of "$OUT/A.stats.$r" last_pub_us)
				PUBLAT+=($(( (ap - pu) / 1000 )))
			done
			[ -z "$bad" ] && ok "the running A and C gate on the common period on all their ranks" ||
				not_ok "A and C gate on the common period" $bad
		else
			not_ok "A and C's ranks reach their new generation" "A: $(stat_of "$OUT/A.stats.0" channel_gen) C: $(stat_of "$OUT/C.stats.0" channel_gen)"
		fi
	else
		skip_or_fail="mode=$ma periods=$pa/$pc/$pd shifts=$sa/$sc/$sd"
		not_ok "D starts: one common period with distinct slots for A, C, D" "$skip_or_fail" "$(grep 'channel' "$CTLD_LOG" | tail -n 4)"
	fi
else
	not_ok "job D runs beside A and C" "$(tail -n 5 "$OUT/D.out" 2>/dev/null)"
fi
# ---- events: a node failure under D, and a requeue of D.  Either takes
# D off the over-committed uplinks: A and C go back to rotation on their
# own 100 ms period within 5 s; when D runs again, back to one common
# period.  (A requeued job waits out the credential window, 1,200 s, before
# it may start again: StartTime=now lets it.)
wait_period() {	# TAG PERIOD_US LIMIT_S: every rank gates on that period
	local deadline=$(( $(date +%s) + $3 )) r okn
	while :; do
		okn=0
		for r in 0 1 2 3 4; do
			[ "$(stat_of "$OUT/$1.stats.$r" channel)" = on ] &&
				[ "$(stat_of "$OUT/$1.stats.$r" period_us)" = "$2" ] && okn=$((okn + 1))
		done
		[ $okn -eq 5 ] && return 0
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
event_lat() {	# T0_US: the latest switch of A's ranks after T0, ms
	local r m=0 v ap
	for r in 0 1 2 3 4; do
		ap=$(stat_of "$OUT/A.stats.$r" last_apply_us)
		v=$(( (ap - $1) / 1000 ))
		EVLAT+=($v)
		PUBLAT+=($(( (ap - $(stat_of "$OUT/A.stats.$r" last_pub_us)) / 1000 )))
		[ $v -gt $m ] && m=$v
	done
	EVMAX=$m
}
rerun_d() {
	for _ in $(seq 100); do
		running "$d" && return 0
		[ "$(timeout 5 squeue -h -j "$d" -o %T 2>/dev/null)" = PENDING ] &&
			timeout 5 scontrol update jobid="$d" StartTime=now >/dev/null 2>&1 && break
		sleep 0.2
	done
	wait_running "$d"
}
EVLAT=()
if [ -n "$only_d" ] && grep -qx "$only_d" < <(nodes_of "$d") && running "$d"; then
	t0=$(now_us)
	timeout 10 scontrol update nodename="$only_d" state=down reason=orrery-channel-test
	if wait_period A 100000 10 && wait_period C 100000 10; then
		event_lat "$t0"; m=$EVMAX
		[ "$m" -le 5000 ] && ok "node $only_d under D set DOWN (D killed by the node failure): A and C back on their own 100 ms period within 5 s (A's ranks: ${EVLAT[*]} ms)" ||
			not_ok "node failure under D: A back on 100 ms within 5 s" "${EVLAT[*]} ms"
	else
		not_ok "node failure under D: A and C back on their own period" "D=$(timeout 5 squeue -h -j "$d" -o %T) A: $(stat_of "$OUT/A.stats.0" period_us)" \
			"$(grep 'channel' "$CTLD_LOG" | tail -n 3)"
	fi
	# The emulated node's slurmd answers at once (ReturnToService): it
	# is usually back already; resume it if not.
	timeout 10 scontrol update nodename="$only_d" state=resume >/dev/null 2>&1 || true
else
	not_ok "D has a node of its own to fail" "D on $(nodes_of "$d" | tr '\n' ' ') state $(timeout 5 squeue -h -j "$d" -o %T)"
fi
if rerun_d && wait_period A 150000 15; then
	n=${#EVLAT[@]}
	t0=$(now_us)
	timeout 10 scontrol requeue "$d"
	if wait_period A 100000 10 && wait_period C 100000 10; then
		event_lat "$t0"; m=$EVMAX
		[ "$m" -le 5000 ] && ok "scontrol requeue D: A and C back on their own 100 ms period within 5 s (A's ranks: ${EVLAT[*]:$n} ms)" ||
			not_ok "requeue of D: A back on 100 ms within 5 s" "${EVLAT[*]:$n} ms"
	else
		not_ok "requeue of D: A and C back on their own period" "D=$(timeout 5 squeue -h -j "$d" -o %T) A: $(stat_of "$OUT/A.stats.0" period_us)"
	fi
	if rerun_d && wait_period A 150000 15 && wait_period C 150000 15; then
		ok "D runs again after its requeue: A and C back on the common 150 ms period"
	else
		not_ok "D runs again after its requeue: A and C on the common period" "D=$(timeout 5 squeue -h -j "$d" -o %T) A: $(stat_of "$OUT/A.stats.0" period_us)"
	fi
else
	not_ok "D runs again after the node failure: A on the common period" "D=$(timeout 5 squeue -h -j "$d" -o %T) A: $(stat_of "$OUT/A.stats.0" period_us)"
fi

# ---- kill -9 of slurmctld right after an update, inside the saver's gap.
# D and C end 0.1 s apart: A is re-solved twice (back to rotation with C,
# then alone: off), the second record inside the 250 ms gap after the
# first save; slurmctld is killed as soon as it has decided it.  Whatever
# reached the disk before the kill, no generation may reach A with values
# other than those the controller gives it, and A ends on exactly what
# the controller serves after the restart.  A generation decided before
# the kill but not yet in orrery_channel was never published (persist,
# then publish), so the next life may give its number to other values:
# the world can differ after the restart (Slurm's own state save may miss
# the cancels, a job killed as missing from its nodes may be requeued).
# Only a number that was on disk must keep its values.
nlog=$(wc -l <"$CTLD_LOG")
timeout 10 scancel "$d"
sleep 0.1
timeout 10 scancel "$c"
for _ in $(seq 200); do
	[ "$(tail -n +"$nlog" "$CTLD_LOG" | grep -c "channel: JobId=$a gen=")" -ge 2 ] && break
	sleep 0.01
done
cs_kill_ctld
decided_before=$(tail -n +"$nlog" "$CTLD_LOG" | grep -c "channel: JobId=$a gen=")
last_gen=$(tail -n +"$nlog" "$CTLD_LOG" | grep -o "channel: JobId=$a gen=[0-9]*" | tail -n 1 | sed 's/.*gen=//')
# A's newest generation on disk at the kill: what the restart builds on.
disk_gen=$(awk -v j="$a" '$1 == j { print $2 }' "$STATE/spool/ctld/orrery_channel" 2>/dev/null |
	sed -n 's/^ORRG1:gen=\([0-9]*\),.*/\1/p')
restart_ctld
# The resync after the start (3 s), the disk, the poller (1 s), the lead (2 s).
served="" ok_final=""
for _ in $(seq 100); do
	served=$(orrc "$a" gen)
	if [ -n "$served" ] && wait_gen A "$served" 0 2>/dev/null; then
		sleep 2	# nothing newer on its way
		[ "$(orrc "$a" gen)" = "$served" ] && wait_gen A "$served" 0 && { ok_final=1; break; }
	fi
	sleep 0.3
done
bad=""
sgate=$(orrc "$a" gate) speriod=$(orrc "$a" period_us)
# The controller's values for each generation of A, over both lives:
# the last decision of each (a generation given twice with other values
# is the bug this guards against).
grep -o "channel: JobId=$a gen=[0-9]* gate=[a-z]* period=[0-9]*us shift=[0-9]*us" "$CTLD_LOG" |
	sed 's/.*gen=\([0-9]*\) gate=\([a-z]*\) period=\([0-9]*\)us shift=\([0-9]*\)us/\1 \2 \3 \4/' >"$OUT/ctld.gens"
dup=$(sort -u "$OUT/ctld.gens" | awk -v d="${disk_gen:-0}" '{ n[$1]++ } END { for (g in n) if (n[g] > 1 && g + 0 <= d + 0) print g }')
[ -z "$dup" ] || bad="$bad controller gave gen(s) $dup (on disk: up to ${disk_gen:-none}) twice with different values"
redecided=$(sort -u "$OUT/ctld.gens" | awk -v d="${disk_gen:-0}" '{ n[$1]++ } END { for (g in n) if (n[g] > 1 && g + 0 > d + 0) print g }' | sort -n | tr '\n' ' ')
for r in 0 1 2 3 4; do
	f=$OUT/A.stats.$r
	[ "$(stat_of "$f" channel_gen)" = "$served" ] || bad="$bad rank$r:gen=$(stat_of "$f" channel_gen)/served=$served"
	[ "$(stat_of "$f" channel)" = "$sgate" ] || bad="$bad rank$r:channel=$(stat_of "$f" channel)/served=$sgate"
	[ "$sgate" = off ] || [ "$(stat_of "$f" period_us)" = "$speriod" ] || bad="$bad rank$r:period=$(stat_of "$f" period_us)/served=$speriod"
	# Applied generations of this rank: strictly increasing.
	grep -ho "rank $r: channel gen [0-9]* applied" "$OUT/A.out" | awk '{ print $5 }' >"$OUT/A.applied.$r"
	awk 'NR > 1 && $1 <= last { bad = 1 } { last = $1 } END { exit bad }' "$OUT/A.applied.$r" ||
		bad="$bad rank$r:applied $(tr '\n' ' ' <"$OUT/A.applied.$r")"
	# Each generation the rank received has the controller's values for it.
	grep -ho "rank $r: channel gen [0-9]* received: gate [a-z]*, period [0-9]* us, shift [0-9]* us" "$OUT/A.out" |
		awk '{ print $5, $8, $10, $13 }' | tr -d ',' >"$OUT/A.received.$r"
	while read -r g gt pe sh; do
		cv=$(awk -v g="$g" '$1 == g { v = $2 " " $3 " " $4 } END { print v }' "$OUT/ctld.gens")
		[ "$cv" = "$gt $pe $sh" ] || bad="$bad rank$r:gen$g=$gt/$pe/$sh,controller=${cv:-none}"
	done <"$OUT/A.received.$r"
done
if [ "${disk_gen:-0}" -ge "${last_gen:-0}" ]; then
	where="gen ${last_gen:-?} was on disk before the kill"
else
	where="gen ${disk_gen:-none} on disk at the kill, gen ${last_gen:-?} decided"
	[ -n "$redecided" ] && where="$where; never published, gen(s) ${redecided% } given other values after the restart"
fi
if [ -n "$ok_final" ] && [ -z "$bad" ]; then
	ok "kill -9 of slurmctld right after an update ($decided_before of A's decisions before the kill; $where): every generation A's ranks applied is unique and increasing ($(tr '\n' ' ' <"$OUT/A.applied.0")), each with the controller's values, and A ends on what the controller serves after the restart (gen $served, gate $sgate)"
else
	not_ok "kill -9 inside the saver's gap: no update lost or repeated" "final=${ok_final:-no} served=$served disk_gen=${disk_gen:-none} ($where)" "$bad" \
		"$(tail -n +"$nlog" "$CTLD_LOG" | grep -E 'channel|orrery_state|JobId=($a|$c|$d)[^0-9]' | tail -n 30)"
fi

[ -n "${pt1:-}" ] && [ "${pt1:-0}" -gt 0 ] && ok "while its gate was off A's iterations passed through without waiting ($pt1 phases)" ||
	not_ok "A's iterations passed through while its gate was off" "passthrough=${pt1:-none}"
# A first: C's end would re-align A once more while A ends.
gfinal=$(orrc "$a" gen)
timeout 10 scancel "$a"
cs_wait_job "$a" 60 >/dev/null
timeout 10 scancel "$c"
# Accounting: orrery-sacct shows how often A was re-aligned and its last gate.
SACCT_TOOL=$BUILD/contrib/sacct/orrery-sacct
for _ in $(seq 60); do
	line=$(timeout 20 "$SACCT_TOOL" -j "$a" -o jobid,realigned,lastgate --parsable --noheader 2>/dev/null | head -n 1)
	case $line in "$a|$gfinal|"*) break ;; esac
	sleep 0.5
done
case $line in
"$a|$gfinal|"*"("*")") ok "orrery-sacct: A re-aligned $gfinal times, last gate ${line##*|}" ;;
*) not_ok "orrery-sacct shows A's re-alignments and last gate" "got '$line'" ;;
esac
# learn= is off here: A ran about 51 ms an iteration on a 100 ms profile
# and its nodes reported nothing (select-orrery(8), LEARNING THE PERIOD).
rep=$(timeout 20 "$SACCT_TOOL" -j "$a" -o reported --parsable --noheader 2>/dev/null | head -n 1)
[ "$rep" = - ] && ! grep -q "learn:" "$CTLD_LOG" &&
	ok "learn= off: no report of A's measured iteration, nothing learned" ||
	not_ok "learn= off: nothing reported" "Reported: '$rep'" "$(grep 'learn:' "$CTLD_LOG" | head -n 3)"
# gate_stats=1: A was cancelled, so its tasks never wrote statistics at
# exit; with the live channel they rewrite them every 2 s, and the epilog
# publishes what the last rewrite held: all 5 tasks, gated.
for _ in $(seq 60); do
	line=$(timeout 20 "$SACCT_TOOL" -j "$a" -o jobid,gatenodes,gatetasks,gatephases --parsable --noheader 2>/dev/null | head -n 1)
	case $line in "$a|5|"*) break ;; esac
	sleep 0.5
done
case $line in
"$a|5|5/5|"[1-9]*) ok "orrery-sacct: cancelled job A's gate statistics from its 5 nodes, 5 of 5 tasks gated, ${line##*|} phases" ;;
*) not_ok "orrery-sacct shows cancelled job A's gate statistics from its 5 nodes" "got '$line'" ;;
esac

sorted() { printf '%s\n' "$@" | sort -n; }
med() { local s; s=($(sorted "$@")); echo "${s[$(( ${#s[@]} / 2 ))]}"; }
mx() { sorted "$@" | tail -n 1; }
[ ${#LAT[@]} -gt 0 ] &&
	echo "# update latency, scancel of the neighbour to switch (ms, ${#LAT[@]} ranks): median $(med "${LAT[@]}"), max $(mx "${LAT[@]}")"
[ ${#EVLAT[@]} -gt 0 ] &&
	echo "# update latency, node failure / requeue of a neighbour to switch (ms, ${#EVLAT[@]} rank-updates): median $(med "${EVLAT[@]}"), max $(mx "${EVLAT[@]}")"
[ ${#PUBLAT[@]} -gt 0 ] &&
	echo "# update latency, publish to switch (ms, ${#PUBLAT[@]} rank-updates, channel_lead_ms=2000 of it): median $(med "${PUBLAT[@]}"), max $(mx "${PUBLAT[@]}")"
true
