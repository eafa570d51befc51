# tests/lib/cluster-suite.sh - what the suites that run on a full cluster
# from contrib/cluster/orrery-cluster (munge, MariaDB, slurmdbd, slurmctld,
# slurmd) share: tests/integration/run.sh, tests/runtime/cluster.sh and
# tests/discover/cluster.sh.  Their options, the root check, bringing the
# cluster up in its own state directory and port range, and an EXIT trap
# that always takes it down again (--keep aside) and prints the summary.
#
# Sourced after tap.sh, with the suite's defaults set: PROG (its name in
# messages), TOP, BUILD, STATE, PORT_BASE, NODES.  CS_OPTIONS may name
# "--select" to accept `--select NAME' (sets SELECT).  A suite that
# leaves more than the cluster behind defines cs_extra_cleanup.

KEEP=0
CLUSTER=$TOP/contrib/cluster/orrery-cluster
T0=$(date +%s)

cs_parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--build-dir) BUILD=$2; shift ;;
		--state-dir) STATE=$2; shift ;;
		--port-base) PORT_BASE=$2; shift ;;
		--keep) KEEP=1 ;;
		--select)
			[[ " ${CS_OPTIONS:-} " == *" --select "* ]] ||
				{ echo "$PROG: unknown option '$1'" >&2; exit 2; }
			SELECT=$2; shift ;;
		*) echo "$PROG: unknown option '$1' (accepted: --build-dir DIR, --state-dir DIR, --port-base P, --keep${CS_OPTIONS:+, $CS_OPTIONS})" >&2
		   exit 2 ;;
		esac
		shift
	done
	BUILD=$(cd "$BUILD" 2>/dev/null && pwd)
}

# cs_require FILE...: root, and the build products the suite runs.
cs_require() {
	local f
	if [ "$(id -u)" -ne 0 ]; then
		echo "$PROG: must run as root (it starts slurmd, slurmctld, slurmdbd)" >&2
		summary; exit 1
	fi
	for f in "$@"; do
		[ -f "$f" ] || { echo "$PROG: no $f (build first: make && make check, or --build-dir DIR)" >&2; summary; exit 1; }
	done
}

cs_cleanup() {
	local rc=$?
	if [ "$KEEP" -eq 1 ]; then
		echo "# --keep: cluster left running; $CLUSTER down --state-dir $STATE"
	else
		"$CLUSTER" down --state-dir "$STATE" >/dev/null 2>&1 ||
			echo "# warning: $CLUSTER down --state-dir $STATE failed"
		declare -F cs_extra_cleanup >/dev/null && cs_extra_cleanup
	fi
	echo "# $(( $(date +%s) - T0 )) s"
	summary
	exit $(( FAIL > 0 || rc != 0 ? 1 : 0 ))
}

cs_trap() {
	trap cs_cleanup EXIT
	trap 'exit 130' INT TERM
}

# cs_up OUTNAME WHAT [orrery-cluster up OPTIONS...]: bring the cluster up
# (after taking down whatever an earlier run left in STATE), one result
# line, SLURM_CONF for the clients, and an empty world-writable work
# directory OUT=$STATE/OUTNAME to cd into.  Exits the suite when the
# cluster does not come up.
cs_up() {
	local name=$1 what=$2
	shift 2
	echo "# bringing up $NODES nodes in $STATE (ports $PORT_BASE..), $what"
	"$CLUSTER" down --state-dir "$STATE" >/dev/null 2>&1
	if ! "$CLUSTER" up --state-dir "$STATE" --port-base "$PORT_BASE" --nodes "$NODES" \
		--timeout 90 "$@" >"$STATE.up.log" 2>&1; then
		not_ok "cluster up" "$(tail -n 30 "$STATE.up.log")"
		exit 1
	fi
	ok "cluster up ($NODES nodes idle)"
	export SLURM_CONF=$STATE/etc/slurm.conf
	OUT=$STATE/$name
	rm -rf "$OUT"
	mkdir -p "$OUT"
	chmod 1777 "$OUT"
	cd "$OUT" || exit 1
}

# cs_wait_job ID [LIMIT]: wait (LIMIT seconds, default 60) until the
# controller has the job in a final state; print that state.
cs_wait_job() {
	local id=$1 limit=${2:-60} deadline st
	deadline=$(( $(date +%s) + limit ))
	while :; do
		st=$(timeout 5 scontrol -o show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
		case $st in
		''|PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED) ;;
		*) echo "$st"; return 0 ;;
		esac
		[ "$(date +%s)" -lt "$deadline" ] || { echo "TIMEOUT($st)"; return 1; }
		sleep 0.5
	done
}

# cs_kill_ctld: kill -9 the cluster's slurmctld and wait (5 s at most)
# until it is gone or a zombie (nothing reaps it under orrery-cluster).
# Sets CS_CTLD_PID and CS_CTLD_STATE (its /proc state then; empty: gone).
cs_kill_ctld() {
	local st=
	CS_CTLD_PID=$(awk '$1 == "slurmctld" { p = $2 } END { print p }' "$STATE/run/pids")
	kill -KILL "$CS_CTLD_PID" 2>/dev/null
	for _ in $(seq 50); do
		st=$(awk '{ sub(/^.*\) /, ""); print $1 }' "/proc/$CS_CTLD_PID/stat" 2>/dev/null)
		case $st in ''|Z|X) break ;; esac
		sleep 0.1
	done
	CS_CTLD_STATE=$st
}

# cs_unset_orrery_env: none of the controller's or the runtime's names
# leaks from the caller's environment into the jobs the suite submits.
cs_unset_orrery_env() {
	unset ORRERY_COMM_PROFILE ORRERY_PROFILE ORRERY_PERIOD_US ORRERY_EPOCH_US ORRERY_SHIFT_US \
		ORRERY_JOB_SCORE ORRERY_PHASE_OFFSET_US ORRERY_PHASE_SPAN_US ORRERY_PHASES_US ORRERY_GATE \
		ORRERY_GATE_MARGIN_PPM ORRERY_RECORD ORRERY_RUNTIME_STATS ORRERY_RUNTIME_VERBOSE \
		ORRERY_CHANNEL ORRERY_LEARN LD_PRELOAD
}

# cs_live_gate_libs: for the suites that run gated fake-NCCL jobs under
# select/orrery (channel, learn).  Sets PLUGIN, GATE, LOOP and SEL_DIR from
# BUILD (and ORRERY_SELECT_PLUGIN_DIR), requires them, and copies them and
# the libraries they load to $STATE.lib, which every user can read (nobody
# runs clients; the checkout may be in a directory only root can enter):
# ORRERY_SELECT_PLUGIN_DIR and LD_LIBRARY_PATH point there.  The copies and
# $STATE.orrery.conf go at cleanup.  Call before cs_trap.
cs_live_gate_libs() {
	PLUGIN=$BUILD/plugins/spank/.libs/spank_orrery.so
	GATE=$BUILD/contrib/runtime/nccl/.libs/liborrery-nccl.so
	LOOP=$BUILD/tests/runtime/nccl_train_loop
	SEL_DIR=${ORRERY_SELECT_PLUGIN_DIR:-$BUILD/plugins/select/orrery/.libs}
	cs_require "$PLUGIN" "$GATE" "$LOOP" "$SEL_DIR/select_orrery_cons_tres.so" "$BUILD/lib/.libs/liborrery.so.1"
	cs_extra_cleanup() { rm -rf "$STATE.lib" "$STATE.orrery.conf"; }
	rm -rf "$STATE.lib"
	mkdir -p "$STATE.lib"
	chmod 755 "$STATE.lib"
	install -m 755 "$PLUGIN" "$SEL_DIR/select_orrery_cons_tres.so" "$GATE" \
		"$BUILD/lib/.libs/liborrery.so.1" "$BUILD"/contrib/runtime/.libs/liborrery-runtime.so.0 \
		"$BUILD"/tests/runtime/fake-nccl/.libs/libnccl.so.2 "$LOOP" "$STATE.lib/"
	export ORRERY_SELECT_PLUGIN_DIR=$STATE.lib
	export LD_LIBRARY_PATH=$STATE.lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}
