#!/bin/bash
# tests/stress/run.sh - select/orrery_cons_tres under faults, crashes and load,
# on a private Slurm cluster (munge, slurmctld, 16 emulated slurmd; no
# accounting database) that this script starts and stops itself.
#
# usage: tests/stress/run.sh [--jobs N] [--only PART[,PART]] [PLUGINDIR]
#   PLUGINDIR  where select_orrery_cons_tres.so (and spank_orrery.so) were
#              installed (default /var/tmp/orrery-stress/plugins)
#   --jobs N   jobs in the load burst (default 200; CI runs 1000 under
#              Slurm 22.05, as select-orrery(8)'s figures, and 200 under 24.11)
#   --only P   run only these parts: fault, restart, load (the cluster is
#              still started from scratch)
#
# 1. Fault injection: slurmctld is restarted with ORRERY_FAULT naming one
#    liborrery fault point (or point:kind for the other C++ exception
#    paths) at a time; every point the select plugin can reach is listed
#    below and checked against the library source.  Each profiled job must
#    run, with exactly one log line naming the point, slurmctld alive.
# 2. Restart: 20 profiled jobs with non-trivial shifts, kill -9 slurmctld,
#    restart: jobs, shifts and orrery's state preserved, a new job shifted
#    against the restored ones; again with orrery_state (and the live
#    channel's orrery_channel) truncated and with a
#    foreign format version (one error line each; the running jobs rebuilt from
#    their ORR1: records, none lost).
# 3. Load: N separate sbatch submissions in a burst, twice under plain
#    cons_tres and then twice under select/orrery, each plugin in a fresh
#    slurmctld; every job completes (jobcomp/filetxt) or pends for a
#    legitimate reason; slurmctld RSS, sdiag's main and backfill cycle
#    times and the plugin's job_test CPU per call printed side by side;
#    orrery's RSS growth beyond cons_tres's over the second burst at most
#    5 MB (past it, a third burst under orrery decides).
# Last, slurmctld is stopped with `scontrol shutdown` and must exit 0.
# ORRERY_STRESS_WRAP (a command prefix for slurmctld, e.g. valgrind) and
# ORRERY_STRESS_SLOW (a factor for every deadline) are for leakcheck.sh.
# Needs root, munge, slurmctld, slurmd, slurm-client.  Ports 20200-20216 on
# 127.0.0.1, state under /var/tmp/orrery-st-run (ORRERY_STRESS_PORT and
# ORRERY_STRESS_BASE move them).  Prints one "ok"/"FAIL" line per check,
# then "N passed, M failed".
set -u

NJOBS=200
ONLY=
PLUGINDIR=/var/tmp/orrery-stress/plugins
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) NJOBS=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (accepted: --jobs N, --only fault|restart|load)" >&2; exit 2 ;;
	*) PLUGINDIR=$1; shift ;;
	esac
done
case $NJOBS in ''|*[!0-9]*) echo "run.sh: --jobs needs a number" >&2; exit 2 ;; esac
for p in ${ONLY//,/ }; do
	case $p in fault|restart|load) ;; *) echo "run.sh: --only fault,restart,load" >&2; exit 2 ;; esac
done
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }
SP_SLOW=${ORRERY_STRESS_SLOW:-1}
SP_WRAP=${ORRERY_STRESS_WRAP:-}
SLOW=$SP_SLOW

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${ORRERY_STRESS_BASE:-/var/tmp/orrery-st-run}
PORT=${ORRERY_STRESS_PORT:-20200}
NNODES=16
CPUS=16
. "$SRC/tests/lib/slurm-private.sh"
# Every job's profile (orrery.conf default_profile, or --comm-profile):
# 20 ms of 60 Gb/s per node every 100 ms.  Two such jobs on one 100 Gb/s
# uplink collide unless shifted apart; five fit, each in its own 20 ms.
PROFILE='period=100ms;up=0ms+20ms@60Gbps'

pass=0 failed=0
ok() { echo "ok   - ${TRACE:+[$SECONDS s] }$*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
say() { echo "# $*"; }

why=$(sp_preflight 2>&1) || { echo "run.sh: $why"; echo "0 passed, 1 failed"; exit 1; }
sp_fresh_base out
LOG=$BASE/log/slurmctld.log
JOBCOMP=$BASE/log/jobcomp.txt
STATE=$BASE/state/orrery_state

sp_start_munge

# ------------------------------------------------------------------ config
# MinJobAge, sched and bf intervals keep a 1,000-job burst short; jobcomp
# records every job's end state (there is no accounting database).
sp_write_slurm_conf orrstress select/orrery_cons_tres s $NNODES $CPUS 4000 <<EOF
SlurmdDebug=error
SchedulerParameters=batch_sched_delay=0,default_queue_depth=400,sched_min_interval=200000,bf_interval=2
JobCompType=jobcomp/filetxt
JobCompLoc=$JOBCOMP
# Generous: a busy CI host or valgrind (leakcheck.sh) slows every RPC.
MessageTimeout=$([ "$SLOW" -gt 1 ] && echo 100 || echo 30)
MinJobAge=5
MaxJobCount=20000
Epilog=$BASE/etc/epilog.sh
PlugStackConfig=$BASE/etc/plugstack.conf
EOF
# Eight leaves of two nodes: a 4-node job always crosses leaf uplinks.
sp_write_topology 2 $NNODES s
sp_write_plugstack
SPANK=$PLUGINDIR/spank_orrery.so
write_conf() {	# write_conf DEBUG
	cat >"$BASE/etc/orrery.conf" <<EOF
[orrery]
mode=enforce
candidates=16
debug=$1
node_link=100Gbps
default_profile=$PROFILE
[uplinks]
level0=100Gbps
EOF
}
write_conf 1
# The relay as the job's nodes see it, kept for after the job.
# While $BASE/out/slow-epilog exists, epilogs take 6 s: the job stays
# COMPLETING across a slurmctld restart (the build faults below).
cat >"$BASE/etc/epilog.sh" <<EOF
#!/bin/sh
[ -n "\$SPANK_ORRERY_SHIFT_US" ] && echo "\$SPANK_ORRERY_SHIFT_US" >"$BASE/out/epilog-\$SLURM_JOB_ID"
[ -f "$BASE/out/slow-epilog" ] && sleep 6
exit 0
EOF
chmod 755 "$BASE/etc/epilog.sh"

# ------------------------------------------------------------------ daemons
nodes_up() { [ "$(sp_count_nodes idle,mix,alloc)" -eq $NNODES ]; }
# Stop slurmctld (TERM, or KILL with "kill9") and start it again; running
# jobs go on.  MARK is the log line count before the new slurmctld.
MARK=0
restart_ctld() {	# restart_ctld [kill9] [nowait]
	local sig=TERM
	[ "${1:-}" = kill9 ] && { sig=KILL; shift; }
	sp_stop_ctld $sig
	MARK=$(wc -l <"$LOG")
	[ -n "${TRACE:-}" ] && say "$(date +%T.%N) stopped"
	sp_start_ctld -i
	[ -n "${TRACE:-}" ] && say "$(date +%T.%N) ctld up"
	[ "${1:-}" = nowait ] || sp_wait_for 30 nodes_up
	[ -n "${TRACE:-}" ] && say "$(date +%T.%N) nodes up"
}
newlog() { tail -n +$((MARK + 1)) "$LOG"; }	# log of the current slurmctld
sp_start_ctld -c
sp_start_slurmds s $NNODES
idle_nodes() { [ "$(sp_count_nodes idle)" -eq $NNODES ]; }
sp_wait_for 30 idle_nodes
check "cluster up: $NNODES nodes idle under select/orrery_cons_tres" idle_nodes
if grep -q 'liborrery lacks' "$LOG"; then
	bad "liborrery built without placement: $(grep -o 'liborrery lacks [a-z_]*' "$LOG" | head -n1)"
	echo "$pass passed, $failed failed"
	exit 1
fi

# ------------------------------------------------------------------ helpers
field() { t scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
orr() {	# orr JOBID KEY: a key of the job's ORR1: record in AdminComment
	t scontrol show job "$1" | sed -n 's/.*ORR1:\([^ ]*\).*/\1/p' |
		tr ',' '\n' | sed -n "s/^$2=//p"
}
state_of() { t squeue -h -j "$1" -o %T 2>/dev/null; }
is_running() { [ "$(state_of "$1")" = RUNNING ]; }
jobcomp_state() { sed -n "s/^JobId=$1 .*JobState=\([A-Z_]*\).*/\1/p" "$JOBCOMP" 2>/dev/null | tail -n1; }
completed() { [ "$(jobcomp_state "$1")" = COMPLETED ]; }
ctld_rss() { awk '/^VmRSS|^VmHWM/ { printf "%s %s kB  ", $1, $2 }' "/proc/$CTLD/status"; }
# The last counters line of the current slurmctld, and one key of it.
counters() { newlog | grep 'select/orrery: mode=.* fallbacks=' | tail -n1; }
counter() { counters | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# Shifts of the jobs in orrery_state: "ID SHIFT" lines.
state_shifts() { sed -n 's/^job \([0-9]*\) shift_us=\([0-9]*\) .*/\1 \2/p' "${1:-$STATE}" 2>/dev/null; }
cancel_all() {
	t scancel -u root 2>/dev/null
	sp_wait_for 60 bash -c "[ -z \"\$(timeout 10 squeue -h)\" ]"
}

# ------------------------------------------------------------------ 1. faults
# Every liborrery call the select plugin makes that has a fault point,
# with where it is reached and the line it must cause:
#   POINT[:KIND]  HOOK      LOG (extended regex, after "select/orrery: ")
# HOOK job_test: the placement is refused, the job goes to cons_tres on the
#   full bitmap (no "trying" line), and is still recorded at job_begin;
# job_begin: the node choice was orrery's, the job starts unrecorded (no
#   shift, no ORR1:);
# build: orrery runs as plain cons_tres until the next reconfigure, one
#   line for all jobs (not counted as a per-job fallback);
# save / load: the job is placed and recorded; one line however many saves.
FAULTS=(
	"place           job_test  placement failed: fault injected at 'place', falling back"
	"place:exception job_test  placement failed: unexpected exception injected at 'place', falling back"
	"place:bad_alloc job_test  placement failed: out of memory, falling back"
	"place:unknown   job_test  placement failed: unknown exception, falling back"
	"profile_parse   job_test  bad comm profile: fault injected at 'profile_parse', falling back"
	"profile_resolve job_test  bad comm profile: fault injected at 'profile_resolve', falling back"
	"evaluate        job_begin evaluation failed: fault injected at 'evaluate', falling back"
	"evaluate:bad_alloc job_begin evaluation failed: out of memory, falling back"
	"cluster_add     job_begin cannot record the job: fault injected at 'cluster_add', falling back"
	"topology        build     cannot model the topology: fault injected at 'topology'; running as plain cons_tres"
	"cluster_new     build     cannot model the topology: fault injected at 'cluster_new'; running as plain cons_tres"
	"state_save      save      cannot save $STATE: fault injected at 'state_save'"
	"state_load      load      $STATE: fault injected at 'state_load'; rebuilding the running jobs from slurmctld's records"
)

# The fault points in the liborrery functions the plugin calls (lib_syms.h), from the
# source: every one must be in FAULTS.
reachable_points() {
	local fns
	fns=$(sed -n 's/^[[:space:]]*X(\(orrery_[a-z_]*\)).*/\1/p' "$SRC/plugins/select/orrery/lib_syms.h" | sort -u)
	awk -v fns="$fns" '
		BEGIN { n = split(fns, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		/^[a-z].*[ *]orrery_[a-z_]*\(/ {
			match($0, /orrery_[a-z_]*\(/); fn = substr($0, RSTART, RLENGTH - 1) }
		/fault_point\("/ && (fn in want) {
			match($0, /fault_point\("[a-z_]*"/); print substr($0, RSTART + 13, RLENGTH - 14) }
	' "$SRC"/lib/api/*.cpp | sort -u
}

fault_job() {	# fault_job [SBATCH-ARGS...]: a 4-node profiled job; prints its id
	t sbatch --parsable -N4 --ntasks-per-node=1 -c1 -o /dev/null "$@" --wrap true
}

if want fault; then
	say "fault injection: one slurmctld per point (ORRERY_FAULT=POINT[:KIND])"
	if [ -d "$SRC/lib/api" ]; then
		listed=$(printf '%s\n' "${FAULTS[@]}" | awk '{ sub(/:.*/, "", $1); print $1 }' | sort -u)
		found=$(reachable_points)
		check "every fault point the plugin reaches is tested ($(echo $found | tr ' ' ','))" \
			test -n "$found" -a "$(comm -23 <(echo "$found") <(echo "$listed"))" = ""
	fi
	# A state file to load (state_load) and a baseline job: orrery
	# narrows and records it without faults.
	j=$(fault_job)
	sp_wait_for 30 completed "$j"
	check "no fault: job $j placed by orrery (narrowed, ORR1: recorded)" \
		bash -c "grep -q 'select/orrery: trying JobId=$j candidate' '$LOG' && grep -q 'select/orrery: JobId=$j on ' '$LOG'"
	for f in "${FAULTS[@]}"; do
		read -r point hook msg <<<"$f"
		name=${point%%:*}
		if [ "$name" = profile_parse ] && [ ! -f "$SPANK" ]; then
			echo "skip - $point: needs --comm-profile (no $SPANK)"
			continue
		fi
		# A build fault is met with a job COMPLETING when slurmctld
		# stops: the new one ends it in read_slurm_conf (job_fini,
		# the first build) before it reconfigures the plugin (a
		# second build); still one line.  Without it CI met this only
		# when a job's epilog happened to outlast the restart.
		cj=
		if [ "$hook" = build ]; then
			: >"$BASE/out/slow-epilog"
			cj=$(fault_job)
			sp_wait_for 40 bash -c "[ \"\$(timeout 10 squeue -h -j $cj -o %T)\" = COMPLETING ]"
			check "$point: job $cj completing when slurmctld stops" \
				test "$(state_of "$cj")" = COMPLETING
		fi
		# Jobs wait for the nodes to register again by themselves.
		ORRERY_FAULT=$point restart_ctld nowait
		rm -f "$BASE/out/slow-epilog"
		args=()
		# A bad default_profile is refused at load (profile_parse):
		# the job brings its own.
		[ "$name" = profile_parse ] && args=(--comm-profile="$PROFILE")
		j=$(fault_job "${args[@]}")
		j2=
		[ "$hook" = build ] || [ "$hook" = save ] && j2=$(fault_job)
		[ -n "${TRACE:-}" ] && say "$(date +%T.%N) submitted"
		sp_wait_for 40 completed "$j"
		[ -n "$j2" ] && sp_wait_for 40 completed "$j2"
		[ -n "${TRACE:-}" ] && say "$(date +%T.%N) completed"
		check "$point: job $j ran to COMPLETED" completed "$j"
		check "$point: slurmctld alive (scontrol ping)" sp_ctld_up
		case $hook in
		job_test|job_begin)
			check "$point: exactly one fallback line for job $j naming the point" \
				test "$(newlog | grep -c "falling back to cons_tres for JobId=$j\$")" = 1 -a \
				"$(newlog | grep -Ec "select/orrery: $msg to cons_tres for JobId=$j\$")" = 1
			fb=$(counter fallbacks)
			check "$point: fallback counter incremented (fallbacks=$fb)" test "${fb:-0}" -ge 1
			;;
		*)
			check "$point: exactly one line for jobs $j${j2:+ and $j2}" \
				test "$(newlog | grep -Ec "select/orrery: $msg")" = 1
			check "$point: no per-job fallback lines" \
				bash -c "! tail -n +$((MARK + 1)) '$LOG' | grep -q 'falling back'"
			;;
		esac
		case $hook in
		job_test)
			check "$point: cons_tres chose the nodes (not narrowed)" \
				bash -c "! tail -n +$((MARK + 1)) '$LOG' | grep -q 'trying JobId=$j '"
			;;
		job_begin)
			check "$point: job started unrecorded (no shift logged)" \
				bash -c "! tail -n +$((MARK + 1)) '$LOG' | grep -q 'select/orrery: JobId=$j on '"
			;;
		build)
			check "$point: neither job narrowed nor recorded" \
				bash -c "! tail -n +$((MARK + 1)) '$LOG' | grep -Eq 'trying JobId=|select/orrery: JobId=[0-9]+ on '"
			;;
		save|load)
			check "$point: job $j still placed and recorded by orrery" \
				bash -c "tail -n +$((MARK + 1)) '$LOG' | grep -q 'select/orrery: JobId=$j on '"
			;;
		esac
	done
	restart_ctld	# without faults
	check "after the faults: slurmctld alive" sp_ctld_up
fi

# ------------------------------------------------------------------ 2. restart
NR=20
if want restart; then
	say "restart: $NR running jobs, kill -9 slurmctld"
	cancel_all
	# "ID STATE SHIFT" of every job, from one scontrol call.
	snapshot() {
		t scontrol -o show job 2>/dev/null | awk '{
			id = st = sh = "-"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^JobId=/) id = substr($i, 7)
				if ($i ~ /^JobState=/) st = substr($i, 10)
				if ($i ~ /^ORR1:/ || $i ~ /^AdminComment=ORR1:/) {
					n = split($i, kv, ","); for (k = 1; k <= n; k++) if (kv[k] ~ /shift_us=/) { sub(/.*shift_us=/, "", kv[k]); sh = kv[k] } }
			}
			print id, st, sh }'
	}
	# Slurm's own state: a job the backfill scheduler starts is not saved
	# until something else asks for a save (an update RPC does), and
	# saves happen at most every 5 s.  Without this a kill -9 makes Slurm
	# itself (not orrery) requeue the newest jobs.
	slurm_save() {
		t scontrol update jobid="${ids[0]}" Comment="stress-$SECONDS"
		sleep 6
	}
	ids=()
	for i in $(seq $NR); do
		ids+=("$(t sbatch --parsable -N4 --ntasks-per-node=1 -c1 -o /dev/null --wrap 'sleep 600')")
	done
	all_running() { [ "$(t squeue -h -t R -o %i | wc -l)" -ge $NR ]; }
	sp_wait_for 60 all_running
	check "$NR profiled 4-node jobs running" all_running
	declare -A shift0
	while read -r j _ sh; do shift0[$j]=$sh; done < <(snapshot)
	distinct=$(printf '%s\n' "${shift0[@]}" | sort -u | wc -l)
	check "shifts are non-trivial ($distinct distinct values: $(printf '%s\n' "${shift0[@]}" | sort -n | uniq -c | awk '{ printf "%sx%s ", $1, $2 }'))" \
		test "$distinct" -ge 3
	same_shifts() {	# same_shifts FILE: orrery_state holds every job with its AdminComment shift
		local j s
		for j in "${ids[@]}"; do
			s=$(state_shifts "$1" | awk -v j="$j" '$1 == j { print $2 }')
			[ -n "${shift0[$j]}" ] && [ "$s" = "${shift0[$j]}" ] || return 1
		done
	}
	admin_shifts_kept() {
		local snap j
		snap=$(snapshot)
		for j in "${ids[@]}"; do
			echo "$snap" | grep -qx "$j RUNNING ${shift0[$j]}" || return 1
		done
	}
	# The saver writes at most every 250 ms (state_saver.h).
	sp_wait_for 10 same_shifts "$STATE"
	check "orrery_state holds the $NR jobs with their AdminComment shifts" same_shifts "$STATE"
	slurm_save
	restart_ctld kill9 nowait
	check "kill -9: all $NR jobs still running, AdminComment shifts unchanged" admin_shifts_kept
	cp "$STATE" "$BASE/state/orrery_state.before-k"
	# What orrery-query computes for a node set against the restored jobs
	# (orrery_state as restored) and against none.
	QUERY=$(command -v orrery-query || true)
	[ -x "$PLUGINDIR/../../bin/orrery-query" ] && QUERY=$PLUGINDIR/../../bin/orrery-query
	q_shift() {	# q_shift NODELIST [--state FILE]: shift (us) there
		local nl=$1; shift
		"$QUERY" place --topology "$BASE/etc/topology.conf" --node-link 100Gbps \
			--uplink 0=100Gbps "$@" --nodes 4 --profile "$PROFILE" \
			--free "$nl" --show 1 2>/dev/null |
			awk '$1 == "1" { for (i = 1; i <= NF; i++) if ($(i+1) ~ /^m?s$/ && $i ~ /^[0-9.]+$/) {
				printf "%d\n", ($(i+1) == "ms" ? $i * 1000 : $i * 1e6) + 0.5; exit } }'
	}
	# K goes on the nodes of a restored job where the restored jobs force
	# a non-zero shift (alone K's shift is 0), so the check below can tell
	# a restored state from an empty one.  Left free to choose, orrery
	# puts K on idle nodes when there are enough, where it may share no
	# loaded uplink at all.
	pin_nodes=
	if [ -n "$QUERY" ]; then
		for j in "${ids[@]}"; do
			nl=$(field "$j" NodeList)
			qj=$(q_shift "$nl" --state "$BASE/state/orrery_state.before-k")
			[ -n "$qj" ] && [ "$qj" != 0 ] && { pin_nodes=$nl; break; }
		done
	fi
	k=$(t sbatch --parsable -N4 --ntasks-per-node=1 -c1 -o /dev/null \
		${pin_nodes:+-w "$pin_nodes"} --wrap 'sleep 600')
	sp_wait_for 30 is_running "$k"
	check "kill -9: a new job K=$k starts${pin_nodes:+ on $pin_nodes}" is_running "$k"
	check "kill -9: one restore line: $NR jobs from orrery_state" \
		test "$(newlog | grep -c "select/orrery: restored $NR jobs from $STATE ")" = 1
	restored_plus_k() { same_shifts "$STATE" && [ "$(state_shifts | wc -l)" = $((NR + 1)) ]; }
	sp_wait_for 10 restored_plus_k
	check "kill -9: orrery_state keeps the $NR shifts and adds K" restored_plus_k
	# K's shift must be what orrery-query computes against the restored
	# jobs, and differ from its shift alone.
	sk=$(orr "$k" shift_us)
	if [ -n "$QUERY" ]; then
		qs=$(q_shift "$(field "$k" NodeList)" --state "$BASE/state/orrery_state.before-k")
		q0=$(q_shift "$(field "$k" NodeList)")
		check "kill -9: K is shifted against the restored jobs (K=$sk us; orrery-query: $qs us with them, $q0 us alone)" \
			test -n "$sk" -a "$sk" = "$qs" -a "$qs" != "$q0"
	else
		echo "skip - K's shift against orrery-query: no orrery-query"
	fi
	ids_k=("$k")

	# Truncated and foreign-version state files: one error line, and
	# orrery rebuilds the running jobs from their ORR1: records (nodes,
	# profile, shift, epoch), so the new job is still placed and shifted
	# against them; Slurm's jobs go on, scheduling continues.
	for bad_state in truncated foreign; do
		slurm_save
		nrun=$(( NR + ${#ids_k[@]} ))
		# Node lists read while slurmctld is up: against a dead one each
		# scontrol waits out its timeout (24.11 retries the connection).
		declare -A nl_of=()
		if [ -n "$QUERY" ]; then
			for j in "${ids[@]}"; do nl_of[$j]=$(field "$j" NodeList); done
		fi
		kill -KILL "$CTLD"; wait "$CTLD" 2>/dev/null
		cp "$STATE" "$BASE/state/orrery_state.before-$bad_state"
		pin_nodes=
		if [ -n "$QUERY" ]; then	# as for K: where the running jobs force a shift
			for j in "${ids[@]}"; do
				nl=${nl_of[$j]}
				qj=$(q_shift "$nl" --state "$BASE/state/orrery_state.before-$bad_state")
				[ -n "$qj" ] && [ "$qj" != 0 ] && { pin_nodes=$nl; break; }
			done
		fi
		if [ $bad_state = truncated ]; then
			sz=$(stat -c %s "$STATE")
			truncate -s $((sz / 2)) "$STATE"
			msg="state file '$STATE': truncated \\(no complete 'end' line\\)"
		else
			sed -i '1s/^orrery-state .*/orrery-state 99/' "$STATE"
			msg="state file '$STATE' has format version 99; this orrery reads version 1"
		fi
		# The live channel's orrery_channel broken alike: one line, the
		# jobs keep what their AdminComment says (select-orrery(8)).
		CHAN=$(dirname "$STATE")/orrery_channel
		[ -f "$CHAN" ] || printf 'orrery_channel 1\n' >"$CHAN"
		if [ $bad_state = truncated ]; then
			printf 'garbage\n7 ORRG1:gen=x\n12' >>"$CHAN"
			cmsg="select/orrery: channel: $CHAN: 3 malformed lines ignored"
		else
			sed -i '1s/.*/orrery_channel 99/' "$CHAN"
			cmsg="select/orrery: channel: $CHAN is not an orrery_channel 1 file: ignored"
		fi
		MARK=$(wc -l <"$LOG")
		sp_start_ctld -i
		n=$(t sbatch --parsable -N4 --ntasks-per-node=1 -c1 -o /dev/null \
			${pin_nodes:+-w "$pin_nodes"} --wrap 'sleep 600')
		sp_wait_for 30 is_running "$n"
		check "$bad_state state: new job $n scheduled${pin_nodes:+ on $pin_nodes}" is_running "$n"
		if [ -z "$QUERY" ] || [ -z "$pin_nodes" ]; then
			echo "skip - $bad_state state: new job against the rebuilt jobs: $([ -n "$QUERY" ] && echo "no node set where they force a shift" || echo "no orrery-query")"
		else
			sn=$(orr "$n" shift_us)
			qs=$(q_shift "$(field "$n" NodeList)" --state "$BASE/state/orrery_state.before-$bad_state")
			q0=$(q_shift "$(field "$n" NodeList)")
			check "$bad_state state: job $n is shifted against the rebuilt jobs ($sn us; orrery-query: $qs us with them, $q0 us alone)" \
				test -n "$sn" -a "$sn" = "$qs" -a "$qs" != "$q0"
		fi
		check "$bad_state state: exactly one error line" \
			test "$(newlog | grep -Ec "select/orrery: $STATE: $msg; rebuilding the running jobs from slurmctld's records")" = 1
		newlog | grep 'select/orrery: rebuilt ' | sed 's/^/# /'
		check "$bad_state state: one line: rebuilt $nrun running jobs from their ORR1: records, 0 could not be" \
			test "$(newlog | grep -c "select/orrery: rebuilt $nrun running jobs from their ORR1: records, 0 could not be$")" = 1
		check "$bad_state state: all $NR jobs still running with their AdminComment shifts" admin_shifts_kept
		check "$bad_state state: earlier jobs ${ids_k[*]} still running" \
			bash -c "for j in ${ids_k[*]}; do [ \"\$(timeout 10 squeue -h -j \$j -o %T)\" = RUNNING ] || exit 1; done"
		rebuilt_plus_n() {
			same_shifts "$STATE" && [ "$(state_shifts | wc -l)" = $((nrun + 1)) ] &&
				state_shifts | awk '{ print $1 }' | grep -qx "$n"
		}
		sp_wait_for 10 rebuilt_plus_n
		check "$bad_state state: orrery_state rewritten with the $nrun rebuilt jobs (their shifts) and the new one" \
			rebuilt_plus_n
		check "$bad_state state: a bad orrery_channel too: one line ($(newlog | grep -F "$cmsg" | sed 's/.*select/select/' | head -n 1))" \
			test "$(newlog | grep -cF "$cmsg")" = 1
		check "$bad_state state: slurmctld alive" sp_ctld_up
		ids_k+=("$n")
	done
	# The relay after an empty start: the jobs' SPANK environment is
	# Slurm's job state, so the epilog still sees the original shift.
	first=${ids[0]}
	for j in "${ids[@]}"; do [ "${shift0[$j]}" != 0 ] && { first=$j; break; }; done
	cancel_all
	sp_wait_for 20 test -s "$BASE/out/epilog-$first"
	check "after the empty starts: job $first's epilog still sees SPANK_ORRERY_SHIFT_US=${shift0[$first]}" \
		test "$(cat "$BASE/out/epilog-$first" 2>/dev/null)" = "${shift0[$first]}"
fi

# ------------------------------------------------------------------ 3. load
# sdiag's "Mean cycle" / "Max cycle" (us) / "Total cycles" of the main
# scheduler or of backfill (sdiag_cycle main|bf mean|max|total).
sdiag_cycle() {
	t sdiag 2>/dev/null | awk -v sec="$1" -v what="$2" '
		/^Main schedule statistics/ { s = "main" } /^Backfilling stats/ { s = "bf" }
		/^Remote Procedure Call/ { s = "" }
		s == sec && what == "mean" && /^[[:space:]]*Mean cycle:/ { print $3; exit }
		s == sec && what == "max" && /^[[:space:]]*Max cycle:/ { print $3; exit }
		s == sec && what == "total" && /^[[:space:]]*Total cycles:/ { print $3; exit }
		s == sec && what == "depth" && /^[[:space:]]*Depth Mean \(try depth\):/ { print $5; exit }'
}
# slurmctld's CPU time so far (user + system, ms): what a burst costs it
# whatever else runs on the machine (its wall-clock cycles also count the
# time its threads waited for a CPU).
ctld_cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f", ($12 + $13) * 1000 / hz }' "/proc/$CTLD/stat"
}
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$CTLD/status"; }
# The /proc directories of slurmctld's threads named $1, one a line.
threads_named() {
	local t
	for t in /proc/$CTLD/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = "$1" ] && echo "$t"
	done
	return 0
}
# The CPU time (ms) of slurmctld's threads named $1 (sched_agent: the main
# scheduler, which sdiag's main cycles time; orrery's saver thread has its
# own name).  A cycle's wall time is this thread's CPU plus its waits for
# a CPU and for locks, so the two side by side say which one grew.
thread_cpu_ms() {
	local t sum=0 v
	for t in $(threads_named "$1"); do
		v=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.0f", ($12 + $13) * 1000 / hz }' "$t/stat" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}
# The same in microseconds, from schedstat (ns on the CPU): fine enough
# for a few backfill cycles of some milliseconds each.
thread_cpu_us() {
	local t sum=0 v
	for t in $(threads_named "$1"); do
		v=$(awk '{ printf "%.0f", $1 / 1000 }' "$t/schedstat" 2>/dev/null)
		sum=$((sum + ${v:-0}))
	done
	echo $sum
}
# The context switches of slurmctld's threads named $1, "VOLUNTARY
# NONVOLUNTARY": a thread that blocks (a lock, I/O, its sleep between
# cycles) switches voluntarily; one the kernel takes off the CPU for
# another runnable task, involuntarily.  Beside the thread's CPU they say
# where a cycle's wall time beyond its CPU went.
thread_switches() {
	local t v=0 n=0 a b
	for t in $(threads_named "$1"); do
		read -r a b < <(awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
			END { print v + 0, n + 0 }' "$t/status" 2>/dev/null)
		v=$((v + ${a:-0})) n=$((n + ${b:-0}))
	done
	echo "$v $n"
}
# burst LABEL: NJOBS separate submissions (odd jobs 1 node, even 2, all
# profiled through default_profile or the SPANK relay) to the running
# slurmctld; checks that each ends COMPLETED or is queued legitimately;
# sets B_RSS0/B_RSS1 (kB), B_MAIN/B_MAINMAX/B_BF/B_BFMAX (us), B_SECS.
burst() {
	local label=$1 t0 t1 t2 nsub verdict notdone queue_ok j s
	sp_wait_for 30 idle_nodes
	t sdiag -r >/dev/null 2>&1
	sleep 2
	B_RSS0=$(rss_kb)
	B_CPU0=$(ctld_cpu_ms)
	B_SCPU0=$(thread_cpu_ms sched_agent)
	read -r B_SVOL0 B_SINV0 < <(thread_switches sched_agent)
	B_BFCPU0=$(thread_cpu_us bckfl)
	: >"$BASE/out/ids"
	t0=$(date +%s.%N)
	seq "$NJOBS" | xargs -P 8 -I{} sh -c \
		'n=$(( {} % 2 + 1 )); timeout 60 sbatch --parsable -N$n -n$n -o /dev/null --wrap true' \
		>>"$BASE/out/ids" 2>"$BASE/out/sbatch.err"
	t1=$(date +%s.%N)
	nsub=$(grep -c '^[0-9]' "$BASE/out/ids")
	say "$label: submitted $nsub jobs in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($(awk -v a="$t0" -v b="$t1" -v n="$nsub" 'BEGIN { printf "%.0f", n / (b - a) }') jobs/s, 8 parallel sbatch)"
	check "$label: all $NJOBS submissions accepted" test "$nsub" = "$NJOBS"
	sort -n "$BASE/out/ids" >"$BASE/out/ids.sorted"
	done_count() { awk -F'[ =]' 'NR==FNR { want[$1] = 1; next } $1 == "JobId" && ($2 in want) { n++ } END { print n + 0 }' \
		"$BASE/out/ids.sorted" "$JOBCOMP" 2>/dev/null; }
	all_done() { [ "$(done_count)" -ge "$nsub" ]; }
	sp_wait_for $((60 + NJOBS / 2)) all_done
	t2=$(date +%s.%N)
	B_SECS=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')
	say "$label: $(done_count) of $nsub ended $B_SECS s after the first submission"
	# Every job: COMPLETED in jobcomp, or still queued for a reason
	# Slurm gives a healthy queue.
	verdict=$(awk -F'[ =]' 'NR==FNR { want[$1] = 1; next }
		$1 == "JobId" && ($2 in want) { for (i = 1; i < NF; i++) if ($i == "JobState") st[$2] = $(i+1) }
		END { for (j in want) print j, (j in st) ? st[j] : "NONE" }' "$BASE/out/ids.sorted" "$JOBCOMP")
	notdone=$(echo "$verdict" | awk '$2 == "NONE" { print $1 }')
	queue_ok=1
	for j in $notdone; do
		s=$(t squeue -h -j "$j" -o '%T %r' 2>/dev/null)
		case $s in
		"RUNNING "*|"COMPLETING "*|"PENDING Resources"|"PENDING Priority"|"PENDING None") ;;
		*) queue_ok=0; echo "# job $j: '${s:-not in the queue, no jobcomp record}'" ;;
		esac
	done
	check "$label: every job COMPLETED ($(echo "$verdict" | awk '{ c[$2]++ } END { for (s in c) printf "%s=%d ", s, c[s] }'))" \
		test -z "$(echo "$verdict" | awk '$2 != "COMPLETED" && $2 != "NONE"')"
	check "$label: no job lost: jobs not yet ended are queued legitimately ($(echo $notdone | wc -w) of them)" test $queue_ok = 1
	check "$label: slurmctld still responding" sp_ctld_up
	B_RSS1=$(rss_kb)
	B_CPU=$(( $(ctld_cpu_ms) - B_CPU0 ))
	B_SCPU=$(( $(thread_cpu_ms sched_agent) - B_SCPU0 ))
	read -r B_SVOL B_SINV < <(thread_switches sched_agent)
	B_SVOL=$((B_SVOL - B_SVOL0)) B_SINV=$((B_SINV - B_SINV0))
	B_BFCPU=$(( $(thread_cpu_us bckfl) - B_BFCPU0 ))
	B_BFDEPTH=$(sdiag_cycle bf depth)
	B_MAIN=$(sdiag_cycle main mean) B_MAINMAX=$(sdiag_cycle main max)
	B_BF=$(sdiag_cycle bf mean) B_BFMAX=$(sdiag_cycle bf max)
	B_MAINN=$(sdiag_cycle main total) B_BFN=$(sdiag_cycle bf total)
}
# bfqueue LABEL: backfill over a deep queue it cannot start, the cost a
# site watches (the burst's few backfill cycles try whatever the main
# scheduler happened to leave, so their means compare unlike work).  L
# holds half the nodes (--exclusive) for 10 min, B (first in priority order) needs all
# of them, and BF_QUEUE 2-node jobs of 30 min would delay B: every
# backfill cycle gives each a will-run test and a reservation, and starts
# none.  Sets Q_BF/Q_BFMAX (us), Q_BFN (cycles), Q_DEPTH (jobs tried),
# Q_CPU (the backfill thread's CPU per cycle, us).
BF_QUEUE=${ORRERY_STRESS_BF_QUEUE:-200}
bfqueue() {
	local label=$1 l b n running i
	sp_wait_for 30 idle_nodes
	l=$(t sbatch --parsable -N$((NNODES / 2)) -n$((NNODES / 2)) --exclusive --time=10 -o /dev/null --wrap 'sleep 600')
	sp_wait_for 30 is_running "$l"
	b=$(t sbatch --parsable -N$NNODES -n$NNODES --time=10 -o /dev/null --wrap true)
	seq "$BF_QUEUE" | xargs -P 8 -I{} sh -c \
		'timeout 60 sbatch --parsable -N2 -n2 --time=30 -o /dev/null --wrap true' \
		>"$BASE/out/bf.ids" 2>"$BASE/out/bf.err"
	n=$(grep -c '^[0-9]' "$BASE/out/bf.ids")
	# The first cycle over the whole queue, then sdiag and the backfill
	# thread's CPU from zero.  Backfill skips a cycle when no job, node or
	# partition changed since the last one: a comment on B once a second
	# is such a change.
	for i in $(seq 30); do
		[ "$(sdiag_cycle bf depth)" = $((n + 1)) ] 2>/dev/null && break
		t scontrol update jobid="$b" comment="bf-tick-$i" >/dev/null 2>&1
		sleep 1
	done
	t sdiag -r >/dev/null 2>&1
	Q_CPU=$(thread_cpu_us bckfl)
	for i in $(seq 60); do
		[ "$(sdiag_cycle bf total)" -ge 6 ] 2>/dev/null && break
		t scontrol update jobid="$b" comment="bf-tock-$i" >/dev/null 2>&1
		sleep 1
	done
	Q_BFN=$(sdiag_cycle bf total)
	Q_CPU=$(( ($(thread_cpu_us bckfl) - Q_CPU) / (${Q_BFN:-0} > 0 ? Q_BFN : 1) ))
	Q_BF=$(sdiag_cycle bf mean) Q_BFMAX=$(sdiag_cycle bf max)
	Q_DEPTH=$(sdiag_cycle bf depth)
	running=$(t squeue -h -t R -o %i | sort -u | tr '\n' ' ')
	check "$label: backfill over $n queued jobs: ${Q_BFN:-no} cycles, none started (all-node job $b first, pending)" \
		test "$running" = "$l " -a "$(state_of "$b")" = PENDING -a "$n" = "$BF_QUEUE" -a "${Q_BFN:-0}" -ge 6
	[ "${Q_BFN:-0}" -ge 6 ] || say "$label: queue $(t squeue -h -o '%T %r' | sort | uniq -c | tr -s ' \n' ' '); sdiag backfill: $(t sdiag | sed -n '/^Backfilling stats/,/^$/p' | tr -s ' \n\t' ' ' | cut -c1-400)"
	cancel_all
}
# select_type TYPE: slurmctld and the slurmds restarted fresh under
# SelectType=TYPE (slurmd reads it only at its start: the job launch
# messages carry the select plugin's data); MARK is the new log's start.
select_type() {
	sed -i "s|^SelectType=.*|SelectType=$1|" "$BASE/etc/slurm.conf"
	sp_stop_slurmds
	sp_stop_ctld
	MARK=$(wc -l <"$LOG")
	sp_start_ctld -i
	sp_start_slurmds s $NNODES
	sp_wait_for 60 idle_nodes
}
if want load; then
	say "load: $NJOBS separate sbatch submissions, profiled (default_profile), under plain cons_tres and then select/orrery, each in a fresh slurmctld"
	cancel_all
	write_conf 0	# no per-placement log lines: measure, don't trace
	orr_select=$(sed -n 's/^SelectType=//p' "$BASE/etc/slurm.conf")
	# The baseline first: Slurm's own select/cons_tres in slurmctld.
	select_type select/cons_tres
	burst cons_tres
	c_rss0=$B_RSS0 c_rss1=$B_RSS1 c_main=$B_MAIN c_mainmax=$B_MAINMAX c_bf=$B_BF c_bfmax=$B_BFMAX c_secs=$B_SECS
	c_mainn=$B_MAINN c_bfn=$B_BFN c_cpu=$B_CPU c_bfdepth=$B_BFDEPTH c_scpu=$B_SCPU c_bfcpu=$B_BFCPU
	c_svol=$B_SVOL c_sinv=$B_SINV
	burst "cons_tres, again"
	c_rss2=$B_RSS0 c_rss3=$B_RSS1
	bfqueue cons_tres
	c_qbf=$Q_BF c_qbfmax=$Q_BFMAX c_qbfn=$Q_BFN c_qdepth=$Q_DEPTH c_qcpu=$Q_CPU
	# The same bursts under select/orrery, from the same fresh start.
	select_type "$orr_select"
	burst orrery
	o_rss0=$B_RSS0 o_rss1=$B_RSS1 o_main=$B_MAIN o_mainmax=$B_MAINMAX o_bf=$B_BF o_bfmax=$B_BFMAX o_secs=$B_SECS
	o_mainn=$B_MAINN o_bfn=$B_BFN o_cpu=$B_CPU o_bfdepth=$B_BFDEPTH o_scpu=$B_SCPU o_bfcpu=$B_BFCPU
	o_svol=$B_SVOL o_sinv=$B_SINV
	check "load: no fallback to cons_tres" bash -c "! tail -n +$((MARK + 1)) '$LOG' | grep -q 'falling back'"
	sp_log_counters
	say "counters: $(counters | sed 's/.*select\/orrery: //')"
	pl=$(counter placements) jt=$(counter job_tests) jcpu=$(counter job_test_cpu_us) ccpu=$(counter cons_tres_cpu_us)
	cc=$(counter cons_tres_calls)
	bg=$(counter begun) bcpu=$(counter job_begin_cpu_us) bwall=$(counter job_begin_us)
	rl=$(counter realigns) rlus=$(counter realign_us)
	check "load: orrery placed the jobs (placements=${pl:-?} >= $NJOBS)" test "${pl:-0}" -ge "$NJOBS"
	burst "orrery, again"
	o_rss2=$B_RSS0 o_rss3=$B_RSS1
	# Memory is no timing: slurmctld keeps the same job records either
	# way, so orrery's own growth is the difference.  Taken over the
	# second burst: the first one's growth also holds the allocator's
	# warm-up (the arenas of threads first busy then, Slurm's caches),
	# which load moved by -2.9 to +5.8 MB between runs of one commit.
	# A busy host can still make the second burst the first to reach
	# some depth of concurrent RPC threads (their stacks and arenas):
	# CI saw +4.8 MB in orrery's second burst against -0.8 MB in
	# cons_tres's.  What orrery would leak per job, it leaks again in
	# every burst: past 5 MB, a third burst decides, and the check takes
	# the smaller of the two.
	o_extra=$(( (o_rss3 - o_rss2) - (c_rss3 - c_rss2) )) o_extra3=
	if [ $o_extra -gt 5120 ]; then
		burst "orrery, a third time"
		o_extra3=$(( (B_RSS1 - B_RSS0) - (c_rss3 - c_rss2) )) o_grow3=$((B_RSS1 - B_RSS0))
	fi
	bfqueue orrery
	o_qbf=$Q_BF o_qbfmax=$Q_BFMAX o_qbfn=$Q_BFN o_qdepth=$Q_DEPTH o_qcpu=$Q_CPU
	msum() { awk -v m="$1" -v n="$2" 'BEGIN { if (m == "" || n == "") print ""; else printf "%.0f", m * n / 1000 }'; }
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }
	say "burst of $NJOBS jobs        select/orrery   cons_tres   ratio"
	say "$(printf 'drained after (s)       %13s %11s %7s' "$o_secs" "$c_secs" "$(ratio "$o_secs" "$c_secs")")"
	say "$(printf 'RSS before (kB)         %13s %11s' "$o_rss0" "$c_rss0")"
	say "$(printf 'RSS growth (kB)         %13s %11s' "$((o_rss1 - o_rss0))" "$((c_rss1 - c_rss0))")"
	say "$(printf 'RSS growth, again (kB)  %13s %11s' "$((o_rss3 - o_rss2))" "$((c_rss3 - c_rss2))")"
	[ -n "$o_extra3" ] && say "$(printf 'RSS growth, a third time (kB) %7s %11s' "$o_grow3" -)"
	say "$(printf 'main cycle mean/max (us) %6s/%-6s %5s/%-5s %7s' "$o_main" "$o_mainmax" "$c_main" "$c_mainmax" "$(ratio "$o_main" "$c_main")")"
	say "$(printf 'main cycles, in all (ms) %6s in %-4s %5s in %-4s %5s' "$(msum "$o_main" "$o_mainn")" "$o_mainn" "$(msum "$c_main" "$c_mainn")" "$c_mainn" "$(ratio "$(msum "$o_main" "$o_mainn")" "$(msum "$c_main" "$c_mainn")")")"
	say "$(printf 'backfill mean/max (us)   %6s/%-6s %5s/%-5s %7s' "$o_bf" "$o_bfmax" "$c_bf" "$c_bfmax" "$(ratio "$o_bf" "$c_bf")")"
	say "$(printf 'backfill cycles, in all (ms) %4s in %-4s %3s in %-4s %5s' "$(msum "$o_bf" "$o_bfn")" "$o_bfn" "$(msum "$c_bf" "$c_bfn")" "$c_bfn" "$(ratio "$(msum "$o_bf" "$o_bfn")" "$(msum "$c_bf" "$c_bfn")")")"
	say "$(printf 'backfill jobs tried/cycle %12s %11s' "${o_bfdepth:--}" "${c_bfdepth:--}")"
	say "$(printf 'slurmctld CPU (ms)      %13s %11s %7s' "$o_cpu" "$c_cpu" "$(ratio "$o_cpu" "$c_cpu")")"
	say "$(printf 'scheduler thread CPU (ms) %11s %11s %7s' "$o_scpu" "$c_scpu" "$(ratio "$o_scpu" "$c_scpu")")"
	# Blocked: its sleeps between cycles (about one a cycle) and any
	# lock or I/O wait; preempted: a CPU taken by another task.
	say "$(printf 'scheduler thread blocked/preempted %6s %11s' "$o_svol/$o_sinv" "$c_svol/$c_sinv")"
	[ -n "$jt" ] && [ "$jt" -gt 0 ] && [ -n "$cc" ] && [ "$cc" -gt 0 ] &&
		say "job_test CPU per call under orrery: $((jcpu / jt)) us over $jt calls; one cons_tres call inside it: $((ccpu / cc)) us over $cc calls"
	[ -n "$bg" ] && [ "$bg" -gt 0 ] && [ -n "$bcpu" ] &&
		say "job_begin under orrery: $((bcpu / bg)) us CPU, $((bwall / bg)) us wall per job over $bg jobs (of which re-aligning link groups: $((${rlus:-0} / bg)) us wall, ${rl:-0} re-solves)"
	perjob() { awk -v m="$1" -v d="$2" 'BEGIN { if (m == "" || d == "" || d + 0 == 0) print "-"; else printf "%.0f", m / d }'; }
	say "$(printf 'backfill us per job tried %12s %11s %7s' "$(perjob "$o_bf" "$o_bfdepth")" "$(perjob "$c_bf" "$c_bfdepth")" "$(ratio "$(perjob "$o_bf" "$o_bfdepth")" "$(perjob "$c_bf" "$c_bfdepth")")")"
	# The backfill thread's CPU over the burst (schedstat), per cycle and
	# per job tried: what load cannot inflate, beside the wall clock.
	o_bfcc=$(perjob "$o_bfcpu" "$o_bfn") c_bfcc=$(perjob "$c_bfcpu" "$c_bfn")
	say "$(printf 'backfill thread CPU/cycle (us) %7s %11s %7s' "$o_bfcc" "$c_bfcc" "$(ratio "$o_bfcc" "$c_bfcc")")"
	say "$(printf 'backfill thread CPU/job tried (us) %3s %11s %7s' "$(perjob "$o_bfcc" "$o_bfdepth")" "$(perjob "$c_bfcc" "$c_bfdepth")" "$(ratio "$(perjob "$o_bfcc" "$o_bfdepth")" "$(perjob "$c_bfcc" "$c_bfdepth")")")"
	say "backfill over a queue of $BF_QUEUE jobs it cannot start (will-run tests and reservations only):"
	say "$(printf 'queue: backfill mean/max (us) %6s/%-6s %5s/%-5s %7s' "$o_qbf" "$o_qbfmax" "$c_qbf" "$c_qbfmax" "$(ratio "$o_qbf" "$c_qbf")")"
	say "$(printf 'queue: backfill thread CPU/cycle (us) %5s %11s %7s' "$o_qcpu" "$c_qcpu" "$(ratio "$o_qcpu" "$c_qcpu")")"
	say "$(printf 'queue: cycles, jobs tried/cycle %4s, %-5s %4s, %-5s' "$o_qbfn" "$o_qdepth" "$c_qbfn" "$c_qdepth")"
	bfr=$(ratio "$o_bf" "$c_bf") qbfr=$(ratio "$o_qbf" "$c_qbf") qcpur=$(ratio "$o_qcpu" "$c_qcpu")
	bfcpur=$(ratio "$o_bfcc" "$c_bfcc")
	met() { awk -v r="$1" 'BEGIN { print (r != "-" && r <= 1.2) ? "met" : "not met" }'; }
	bfwhy=""
	[ "$(met "$bfr")" = met ] ||
		bfwhy=": its few cycles try what the main scheduler left, and each start pays orrery's placement and job_begin"
	if [ "$bfr" = - ]; then
		bfsaid="burst: no backfill cycle to compare (select/orrery ${o_bfn:-0}, cons_tres ${c_bfn:-0})"
	else
		bfsaid="burst $(met "$bfr") ($bfr wall, $bfcpur CPU$bfwhy)"
	fi
	say "target backfill cycle within 1.2x of cons_tres: deep queue $(met "$qbfr") ($qbfr wall, $qcpur CPU); $bfsaid; timings, printed, not asserted"
	[ -n "$o_extra3" ] && [ $o_extra3 -lt $o_extra ] && o_extra=$o_extra3
	check "load: slurmctld RSS grows at most 5 MB more under select/orrery than under cons_tres over a burst after the first ($o_extra kB$([ -n "$o_extra3" ] && echo "; second burst $(( (o_rss3 - o_rss2) - (c_rss3 - c_rss2) )) kB, third $o_extra3 kB"); first burst $(( (o_rss1 - o_rss0) - (c_rss1 - c_rss0) )) kB)" \
		test $o_extra -le 5120
fi

check "no fatal errors or crashes in the slurmctld logs" \
	bash -c "! grep -Eiq 'fatal|segfault|sigsegv|abort' '$LOG' '$BASE/log/slurmctld.out'"
# A clean stop (valgrind writes its leak report now).
cancel_all
t scontrol shutdown >/dev/null
for _ in $(seq $((600 * SLOW))); do kill -0 "$CTLD" 2>/dev/null || break; sleep 0.1; done
wait "$CTLD" 2>/dev/null
rc=$?
check "scontrol shutdown: slurmctld exited with status 0 (got $rc)" test $rc = 0
echo "$pass passed, $failed failed"
[ $failed -eq 0 ]
