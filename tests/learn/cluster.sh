#!/bin/bash
# tests/learn/cluster.sh - learning the period inside Slurm (select-orrery(8)
# and spank-orrery(8), LEARNING THE PERIOD) on a real Slurm cluster with
# select/orrery_cons_tres (learn=0.02, the live channel on) and the SPANK
# plugin (gate_stats=1):
#   - job X's profile says 100 ms an iteration; its tasks compute 70 ms
#     and send one collective of 20 ms (90 ms).  Its batch host reports
#     the measured iteration in X's AdminComment (ORRM1:), slurmctld
#     models X at it, re-solves X's link group (shared ungated while X
#     was modelled at 100 ms beside Y's 90 ms, now rotated) and publishes
#     X's new gate; every rank applies it and X runs gated at its own
#     pace, not held to the profile's 100 ms;
#   - job Y beside X runs as its profile says (90 ms): never reported;
#   - X's iteration changes again (80 ms of compute from iteration 300):
#     its batch host reports once every window it keeps shows it, within
#     a minute of X's first retime; slurmctld holds that report back
#     until the minute is up, then takes it (no report is sent twice);
#   - a malformed report an operator writes is refused with one line and
#     changes nothing (no user can write one: AdminComment is the
#     operators', which tests/channel/cluster.sh checks);
#   - a requeued job starts without its earlier run's report;
#   - the channel's record in X's AdminComment survives the reports;
#   - orrery-sacct's Reported column shows X's reports.
#   - two jobs whose iterations vary by more than learn= (their profiles
#     right): the batch host says once that a report may be that
#     variation, not the job's pace.
#
# Usage: tests/learn/cluster.sh [--build-dir DIR] [--state-dir DIR]
#                               [--port-base P] [--keep]
# Run as root.  Starts and always stops its own cluster.  Last line:
# "N passed, M failed".
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=cluster.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-learn
PORT_BASE=19850
NODES=8

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
cs_live_gate_libs
case $("$LOOP" -h 2>&1) in *"-L iter"*"-J jitter"*) ;; *)
	echo "# $LOOP has no -L or -J (built before this suite): make tests/runtime/nccl_train_loop"; echo "0 passed, 1 failed"; exit 1 ;;
esac
cs_trap
printf '[orrery]\nmode=enforce\nnode_link=100Gbps\nchannel_lead_ms=2000\nlearn=0.02\n[uplinks]\nlevel0=100Gbps\n' \
	>"$STATE.orrery.conf"

cs_up learn "select orrery, live channel, learn=0.02" --leaf-size 4 --gpus-per-node 8 \
	--spank-plugin "$STATE.lib/spank_orrery.so" --select orrery --orrery-conf "$STATE.orrery.conf" \
	--spank-args "verbose=1 gate_library=$STATE.lib/liborrery-nccl.so channel_poll_ms=1000 gate_stats=1"
cs_unset_orrery_env
CTLD_LOG=$STATE/log/slurmctld.log

# The task: 70 ms of compute and one collective of 20 MB (20 ms on the
# fake NCCL's 8 Gb/s) per iteration, N of them: 90 ms an iteration; more
# of nccl_train_loop's options after N.
{
	echo '#!/bin/bash'
	echo 'tag=$1 n=$2; shift 2'
	echo "export ORRERY_RUNTIME_STATS=\"$OUT/\$tag.stats.%r\" ORRERY_RUNTIME_VERBOSE=1 LD_LIBRARY_PATH=$STATE.lib"
	echo "exec $STATE.lib/nccl_train_loop -n \$n -c 70000 -k 1 -b 20000000 -o \"$OUT/\$tag.loop.\$SLURM_PROCID\" \"\$@\""
} >"$OUT/task.sh"
chmod 755 "$OUT/task.sh"

submit() {	# TAG ITERATIONS PROFILE [LOOP OPTIONS]: job id
	timeout 20 sbatch --parsable -J "ln-$1" -N5 -n5 -c1 --comm-profile="$3" --comm-gate=auto \
		-o "$OUT/$1.out" --wrap "srun $OUT/task.sh $1 $2 ${4:-}"
}
running() { [ "$(timeout 5 squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
wait_running() { local i; for i in $(seq 150); do running "$1" && return 0; sleep 0.2; done; return 1; }
# Job $1's AdminComment: its orrery tokens, space-separated.
comment() { timeout 10 scontrol show job "$1" 2>/dev/null | grep -o 'ORR[A-Z0-9]*:[^ ]*' | tr '\n' ' ' | sed 's/ $//'; }
# Key $3 of the $2 token (ORRG1, ORRM1) in job $1's AdminComment.
token_key() {
	comment "$1" | tr ' ' '\n' | sed -n "s/^$2:\(.*\)/\1/p" | tr ',' '\n' | sed -n "s/^$3=//p"
}
stat_of() { sed -n "s/^$2=//p" "$1" 2>/dev/null; }
# Median of the intervals between rank 0's releases of iterations $2..$3
# of loop file prefix $1, in us.
iter_median() {
	awk -v a="$2" -v b="$3" '$3 == 0 && $2 >= a && $2 <= b { r[$2] = $6 }
		END { n = 0; for (i = a + 1; i <= b; i++) if ((i in r) && ((i - 1) in r)) d[n++] = r[i] - r[i - 1];
		      if (!n) { print 0; exit } asort(d); print d[int((n + 1) / 2)] }' "$1.loop.0"
}

# ------------------------------------------------------------------ tests
# Two jobs of 5 nodes on leaves of 4 (one core each: they share nodes),
# so both cross the leaves' uplinks: X's profile 100 ms, Y's 90 ms, 20 ms
# of traffic each at 80 Gb/s on 100 Gb/s uplinks.
# Y first: X starts gated beside it, on its profile's 100 ms.
y=$(submit Y 700 'period=90ms;up=0ms+20ms@80Gbps')
wait_running "$y"
# X: 90 ms an iteration, from iteration 300 (about 28 s in) 100 ms.
x=$(submit X 1100 'period=100ms;up=0ms+20ms@80Gbps' '-L 300:80000')
if wait_running "$x" && wait_running "$y"; then
	ok "jobs X ($x) and Y ($y) run: $(timeout 5 squeue -h -j "$x,$y" -o '%i:%N' | tr '\n' ' ')"
else
	not_ok "jobs X and Y run" "$(tail -n 5 "$OUT/X.out" "$OUT/Y.out" 2>/dev/null)"; exit 1
fi
grep -q "learn=0.02" "$CTLD_LOG" && ok "slurmctld says learn=0.02 at its start" ||
	not_ok "slurmctld says learn=0.02" "$(grep 'select/orrery: mode=' "$CTLD_LOG" | tail -n 1)"

# X's batch host reports twice (two windows of 8 iterations, about 2 s),
# the controller scans every 5 s: the retime within 30 s of X's start.
retimed=""
for _ in $(seq 150); do
	retimed=$(grep -o "learn: JobId=$x modelled at its measured iteration ([0-9]* us" "$CTLD_LOG" | head -n 1)
	[ -n "$retimed" ] && break
	sleep 0.2
done
meas=$(echo "$retimed" | sed -n 's/.*(\([0-9]*\) us/\1/p')
if [ -n "$meas" ] && [ "$meas" -ge 89000 ] && [ "$meas" -le 96000 ]; then
	ok "X modelled at its measured iteration: $meas us (profile 100 ms, tasks 70 ms of compute and 20 ms of collective; report $(token_key "$x" ORRM1 seq))"
else
	not_ok "X modelled at its measured iteration (89-96 ms)" "log: ${retimed:-none}" "AdminComment: $(comment "$x")" \
		"$(grep -h 'learn' "$OUT/X.out" "$STATE"/log/slurmd-*.log 2>/dev/null | tail -n 5)"
fi

# The new gate: on, at a period within 2 % of the measurement, applied by
# every rank of X.
sleep 4	# channel_lead_ms (2 s) and a poll (1 s)
gp=$(token_key "$x" ORRG1 period_us) gg=$(token_key "$x" ORRG1 gen) gon=$(token_key "$x" ORRG1 gate)
bad=""
for r in 0 1 2 3 4; do
	f=$OUT/X.stats.$r
	[ "$(stat_of "$f" channel_gen)" = "$gg" ] || bad="$bad rank$r:gen=$(stat_of "$f" channel_gen)"
	[ "$(stat_of "$f" period_us)" = "$gp" ] || bad="$bad rank$r:period=$(stat_of "$f" period_us)"
done
if [ "$gon" = on ] && [ -n "$meas" ] && [ -n "$gp" ] &&
	[ $(( (gp > meas ? gp - meas : meas - gp) * 50 )) -le "$meas" ] && [ -z "$bad" ]; then
	ok "X's new gate published and applied on its 5 ranks: gen $gg, period $gp us"
else
	not_ok "X's new gate (period within 2 % of $meas us) applied on every rank" \
		"ORRG1: gate=$gon period_us=$gp gen=$gg" "$bad"
fi

# What X's user sees: the gate now on X (rotated with Y, whose period
# is X's own again) holds it to its measured iteration, not to its
# profile's 100 ms, which a gate on the profile would.  (Before the
# retime the two periods, 100 and 90 ms, could not be rotated apart and
# the group shared the links ungated.)
for _ in $(seq 100); do
	last=$(awk '$3 == 0 { n = $2 } END { print n + 0 }' "$OUT/X.loop.0" 2>/dev/null)
	[ "${last:-0}" -ge 40 ] && break
	sleep 0.2
done
sleep 3
last=$(awk '$3 == 0 { n = $2 } END { print n + 0 }' "$OUT/X.loop.0")
before=$(iter_median "$OUT/X" 2 12)
after=$(iter_median "$OUT/X" $(( last - 20 )) "$last")
gated=$(( $(stat_of "$OUT/X.stats.0" phases) - $(stat_of "$OUT/X.stats.0" passthrough) ))
if [ -n "$meas" ] && [ "$after" -gt 0 ] && [ $(( after * 100 )) -le $(( meas * 105 )) ] &&
	[ "$after" -lt 95000 ] && [ "$gated" -gt 0 ]; then
	ok "X gated on its measured iteration runs at it: median $after us (measured $meas us, profile 100000 us; $before us before, ungated)"
else
	not_ok "X gated on its measured iteration runs at it (at most 5 % above $meas us, below 95 ms)" \
		"median $after us over iterations $((last - 20))-$last, $before us over 2-12; gated phases on rank 0: $gated"
fi

# Y runs as its profile says: no report, its model untouched.
if [ -z "$(token_key "$y" ORRM1 seq)" ] && ! grep -q "learn: JobId=$y " "$CTLD_LOG"; then
	ok "Y, at its profile's period, was never reported nor retimed"
else
	not_ok "Y never reported" "AdminComment: $(comment "$y")" "$(grep "learn: JobId=$y " "$CTLD_LOG" | head -n 3)"
fi

# An operator's malformed report: one line, nothing changes.
before_gen=$(token_key "$y" ORRG1 gen)
nlog=$(wc -l <"$CTLD_LOG")
timeout 10 scontrol update jobid="$y" AdminComment="$(comment "$y") ORRM1:seq=9,iter_us=50000,env=LD_PRELOAD" >/dev/null 2>&1
sleep 7
said=$(tail -n +"$nlog" "$CTLD_LOG" | grep -c "learn: JobId=$y: malformed ORRM1: report")
if [ "$said" = 1 ] && ! tail -n +"$nlog" "$CTLD_LOG" | grep -q "learn: JobId=$y modelled" &&
	[ "$(token_key "$y" ORRG1 gen)" = "$before_gen" ]; then
	ok "a malformed report is refused in one line and changes nothing"
else
	not_ok "a malformed report refused in one line" "lines: $said" "$(tail -n +"$nlog" "$CTLD_LOG" | grep learn | head -n 3)"
fi
# The channel's record stays in X's AdminComment beside the reports.
if [ -n "$(token_key "$x" ORRG1 gen)" ] && [ -n "$(token_key "$x" ORR1 period_us)" ]; then
	ok "X's AdminComment keeps ORR1: and the channel's ORRG1: beside ORRM1:"
else
	not_ok "X's AdminComment keeps its records" "$(comment "$x")"
fi
# A requeue: the report left in AdminComment by a job's earlier run (Y's
# malformed one) is removed at its new start, so that the new run's
# reports, numbered from 1 again, are its own.  (A requeued job waits out
# the credential window before it may start again: StartTime=now lets it,
# but slurmd then does not run the prolog again, so this run's tasks are
# not gated: only the controller's side is checked here.)
timeout 10 scontrol requeue "$y"
for _ in $(seq 150); do
	running "$y" && break
	[ "$(timeout 5 squeue -h -j "$y" -o %T 2>/dev/null)" = PENDING ] &&
		timeout 5 scontrol update jobid="$y" StartTime=now >/dev/null 2>&1
	sleep 0.2
done
if wait_running "$y" && [ -n "$(token_key "$y" ORR1 period_us)" ] && [ -z "$(token_key "$y" ORRM1 seq)" ] &&
	! comment "$y" | grep -q ORRM1; then
	ok "requeued Y: the report its earlier run left in AdminComment is gone at its new start"
else
	not_ok "requeued Y starts without its earlier run's report" "AdminComment: $(comment "$y")"
fi
# X's iteration changed again at iteration 300 (100 ms from then on).
# Its batch host reports once the four windows it keeps all show it,
# well within a minute of X's first retime; the controller holds that
# report back until the minute is up and takes it then: X is retimed by
# its second report, which was not sent again in between.
ctime() {	# the time of slurmctld's log line $1, in seconds
	date -d "$(echo "$1" | sed -n 's/^\[\([^].]*\).*/\1/p' | tr T ' ')" +%s 2>/dev/null
}
second=""
for _ in $(seq 600); do
	second=$(grep "learn: JobId=$x modelled at its measured iteration" "$CTLD_LOG" | sed -n 2p)
	[ -n "$second" ] && break
	sleep 0.2
done
first=$(grep "learn: JobId=$x modelled at its measured iteration" "$CTLD_LOG" | head -n 1)
meas2=$(echo "$second" | sed -n 's/.*iteration (\([0-9]*\) us, report \([0-9]*\)).*/\1/p')
rep2=$(echo "$second" | sed -n 's/.*iteration (\([0-9]*\) us, report \([0-9]*\)).*/\2/p')
gap=$(( $(ctime "$second" || echo 0) - $(ctime "$first" || echo 0) ))
if [ -n "$meas2" ] && [ "$meas2" -ge 97000 ] && [ "$meas2" -le 106000 ] && [ "$rep2" = 2 ] &&
	[ "$gap" -ge 59 ] && [ "$(token_key "$x" ORRM1 seq)" = 2 ]; then
	ok "X's longer iteration reported within a minute of its retime, held back and taken $gap s after it: $meas2 us, report 2 of 2"
else
	not_ok "X retimed again to about 100 ms by its second report, at least a minute after the first retime" \
		"second retime: ${second:-none}" "first: $first" "AdminComment: $(comment "$x")" \
		"$(grep -h 'learn: job' "$OUT/X.out" "$STATE"/log/slurmd-*.log 2>/dev/null | tail -n 4)"
fi
timeout 10 scancel "$x" "$y"
for j in "$x" "$y"; do cs_wait_job "$j" 60 >/dev/null; done
# Accounting: orrery-sacct shows what X's batch host reported, and no
# report for Y.
SACCT_TOOL=$BUILD/contrib/sacct/orrery-sacct
for _ in $(seq 60); do
	line=$(timeout 20 "$SACCT_TOOL" -j "$x,$y" -o jobid,reported,lastgate --parsable --noheader 2>/dev/null | sort | tr '\n' ' ')
	case $line in *"$x|"[0-9]*"ms("[0-9]*")|"*) break ;; esac
	sleep 0.5
done
xr=$(echo "$line" | tr ' ' '\n' | sed -n "s/^$x|\([^|]*\)|.*/\1/p")
yr=$(echo "$line" | tr ' ' '\n' | sed -n "s/^$y|\([^|]*\)|.*/\1/p")
case $xr in
9[7-9].*"ms(2)"|10[0-6].*"ms(2)")
	if [ "$yr" = - ]; then
		ok "orrery-sacct: X reported $xr (newest window, reports); Y none"
	else
		not_ok "orrery-sacct: Y reported nothing" "got '$line'"
	fi ;;
*) not_ok "orrery-sacct shows X's reported iteration" "got '$line'" ;;
esac

# Iterations that vary by more than learn=: two jobs whose profiles are
# right (90 ms) but whose compute varies 70 +- 9 ms from one iteration to
# the next, rotated apart as X and Y were.  The shortest of a window sits
# several percent below their pace by that alone, more than 0.02, so the
# batch host reports it; it says once that the job's IterRange is above
# learn= and the report may be that variation (orrery.conf(5)).
z1=$(submit Z1 240 'period=90ms;up=0ms+20ms@80Gbps' '-J 9000')
wait_running "$z1"
z2=$(submit Z2 240 'period=90ms;up=0ms+20ms@80Gbps' '-J 9000')
said=""
if wait_running "$z2"; then
	for _ in $(seq 200); do
		said=$(grep -h -E "learn: job ($z1|$z2): its iterations vary by [0-9.]+% \(IterRange\), more than learn=0.02" \
			"$STATE"/log/slurmd-*.log 2>/dev/null | head -n 1)
		[ -n "$said" ] && break
		sleep 0.2
	done
fi
vary=$(echo "$said" | sed -n 's/.*vary by \([0-9]*\)\.[0-9]*%.*/\1/p')
if [ -n "$vary" ] && [ "$vary" -ge 3 ] && [ "$vary" -le 40 ]; then
	ok "jobs whose compute varies +-9 ms: the batch host says their IterRange ($vary %) is above learn=0.02"
else
	not_ok "the batch host says a varying job's IterRange is above learn=0.02" "line: ${said:-none}" \
		"AdminComment: $(comment "$z1") / $(comment "$z2")" \
		"$(grep -h "learn: job \($z1\|$z2\)" "$STATE"/log/slurmd-*.log 2>/dev/null | tail -n 3)"
fi
timeout 10 scancel "$z1" "$z2"
for j in "$z1" "$z2"; do cs_wait_job "$j" 60 >/dev/null; done
true
