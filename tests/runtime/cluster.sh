#!/bin/bash
# cluster.sh - the zero-code-change NCCL path end to end, on a real Slurm
# 22.05 cluster on this machine (contrib/cluster/orrery-cluster):
#
#   srun --comm-profile=... --comm-gate=auto nccl_train_loop
#
# The SPANK plugin's stand-in controller (test_controller=1) assigns the
# job its slots (period = the profile's 100 ms, shift = a quarter period,
# epoch = submission); the prolog relays them; each task gets ORRERY_*,
# ORRERY_PHASE_OFFSET_US and the admin's liborrery-nccl.so in LD_PRELOAD;
# the training-like loop over the stand-in libnccl then releases its
# collectives on the job's slots.  The cluster's plugstack sets
# gate_margin=1 (spank-orrery(8)): every task gets ORRERY_GATE_MARGIN_PPM
# and its slots are the grid stretched by 1 % about the epoch (period
# 101 ms).  Stated tolerance (releases.awk): at
# least 80% of the iterations' first collectives within 10 ms after their
# slot (period/10, the gate's own late tolerance), at most 20% anomalous
# (half a period late, on the previous slot, a skipped slot), and 80% of
# the other collectives at once.
#
# Usage: tests/runtime/cluster.sh [--build-dir DIR] [--state-dir DIR]
#                                 [--port-base P] [--keep]
# Run as root.  Starts and always stops its own cluster.  Last line:
# "N passed, M failed".
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=cluster.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-rt-cluster
PORT_BASE=19000
NODES=2

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
PLUGIN=$BUILD/plugins/spank/.libs/spank_orrery.so
GATE=$BUILD/contrib/runtime/nccl/.libs/liborrery-nccl.so
RTLIB=$BUILD/contrib/runtime/.libs
LOOP=$BUILD/tests/runtime/nccl_train_loop
PROFILE='period=100ms;up=5ms+10ms@10Gbps'
PUBLISHER=$BUILD/contrib/inventory/orrery-counters-publish
SACCT_TOOL=$BUILD/contrib/sacct/orrery-sacct
CAPTURE=$BUILD/contrib/capture/orrery-capture
cs_require "$PLUGIN" "$GATE" "$LOOP" "$PUBLISHER" "$SACCT_TOOL" "$CAPTURE"
cs_trap

cs_up rt "stand-in controller" --leaf-size 2 --gpus-per-node 8 --spank-plugin "$PLUGIN" \
	--select cons_tres --spank-args "test_controller=1 verbose=1 gate_library=$GATE gate_stats=1 counters_publisher=$PUBLISHER gate_margin=1"
cs_unset_orrery_env
# liborrery-runtime.so.0 from the build tree (installed, it is on the
# loader's path); srun passes the environment on.
export LD_LIBRARY_PATH=$RTLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# The task: its environment, then the loop (65 ms compute + 4 x 1 MB),
# 10 iterations or $2; recording its collectives when $3 is given.
cat >"$OUT/task.sh" <<EOF
#!/bin/bash
tag=\$1
env | grep -E '^(ORRERY_[A-Z_]+|LD_PRELOAD)=' | sort >"$OUT/\$tag.env.\$SLURM_PROCID"
export ORRERY_RUNTIME_STATS="$OUT/\$tag.stats.%r" ORRERY_RUNTIME_VERBOSE=1
[ -z "\${3:-}" ] || export ORRERY_RECORD="$OUT/\$tag.rec" ORRERY_RECORD_SYNC=1
exec "$LOOP" -n \${2:-10} -c 65000 -k 4 -o "$OUT/\$tag.loop.\$SLURM_PROCID"
EOF
chmod 755 "$OUT/task.sh"

envval() { sed -n "s/^$2=//p" "$1"; }

# ------------------------------------------------------------------ tests
t_gated() {
	local rc r problems="" res period epoch shift offset envf ph
	timeout 120 srun -J rt-gated -N2 --ntasks-per-node=1 --comm-profile="$PROFILE" \
		--comm-gate=auto "$OUT/task.sh" gated >"$OUT/gated.out" 2>"$OUT/gated.err"
	rc=$?
	[ $rc -eq 0 ] || { not_ok "srun --comm-gate=auto job runs" "rc=$rc" "$(tail -n 5 "$OUT/gated.err")"; return; }
	for r in 0 1; do
		envf=$OUT/gated.env.$r
		[ -f "$envf" ] || { problems="$problems rank$r:no_env"; continue; }
		case $(envval "$envf" LD_PRELOAD) in
		"$GATE"*) ;;
		*) problems="$problems rank$r:LD_PRELOAD='$(envval "$envf" LD_PRELOAD)'" ;;
		esac
		[ "$(envval "$envf" ORRERY_PHASE_OFFSET_US)" = 5000 ] || problems="$problems rank$r:offset"
		[ "$(envval "$envf" ORRERY_PHASE_SPAN_US)" = 10000 ] || problems="$problems rank$r:span"
		[ "$(envval "$envf" ORRERY_PHASES_US)" = 0+10000 ] || problems="$problems rank$r:phases"
		[ "$(envval "$envf" ORRERY_GATE_MARGIN_PPM)" = 10000 ] || problems="$problems rank$r:margin"
	done
	[ -z "$problems" ] && ok "tasks on both nodes: the admin's interposer first in LD_PRELOAD, ORRERY_PHASE_OFFSET_US=5000, ORRERY_PHASE_SPAN_US=10000, ORRERY_PHASES_US=0+10000, ORRERY_GATE_MARGIN_PPM=10000" ||
		not_ok "task environment for --comm-gate=auto" $problems "$(cat "$OUT"/gated.env.0 2>/dev/null)"

	envf=$OUT/gated.env.0
	period=$(envval "$envf" ORRERY_PERIOD_US)
	epoch=$(envval "$envf" ORRERY_EPOCH_US)
	shift=$(envval "$envf" ORRERY_SHIFT_US)
	offset=$(envval "$envf" ORRERY_PHASE_OFFSET_US)
	# gate_margin=1: the grid stretched by 1 % about the epoch
	# (orrery-runtime(7), MARGIN).
	local gp=$((period + (period * 10000 + 500000) / 1000000)) s0=$(( (shift + offset) % period ))
	local base=$((epoch + s0 + (s0 * 10000 + 500000) / 1000000))
	for r in 0 1; do
		res=$(awk -v period="$gp" -v base="$base" -v tol=$((gp / 10)) \
			-f "$HERE/releases.awk" "$OUT/gated.loop.$r" 2>&1)
		# 10 iterations: 10 phases, up to 2 more where a task kept off
		# the CPU past the phase gap opened one (as in nccl.sh).
		ph=$(sed -n 's/^phases=//p' "$OUT/gated.stats.$r" 2>/dev/null)
		[ -n "$ph" ] && [ "$ph" -ge 10 ] && [ "$ph" -le 12 ] ||
			res="$res
problem: stats file $OUT/gated.stats.$r: phases=${ph:-none}, want 10 (at most 12)"
		if grep -q '^problem' <<<"$res"; then
			not_ok "rank $r: collectives released on the job's slots (period $period + 1 %, shift $shift, offset $offset)" \
				$(echo "$res" | head -n 6 | tr ' ' '_') "$(grep orrery "$OUT/gated.err" | head -n 4)"
		else
			ok "rank $r: collectives released on the job's slots (period $period us + 1 % = $gp us, shift $shift us, offset $offset us): $(echo "$res" | tail -n 1)"
		fi
	done
}

t_default_off() {
	local rc res
	timeout 120 srun -J rt-off -N1 --comm-profile="$PROFILE" \
		"$OUT/task.sh" off >"$OUT/off.out" 2>"$OUT/off.err"
	rc=$?
	res=$(awk -v period=100000 -v tol=10000 -v gated=0 -f "$HERE/releases.awk" "$OUT/off.loop.0" 2>&1)
	if [ $rc -eq 0 ] && ! grep -q '^LD_PRELOAD=' "$OUT/off.env.0" &&
	   grep -q '^ORRERY_SHIFT_US=' "$OUT/off.env.0" && ! grep -q problem <<<"$res" &&
	   [ ! -e "$OUT/off.stats.0" ]; then
		ok "without --comm-gate (site default off): no LD_PRELOAD, the loop runs ungated"
	else
		not_ok "without --comm-gate: not gated" "rc=$rc" "$(cat "$OUT/off.env.0" 2>/dev/null)" "$res"
	fi
}

t_bad_option() {
	local err rc
	err=$(timeout 20 srun -J rt-bad -N1 --comm-profile="$PROFILE" --comm-gate=on true 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -q "orrery: --comm-gate=on: accepted values are auto and off" <<<"$err" &&
	   [ -z "$(timeout 5 squeue -h -n rt-bad -o %i)" ]; then
		ok "--comm-gate=on is rejected by srun with a clear message"
	else
		not_ok "--comm-gate=on is rejected by srun with a clear message" "rc=$rc" "$err"
	fi
}

# sbatch --comm-gate=auto: the option reaches the steps of the batch job.
t_sbatch() {
	local id st deadline res
	id=$(timeout 20 sbatch --parsable -J rt-sbatch -N2 --ntasks-per-node=1 --comm-profile="$PROFILE" --comm-gate=auto \
		-o "$OUT/sbatch.log" --wrap "srun $OUT/task.sh sbatch" 2>"$OUT/sbatch.err")
	[ -n "$id" ] || { not_ok "sbatch --comm-gate=auto submitted" "$(cat "$OUT/sbatch.err")"; return; }
	SBATCH_ID=$id
	deadline=$(( $(date +%s) + 90 ))
	while :; do
		st=$(timeout 5 scontrol -o show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
		case $st in ''|PENDING|CONFIGURING|RUNNING|COMPLETING) ;; *) break ;; esac
		[ "$(date +%s)" -lt "$deadline" ] || break
		sleep 1
	done
	case $(envval "$OUT/sbatch.env.0" LD_PRELOAD 2>/dev/null) in
	"$GATE"*)
		[ "$(sed -n 's/^phases=//p' "$OUT/sbatch.stats.0" 2>/dev/null)" = 10 ] &&
			ok "sbatch --comm-gate=auto: the job's srun step is gated (10 phases)" ||
			not_ok "sbatch --comm-gate=auto: the step's runtime counted 10 phases" "$(cat "$OUT/sbatch.stats.0" 2>/dev/null)" ;;
	*) not_ok "sbatch --comm-gate=auto: the job's srun step gets the interposer" "state=$st" \
		"$(cat "$OUT/sbatch.env.0" 2>/dev/null)" "$(tail -n 3 "$OUT/sbatch.log" 2>/dev/null)" ;;
	esac
}

# One node: no network phase, so no gate, and nothing on the terminal;
# the tasks say why (ORRERY_GATE=none:single-node).
t_single_node() {
	local rc
	timeout 120 srun -J rt-one -N1 --comm-profile="$PROFILE" --comm-gate=auto \
		"$OUT/task.sh" one >"$OUT/one.out" 2>"$OUT/one.err"
	rc=$?
	if [ $rc -eq 0 ] && [ "$(envval "$OUT/one.env.0" ORRERY_GATE)" = none:single-node ] &&
	   ! grep -q '^LD_PRELOAD=' "$OUT/one.env.0" && ! grep -qi 'error' "$OUT/one.err"; then
		ok "a one-node job with --comm-gate=auto: ORRERY_GATE=none:single-node, no LD_PRELOAD, no error line"
	else
		not_ok "a one-node job: ORRERY_GATE=none:single-node, no LD_PRELOAD, no error line" "rc=$rc" \
			"$(cat "$OUT/one.env.0" 2>/dev/null)" "$(head -n 5 "$OUT/one.err")"
	fi
}

# gate_stats=1: the gate's own statistics reach accounting, summed over
# the job's tasks, one ORRS1: record per node (spank-orrery(8)).
# orrery-sacct COLS for job $1, once its $2 nodes' records are there (60 s).
sacct_gate() {
	local id=$1 nodes=$2 cols=$3 line
	for _ in $(seq 120); do
		line=$(timeout 20 "$SACCT_TOOL" -j "$id" -o "jobid,gatenodes,$cols" --parsable --noheader 2>/dev/null | head -n 1)
		case $line in "$id|$nodes|"*) break ;; esac
		sleep 0.5
	done
	echo "$line"
}
gate_dirs_left() { ls -d "$STATE"/spool/*/orrery/"$1".gate 2>/dev/null; }

t_gate_stats_sacct() {
	local line ph want
	[ -n "${SBATCH_ID:-}" ] || { not_ok "orrery-sacct: gate statistics of the sbatch job" "no sbatch job"; return; }
	line=$(sacct_gate "$SBATCH_ID" 2 gatetasks,gatephases,onslot,gatemissed,gatewait,rearmed,gateoff)
	# The user's own statistics files of the same tasks: what sacct must sum.
	ph=$(( $(sed -n 's/^phases=//p' "$OUT/sbatch.stats.0" 2>/dev/null || echo 0) + \
	       $(sed -n 's/^phases=//p' "$OUT/sbatch.stats.1" 2>/dev/null || echo 0) ))
	want="$SBATCH_ID|2|2/2|$ph|"
	case $line in
	"$want"*%"|"*s"|"*"|0")
		if [ -z "$(gate_dirs_left "$SBATCH_ID")" ]; then
			ok "orrery-sacct: the sbatch job's gate statistics from both nodes, 2 of 2 tasks gated, $ph phases as the tasks counted them ($line); the epilog removed the job's directories"
		else
			not_ok "the epilog removes the job's statistics directories" "$(gate_dirs_left "$SBATCH_ID")"
		fi ;;
	*) not_ok "orrery-sacct: the sbatch job's gate statistics (want '$want...')" "got '$line'" \
		"$(cat "$STATE"/spool/*/orrery/publish.log 2>/dev/null | tail -n 4)" ;;
	esac
	# Iteration: the longer of the two tasks' shortest work per window
	# (10 phases: one window of 8 works each), as their files say.
	local w0 w1 iw
	w0=$(sed -n 's/^min_work_us=//p' "$OUT/sbatch.stats.0" 2>/dev/null)
	w1=$(sed -n 's/^min_work_us=//p' "$OUT/sbatch.stats.1" 2>/dev/null)
	iw=$(( ${w0:-0} > ${w1:-0} ? ${w0:-0} : ${w1:-0} ))
	line=$(sacct_gate "$SBATCH_ID" 2 iteration)
	want=$(printf '%s|2|%d.%03dms' "$SBATCH_ID" $((iw / 1000)) $((iw % 1000)))
	if [ "$iw" -gt 0 ] && [ "$line" = "$want" ]; then
		ok "orrery-sacct: the sbatch job's Iteration is its tasks' measured work ($line; files: ${w0:-none}, ${w1:-none} us)"
	else
		not_ok "orrery-sacct: the sbatch job's Iteration from its tasks' min_work_us (want '$want')" \
			"got '$line'" "files: min_work_us ${w0:-none}, ${w1:-none}"
	fi
	# IterRange: the larger of the two tasks' range_us, over Iteration.
	local r0 r1
	r0=$(sed -n 's/^range_us=//p' "$OUT/sbatch.stats.0" 2>/dev/null)
	r1=$(sed -n 's/^range_us=//p' "$OUT/sbatch.stats.1" 2>/dev/null)
	line=$(sacct_gate "$SBATCH_ID" 2 iterrange)
	want=$(awk -v id="$SBATCH_ID" -v a="${r0:-0}" -v b="${r1:-0}" -v w="$iw" \
		'BEGIN { r = a > b ? a : b; if (r > 0 && w > 0) printf "%s|2|%.1f%%", id, 100 * r / w; else printf "%s|2|-", id }')
	if [ "$iw" -gt 0 ] && [ -n "$r0$r1" ] && [ "$line" = "$want" ]; then
		ok "orrery-sacct: the sbatch job's IterRange is its most irregular task's range over Iteration ($line; files: ${r0:-none}, ${r1:-none} us)"
	else
		not_ok "orrery-sacct: the sbatch job's IterRange from its tasks' range_us (want '$want')" \
			"got '$line'" "files: range_us ${r0:-none}, ${r1:-none}"
	fi
}

# The one-node job's task had no slot, so it used no gate: its node still
# publishes a record (tasks=0), so a node without one is a lost record.
t_gate_stats_idle() {
	local id line
	id=$(timeout 20 sacct -n -X -P --name rt-one -o jobid 2>/dev/null | tail -n 1)
	[ -n "$id" ] || { not_ok "orrery-sacct: the one-node job's gate statistics" "no rt-one job in sacct"; return; }
	line=$(sacct_gate "$id" 1 gatetasks,gatephases,statsmissing)
	if [ "$line" = "$id|1|0/0|-|-" ]; then
		ok "orrery-sacct: a node where no task used the gate still has its record (0/0 tasks, nothing missing: $line)"
	else
		not_ok "orrery-sacct: the one-node job's record says no task was gated (want '$id|1|0/0|-|-')" "got '$line'" \
			"$(cat "$STATE"/spool/*/orrery/publish.log 2>/dev/null | tail -n 4)"
	fi
}

# Cancelled while it runs (the time limit alike): SIGTERM ends the tasks
# without atexit, so the statistics the job's accounting gets are the ones
# each runtime rewrote from its phases (every 2 s, orrery-runtime(7)).
# Without them the nodes publish tasks=0 (0/0).  The tasks also record their collectives:
# the timelines, written as they go, still give orrery-capture the job's
# gated period, 101 ms with gate_margin=1 (a recording run need not end
# by itself).
t_gate_stats_killed() {
	local id line st files deadline ph
	id=$(timeout 20 sbatch --parsable -J rt-killed -N2 --ntasks-per-node=1 --comm-profile="$PROFILE" \
		--comm-gate=auto -o "$OUT/killed.log" --wrap "srun $OUT/task.sh killed 100000 rec" 2>"$OUT/killed.err")
	[ -n "$id" ] || { not_ok "sbatch of the job to cancel" "$(cat "$OUT/killed.err")"; return; }
	deadline=$(( $(date +%s) + 90 ))
	while :; do	# both tasks have rewritten their statistics once (2 s in)
		files=$(ls "$STATE"/spool/*/orrery/"$id".gate/*.stats 2>/dev/null | wc -l)
		[ "$files" -ge 2 ] || [ "$(date +%s)" -ge "$deadline" ] && break
		sleep 0.5
	done
	sleep 4		# two more rewrites
	timeout 10 scancel "$id"
	line=$(sacct_gate "$id" 2 gatetasks,gatephases,statsmissing)
	st=$(timeout 10 sacct -n -X -j "$id" -o state%20 2>/dev/null | tr -d ' ')
	ph=$(cut -d'|' -f4 <<<"$line")
	case $line in
	"$id|2|2/2|"*"|-")
		if [ "$ph" -ge 10 ] && [ "${st#CANCELLED}" != "$st" ]; then
			ok "a gated job cancelled while it runs: both tasks in its accounting, $ph phases from the statistics they rewrote while running ($line)"
		else
			not_ok "the cancelled job's tasks counted with their phases (want >= 10, state CANCELLED)" "got '$line' state=$st"
		fi ;;
	*) not_ok "orrery-sacct: the cancelled job's gate statistics (want '$id|2|2/2|PHASES|-')" "got '$line' state=$st files=$files" \
		"$(cat "$STATE"/spool/*/orrery/publish.log 2>/dev/null | tail -n 4)" ;;
	esac
	if timeout 60 "$CAPTURE" -n 2 -s "$OUT"/killed.rec.*.timeline >"$OUT/killed.spec" 2>"$OUT/killed.capture.err" &&
	   grep -q '^period=101ms;' "$OUT/killed.spec"; then
		ok "the cancelled job's timelines ($(cat "$OUT"/killed.rec.*.timeline | grep -vc '^#') collectives) give orrery-capture its period: $(cat "$OUT/killed.spec")"
	else
		not_ok "orrery-capture on the cancelled job's timelines finds the gated period, 101 ms (100 ms + gate_margin=1)" "$(cat "$OUT/killed.spec" "$OUT/killed.capture.err" 2>/dev/null | head -n 4)" \
			"$(ls -l "$OUT"/killed.rec.* 2>&1 | head -n 3)"
	fi
}

# A job's user writes what they like into the job's statistics directory:
# a link to a root-only file, a file that is not statistics, a directory.
# The epilog reads none of it, counts it as bad, and removes it.
t_gate_stats_untrusted() {
	local id line st deadline
	# nobody runs it: beside the state directory, not in root's $OUT
	cat >"$STATE.evil.sh" <<'EOF2'
#!/bin/bash
d=$ORRERY_RUNTIME_JOB_STATS
[ -n "$d" ] || exit 3
ln -s /etc/shadow "$d/evil.$SLURM_PROCID.stats"
printf 'active=1\nphases=99\n' >"$d/junk.$SLURM_PROCID.stats"
mkdir "$d/sub.$SLURM_PROCID.stats"
EOF2
	chmod 755 "$STATE.evil.sh"
	id=$(cd /tmp && runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" timeout 20 sbatch --parsable -J rt-evil -N2 \
		--ntasks-per-node=1 --comm-profile="$PROFILE" --comm-gate=auto -o /dev/null \
		--wrap "srun $STATE.evil.sh" 2>"$OUT/evil.err")
	[ -n "$id" ] || { not_ok "nobody's job submitted" "$(cat "$OUT/evil.err")"; return; }
	line=$(sacct_gate "$id" 2 gatetasks,gatephases)
	st=$(timeout 10 sacct -n -X -j "$id" -o state%20 2>/dev/null | tr -d ' ')
	if [ "$line" = "$id|2|0/0+bad|-" ] && [ "$st" = COMPLETED ] && [ -z "$(gate_dirs_left "$id")" ] &&
	   grep -q "gate_stats: job $id: 3 file(s) not counted" "$STATE"/log/*.log 2>/dev/null; then
		ok "nobody's job fills its statistics directory with a link to /etc/shadow, a file that is not statistics and a directory: none counted (orrery-sacct $line), one line per node in slurmd's log, all removed"
	else
		not_ok "untrusted statistics files are refused and removed" "state=$st sacct='$line'" \
			"left: $(gate_dirs_left "$id")" "$(grep -h "gate_stats: job $id" "$STATE"/log/*.log 2>/dev/null | head -n 3)"
	fi
}

t_bad_option
t_single_node
t_gated
t_default_off
t_sbatch
t_gate_stats_sacct
t_gate_stats_idle
t_gate_stats_killed
t_gate_stats_untrusted
