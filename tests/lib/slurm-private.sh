# tests/lib/slurm-private.sh - a private Slurm cluster on this host, for
# the suites that drive slurmctld themselves (restart it, kill -9 it, run it
# under valgrind, swap SelectType): tests/select/run.sh,
# tests/stress/run.sh and contrib/bench/select-job-test.  It is munged,
# one slurmctld and N `slurmd -N' processes on 127.0.0.1 (Debian's
# multiple-slurmd build), no accounting database; contrib/cluster/
# orrery-cluster is the full cluster (slurmdbd, MariaDB) for the others.
#
# Sourced, after the caller set:
#   BASE       state directory (removed and made again by sp_fresh_base)
#   PORT       slurmctld port; slurmd of node i listens on PORT+i
#   PLUGINDIR  where select_orrery_cons_tres.so (and spank_orrery.so) are
# Optional: SP_WRAP (a command prefix for slurmctld, e.g. valgrind),
# SP_SLOW (a factor for every deadline, default 1).
# Every process started is in SP_PIDS; sp_stop_all (installed as the EXIT
# trap by sp_fresh_base) stops exactly those, by PID: TERM, then KILL,
# and then the steps of this cluster's jobs (sp_stop_stepds).

# The Slurm release the suite runs against (e.g. 22.05.8, 24.11.5).
SP_SLURM_VERSION=$(slurmctld -V 2>/dev/null | awk '{print $2}')
# sp_reconfigure_restarts: 0 when `scontrol reconfigure' re-executes
# slurmctld (24.05 and later: a new process, which restores orrery's model
# from orrery_state), 1 when the running process re-reads its files.
sp_reconfigure_restarts() {
	local maj min
	IFS=. read -r maj min _ <<<"$SP_SLURM_VERSION"
	[ "$((10#${maj:-0} * 100 + 10#${min:-0}))" -ge 2405 ]
}

# sp_log_counters: make slurmctld run save_all_state in the running
# process (deleting a partition does, on every release), where
# select/orrery logs its counters line (select_p_state_save).
sp_log_counters() {
	t scontrol create PartitionName=orrery_log Nodes=ALL State=DOWN >/dev/null 2>&1
	t scontrol delete PartitionName=orrery_log >/dev/null 2>&1
	sleep 1
}

SYSPLUGINS=$(dirname "$(ls /usr/lib/*/slurm-wlm/select_cons_tres.so 2>/dev/null | head -n1)")
HOST=$(hostname -s)
SP_PIDS=()
SP_SLOW=${SP_SLOW:-1}
SP_WRAP=${SP_WRAP:-}
CTLD=

# sp_preflight: why this host cannot run the cluster (on stderr), or 0.
sp_preflight() {
	[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; return 1; }
	[ -f "$PLUGINDIR/select_orrery_cons_tres.so" ] ||
		{ echo "no $PLUGINDIR/select_orrery_cons_tres.so (make install?)" >&2; return 1; }
	[ "$SYSPLUGINS" != . ] ||
		{ echo "Slurm's select_cons_tres.so not found (slurmctld installed?)" >&2; return 1; }
}

sp_stop_all() {
	local p alive
	for p in "${SP_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for _ in $(seq 100); do
		alive=0
		for p in "${SP_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.1
	done
	for p in "${SP_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	SP_PIDS=()
	sp_stop_stepds
}

# sp_stepds: the slurmstepds of this cluster's jobs, which a slurmd
# leaves running when it stops (so that jobs outlive a slurmd restart):
# those with a file under $BASE open (each keeps its slurmd's log).
# Only those: another cluster's steps on this host are left alone.
sp_stepds() {
	local d f c
	for d in /proc/[0-9]*; do
		c=
		read -r c 2>/dev/null <"$d/comm"
		[ "$c" = slurmstepd ] || continue
		for f in "$d"/fd/*; do
			case $(readlink "$f" 2>/dev/null) in
			"$BASE"/*) echo "${d#/proc/}"; break ;;
			esac
		done
	done
}

# sp_descendants PID...: every process under the PIDs (not the PIDs),
# walked the way tests/run-all.sh's kill_tree walks a tree.
sp_descendants() {
	local p c
	for p in "$@"; do
		for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do
			echo "$c"
			sp_descendants "$c"
		done
	done
}

# sp_stop_stepds: after the slurmds are gone, stop their jobs' steps and
# the steps' tasks (a batch script, its srun, the user's processes), TERM,
# then KILL after 5 s: a step whose slurmctld is gone retries for minutes,
# and a task whose stepd is killed is left running, orphaned (with
# proctrack/pgid nothing else reaps it); either would outlive the suite.
sp_stop_stepds() {
	local left tasks
	[ -n "${BASE:-}" ] || return 0
	left=$(sp_stepds)
	[ -n "$left" ] || return 0
	tasks=$(sp_descendants $left)
	kill -TERM $tasks $left 2>/dev/null
	for _ in $(seq 50); do
		left=$(sp_stepds)
		[ -n "$left" ] || break
		sleep 0.1
	done
	# Tasks listed a moment ago: kill those still there (pids are not
	# reused within seconds).
	kill -KILL $left $tasks 2>/dev/null
	return 0
}

# t CMD...: a client command that cannot hang the suite.
t() { timeout $((10 * SP_SLOW)) "$@"; }

# sp_wait_for SECONDS CMD...: poll until CMD succeeds; 1 at the deadline.
sp_wait_for() {
	local end=$((SECONDS + $1 * SP_SLOW))
	shift
	while [ $SECONDS -lt $end ]; do "$@" && return 0; sleep 0.2; done
	return 1
}

# sp_fresh_base [DIR...]: an empty $BASE with etc state log spool run and
# the extra DIRs; SLURM_CONF points into it.
sp_fresh_base() {
	rm -rf "$BASE"
	mkdir -p "$BASE"/{etc,state,log,spool,run} "${@/#/$BASE/}"
	chmod 755 "$BASE"
	export SLURM_CONF=$BASE/etc/slurm.conf
	trap sp_stop_all EXIT
}

# sp_start_munge: a munged of our own, with its own key and socket.
sp_start_munge() {
	mungekey --create --keyfile="$BASE/etc/munge.key" >/dev/null 2>&1 ||
		dd if=/dev/urandom of="$BASE/etc/munge.key" bs=1024 count=1 2>/dev/null
	chown munge: "$BASE/etc/munge.key" "$BASE/run" "$BASE/log"
	chmod 400 "$BASE/etc/munge.key"
	chmod 700 "$BASE/run"
	runuser -u munge -- munged --socket="$BASE/run/munge.sock" \
		--key-file="$BASE/etc/munge.key" --log-file="$BASE/log/munged.log" \
		--pid-file="$BASE/run/munged.pid" --seed-file="$BASE/run/munge.seed" \
		--num-threads=4 --foreground >"$BASE/log/munged.out" 2>&1 &
	SP_PIDS+=($!)
	chmod 755 "$BASE/run"
	for _ in $(seq 50); do [ -S "$BASE/run/munge.sock" ] && break; sleep 0.1; done
	chown root: "$BASE/log"
	[ -S "$BASE/run/munge.sock" ] || { echo "munged did not start: $BASE/log/munged.log" >&2; return 1; }
}

# sp_write_slurm_conf NAME SELECT PREFIX NNODES CPUS MEMORY [NODE_EXTRA]:
# slurm.conf for nodes PREFIX[1-NNODES] in one partition "main", with
# SelectType=SELECT; NODE_EXTRA goes on the NodeName line (e.g. Gres=gpu:8);
# the caller's extra lines come on stdin (SchedulerParameters, Prolog...).
sp_write_slurm_conf() {
	local name=$1 sel=$2 pfx=$3 n=$4 cpus=$5 mem=$6 node_extra=${7:-}
	{
		cat <<EOF
ClusterName=$name
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$BASE/run/munge.sock
CredType=cred/munge
PluginDir=$PLUGINDIR:$SYSPLUGINS
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool/%n
SlurmctldPidFile=$BASE/run/slurmctld.pid
SlurmdPidFile=$BASE/run/slurmd-%n.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd-%n.log
SlurmctldDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=$sel
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
KillWait=2
EOF
		cat
		echo "NodeName=$pfx[1-$n] NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$((PORT + 1))-$((PORT + n)) CPUs=$cpus RealMemory=$mem${node_extra:+ $node_extra} State=UNKNOWN"
		echo "PartitionName=main Nodes=$pfx[1-$n] Default=YES MaxTime=60 State=UP"
	} >"$BASE/etc/slurm.conf"
}

# sp_write_plugstack: orrery's SPANK plugin with a per-node runtime_dir
# when it was installed beside the select plugin, else an empty stack.
sp_write_plugstack() {
	if [ -f "$PLUGINDIR/spank_orrery.so" ]; then
		echo "required $PLUGINDIR/spank_orrery.so runtime_dir=$BASE/spool/%n/orrery"
	else
		:
	fi >"$BASE/etc/plugstack.conf"
}

# sp_write_topology LEAF NNODES PREFIX: leaves of LEAF nodes under a spine.
sp_write_topology() {
	local leaf=$1 n=$2 pfx=$3 i
	for ((i = 0; i < n / leaf; i++)); do
		echo "SwitchName=leaf$i Nodes=$pfx[$((i * leaf + 1))-$((i * leaf + leaf))]"
	done >"$BASE/etc/topology.conf"
	echo "SwitchName=spine Switches=leaf[0-$((n / leaf - 1))]" >>"$BASE/etc/topology.conf"
}

sp_ctld_up() { t scontrol ping 2>/dev/null | grep -q 'is UP'; }

# sp_start_ctld [-i|-c]: slurmctld in the foreground of a background job,
# under $SP_WRAP; CTLD is its PID.  The caller's environment goes along.
sp_start_ctld() {
	$SP_WRAP slurmctld -D "${1:--i}" >>"$BASE/log/slurmctld.out" 2>&1 &
	SP_PIDS+=($!)
	CTLD=$!
	sp_wait_for 20 sp_ctld_up
}

# sp_stop_ctld [KILL]: stop our slurmctld (TERM by default) and reap it.
sp_stop_ctld() {
	kill -"${1:-TERM}" "$CTLD" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$CTLD" 2>/dev/null || break; sleep 0.1; done
	wait "$CTLD" 2>/dev/null
}

# sp_start_slurmds PREFIX NNODES: one `slurmd -N PREFIXi' per node
# (their PIDs also in SP_SLURMDS).
SP_SLURMDS=()
sp_start_slurmds() {
	local i
	for ((i = 1; i <= $2; i++)); do
		mkdir -p "$BASE/spool/$1$i"
		slurmd -D -N "$1$i" >>"$BASE/log/slurmd-$1$i.out" 2>&1 &
		SP_PIDS+=($!)
		SP_SLURMDS+=($!)
	done
}

# sp_stop_slurmds: stop the slurmds sp_start_slurmds started (TERM, and
# reap them), e.g. before a SelectType change, which slurmd only reads at
# its start.
sp_stop_slurmds() {
	local p
	for p in "${SP_SLURMDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${SP_SLURMDS[@]}"; do
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		wait "$p" 2>/dev/null
	done
	SP_SLURMDS=()
}

# sp_count_nodes STATES: how many nodes sinfo lists in these states
# (e.g. idle, or idle,mix,alloc for every node that is up).
sp_count_nodes() { t sinfo -h -N -t "$1" -o %N 2>/dev/null | sort -u | wc -l; }
