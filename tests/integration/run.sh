#!/bin/bash
# Integration tests of orrery against a real Slurm 22.05 cluster on this
# machine (contrib/cluster/orrery-cluster): the SPANK plugin's
# --comm-profile, the prolog relay, srun/salloc paths and accounting.
#
# Usage: tests/integration/run.sh [--build-dir DIR] [--state-dir DIR]
#                                 [--port-base P] [--select cons_tres|orrery]
#                                 [--keep]
# --select cons_tres (default): the SPANK plugin's test_controller=1 stands
# in for the select plugin (shift = period / 4, score 1).
# --select orrery: the real select/orrery_cons_tres from the build tree
# (or $ORRERY_SELECT_PLUGIN_DIR) assigns the values.
# Run as root.  The cluster is brought up in its own state directory and
# port range, and always taken down again (trap), --keep aside.  The last
# line of output is "N passed, M failed"; the exit status is 0 only if
# nothing failed.
set -u -o pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
PROG=run.sh
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/orrery-it
PORT_BASE=17400
NODES=8
SELECT=cons_tres
CS_OPTIONS=--select

. "$HERE/../lib/tap.sh"
. "$HERE/../lib/cluster-suite.sh"
cs_parse_args "$@"
PLUGIN=$BUILD/plugins/spank/.libs/spank_orrery.so
cs_require "$PLUGIN" "$BUILD/lib/.libs/liborrery.so.1"
cs_extra_cleanup() { rm -rf "$STATE.lib"; }
cs_trap

# The cluster loads a copy of the SPANK plugin (and liborrery) that every
# user can read: one test submits as nobody, and the checkout may sit in
# a directory only root can enter (mktemp -d, /root).  nobody's sbatch
# finds liborrery through LD_LIBRARY_PATH (ahead of the plugin's
# RUNPATH into the build tree).
rm -rf "$STATE.lib"
mkdir -p "$STATE.lib"
chmod 755 "$STATE.lib"
install -m 755 "$PLUGIN" "$BUILD/lib/.libs/liborrery.so.1" "$STATE.lib/"
PLUGIN=$STATE.lib/spank_orrery.so

SPANK_ARGS="verbose=1"
case $SELECT in
cons_tres) SPANK_ARGS="test_controller=1 $SPANK_ARGS" ;;
orrery)
	sel_dir=${ORRERY_SELECT_PLUGIN_DIR:-$BUILD/plugins/select/orrery/.libs}
	if [ ! -f "$sel_dir/select_orrery_cons_tres.so" ]; then
		echo "run.sh: --select orrery: no select_orrery_cons_tres.so in $sel_dir" >&2
		summary; exit 1
	fi
	# From the readable copy too: it is in PluginDir, which every
	# client (nobody's sbatch included) must be able to open.
	install -m 755 "$sel_dir/select_orrery_cons_tres.so" "$STATE.lib/"
	export ORRERY_SELECT_PLUGIN_DIR=$STATE.lib ;;
*) echo "run.sh: --select: cons_tres or orrery" >&2; exit 2 ;;
esac

cs_up it "select $SELECT" --leaf-size 4 --gpus-per-node 8 --spank-plugin "$PLUGIN" \
	--select "$SELECT" --spank-args "$SPANK_ARGS"
unset ORRERY_COMM_PROFILE ORRERY_PROFILE ORRERY_PERIOD_US ORRERY_EPOCH_US ORRERY_SHIFT_US ORRERY_JOB_SCORE

PATTERN='period=250ms;up=0ms+80ms@45Gbps;up=150ms+20ms@10Gbps/a2a'

# ------------------------------------------------------------------ helpers
# Lines "node VAR=value" written by job steps: the value of VAR on node.
val() { awk -v n="$2" -v v="$3" '$1 == n { split($2, kv, "="); if (kv[1] == v) { sub(/^[^=]*=/, "", $2); print $2 } }' "$1" | head -n 1; }

# A task's report: its node and every ORRERY_* variable, one per line.
# The variables the plugin sets (others, e.g. ORRERY_COMM_PROFILE or the
# test harness's own ORRERY_*, travel with the submitter's environment).
REPORT='for v in $(env | grep -oE "^ORRERY_(PROFILE|PERIOD_US|EPOCH_US|SHIFT_US|JOB_SCORE)=" | tr -d = | sort); do echo "$SLURMD_NODENAME $v=$(printenv $v)"; done'

no_job_named() {
	[ -z "$(timeout 5 squeue -h -n "$1" -o %i)" ] &&
	[ -z "$(timeout 5 sacct -n -X -P --name "$1" -o JobID 2>/dev/null)" ]
}

# Each ORRERY_* variable the same on every listed node; print problems.
check_nodes() {
	local file=$1 nodes=$2 want_profile=$3 n v first
	for n in $nodes; do
		for v in ORRERY_PROFILE ORRERY_PERIOD_US ORRERY_EPOCH_US ORRERY_SHIFT_US ORRERY_JOB_SCORE; do
			[ -n "$(val "$file" "$n" "$v")" ] || echo "$n: no $v"
		done
		[ -z "$want_profile" ] || [ "$(val "$file" "$n" ORRERY_PROFILE)" = "$want_profile" ] ||
			echo "$n: ORRERY_PROFILE='$(val "$file" "$n" ORRERY_PROFILE)', want '$want_profile'"
	done
	first=$(echo "$nodes" | awk '{ print $1 }')
	for n in $nodes; do
		for v in ORRERY_PROFILE ORRERY_PERIOD_US ORRERY_EPOCH_US ORRERY_SHIFT_US; do
			[ "$(val "$file" "$n" "$v")" = "$(val "$file" "$first" "$v")" ] ||
				echo "$n: $v differs from $first"
		done
	done
}

# ------------------------------------------------------------------ tests
t_bad_option() {
	local err rc
	err=$(timeout 20 sbatch -J it-bad-opt --comm-profile='period=250ms;up=0ms+80ms@45Gfoo' \
		--wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q '^sbatch: error: orrery: --comm-profile: .*45Gfoo' <<<"$err" &&
	   [ "$(grep -c . <<<"$err")" -eq 1 ] && no_job_named it-bad-opt; then
		ok "sbatch --comm-profile with a bad unit is rejected, nothing queued"
	else
		not_ok "sbatch --comm-profile with a bad unit is rejected, nothing queued" "rc=$rc" "$err"
	fi
}

# bad_env NAME VALUE PATTERN WHAT: ORRERY_COMM_PROFILE=VALUE is refused in
# one line matching PATTERN, and nothing is queued.
bad_env() {
	local name=$1 value=$2 pattern=$3 what=$4 err rc
	err=$(ORRERY_COMM_PROFILE="$value" timeout 20 sbatch -J "$name" --wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q "^sbatch: error: orrery: ORRERY_COMM_PROFILE: .*$pattern" <<<"$err" &&
	   [ "$(grep -c . <<<"$err")" -eq 1 ] && no_job_named "$name"; then
		ok "$what is rejected in one line, nothing queued"
	else
		not_ok "$what is rejected in one line, nothing queued" "rc=$rc" "$err"
	fi
}
t_bad_env() { bad_env it-bad-env nosuchmodel nosuchmodel "a bad ORRERY_COMM_PROFILE"; }
# @FILE naming a missing file: one line too.
t_bad_env_file() {
	bad_env it-bad-envf "@$OUT/no-such.profile" no-such.profile "ORRERY_COMM_PROFILE=@FILE with a missing file"
}

# The file is read as the submitting user: nobody cannot read root's 0600 file.
t_file_as_user() {
	local f=$OUT/secret.profile err rc
	cp "$TOP/tests/data/profiles/good.profile" "$f"
	chmod 600 "$f"
	err=$(cd / && timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env SLURM_CONF="$SLURM_CONF" LD_LIBRARY_PATH="$STATE.lib" sbatch -J it-file-user --comm-profile="@$f" --wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q "^sbatch: error: orrery: --comm-profile: .*secret.profile" <<<"$err" &&
	   no_job_named it-file-user; then
		ok "@FILE is read as the submitting user (nobody cannot use root's 0600 file)"
	else
		not_ok "@FILE is read as the submitting user" "rc=$rc" "$err"
	fi
}

# The relay file is root's, mode 0600: another user on the node does not
# read a job's profile and slot.  A job of nobody's still gets them on
# every node: slurmstepd reads the file as root (init_post_opt) before
# user_init runs with the user's identity.
t_relay_private() {
	local id="" i modes="" problems nodes
	(cd / && timeout 120 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env SLURM_CONF="$SLURM_CONF" LD_LIBRARY_PATH="$STATE.lib" PATH="$PATH" \
		srun -J it-relay-user -N2 --comm-profile="$PATTERN" bash -c "$REPORT; sleep 5" \
		>"$OUT/relay-user.out" 2>"$OUT/relay-user.err") &
	local pid=$!
	# The files exist while the job runs (prolog to epilog); it may wait
	# for nodes first.
	for i in $(seq 1 450); do
		[ -n "$id" ] || id=$(timeout 5 squeue -h -n it-relay-user -o %i 2>/dev/null)
		if [ -n "$id" ] && [ "$(ls "$STATE"/spool/node*/orrery/"$id" 2>/dev/null | wc -l)" -eq 2 ]; then
			modes=$(stat -c '%a %U' "$STATE"/spool/node*/orrery/"$id" | sort | uniq -c | awk '{ $1 = $1; print }')
			break
		fi
		sleep 0.2
	done
	wait $pid
	nodes=$(awk '{ print $1 }' "$OUT/relay-user.out" | sort -u | tr '\n' ' ')
	problems=$(check_nodes "$OUT/relay-user.out" "$nodes" "")
	[ "$(echo $nodes | wc -w)" -eq 2 ] || problems="$problems nodes=$nodes"
	if [ "$modes" = "2 600 root" ] && [ -z "$problems" ]; then
		ok "relay files root's, mode 0600 (2 nodes); nobody's job still gets ORRERY_* on both"
	else
		not_ok "relay files root's, mode 0600; nobody's job still gets ORRERY_*" "job=$id relay modes: '$modes'" \
			"$problems" "$(cat "$OUT/relay-user.err")"
	fi
}

# A second client configuration: same cluster, other plugstack.conf.
client_conf() {
	local name=$1 line=$2
	sed "s|^PlugStackConfig=.*|PlugStackConfig=$OUT/$name.plugstack|" "$SLURM_CONF" >"$OUT/$name.conf"
	# Slurm reads topology/gres/cgroup conf beside slurm.conf.
	for f in topology.conf gres.conf; do ln -sf "$STATE/etc/$f" "$OUT/$f"; done
	echo "$line" >"$OUT/$name.plugstack"
	echo "$OUT/$name.conf"
}

t_unknown_key() {
	local conf err rc
	conf=$(client_conf badkey "required $PLUGIN runtime_dir=/run/orrery colour=blue")
	err=$(SLURM_CONF=$conf timeout 20 sbatch -J it-badkey --wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q "orrery: unknown plugstack argument 'colour'" <<<"$err" &&
	   no_job_named it-badkey; then
		ok "an unknown plugstack key fails the plugin with a clear error"
	else
		not_ok "an unknown plugstack key fails the plugin with a clear error" "rc=$rc" "$err"
	fi
}

t_missing_plugin() {
	local conf err rc
	conf=$(client_conf missing "required $OUT/no/such/spank_orrery.so")
	err=$(SLURM_CONF=$conf timeout 20 sbatch -J it-missing --wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q "no/such/spank_orrery.so" <<<"$err" && no_job_named it-missing; then
		ok "a missing required plugin fails sbatch naming the file"
	else
		not_ok "a missing required plugin fails sbatch naming the file" "rc=$rc" "$err"
	fi
}

t_require_profile() {
	local conf err rc
	conf=$(client_conf require "required $PLUGIN require_profile=1")
	err=$(SLURM_CONF=$conf timeout 20 sbatch -J it-require --wrap true 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && grep -q "orrery: this cluster requires --comm-profile" <<<"$err" &&
	   no_job_named it-require; then
		ok "require_profile=1 rejects a job without a profile"
	else
		not_ok "require_profile=1 rejects a job without a profile" "rc=$rc" "$err"
	fi
}

# The main one: 4 nodes, batch script and srun steps on every node.
J4=
submit_4node() {
	cat >"$OUT/j4.sh" <<EOF
#!/bin/bash
$REPORT
srun -N4 --ntasks-per-node=1 bash -c '$REPORT' > $OUT/j4.step0
srun -N4 --ntasks-per-node=2 bash -c '$REPORT' > $OUT/j4.step1
sleep 7
EOF
	J4=$(timeout 20 sbatch --parsable -J it-4node -N4 --ntasks-per-node=2 --gpus-per-node=8 --comment=orrery-it \
		--comm-profile="$PATTERN" -o "$OUT/j4.batch" "$OUT/j4.sh" 2>"$OUT/j4.err")
}

t_4node() {
	local state problems nodes batch_node
	[ -n "$J4" ] || { not_ok "4-node batch job submitted" "$(cat "$OUT/j4.err")"; return; }
	state=$(cs_wait_job "$J4" 90)
	[ "$state" = COMPLETED ] || { not_ok "4-node batch job completes" "state=$state" "$(cat "$OUT/j4.batch" 2>/dev/null)"; return; }
	nodes=$(awk '{ print $1 }' "$OUT/j4.step0" | sort -u | tr '\n' ' ')
	if [ "$(echo $nodes | wc -w)" -ne 4 ]; then
		not_ok "step on 4 nodes" "nodes: $nodes"
		return
	fi
	problems=$(check_nodes "$OUT/j4.step0" "$nodes" "")
	[ -z "$problems" ] && ok "srun step: tasks on all 4 nodes see the same ORRERY_* values" ||
		not_ok "srun step: tasks on all 4 nodes see the same ORRERY_* values" "$problems"
	problems=$(check_nodes "$OUT/j4.step1" "$nodes" "")
	[ "$(grep -c ORRERY_PROFILE= "$OUT/j4.step1")" -eq 8 ] || problems="$problems want 8 tasks with ORRERY_PROFILE"
	[ -z "$problems" ] && ok "second srun step, 2 tasks per node: all 8 tasks see them" ||
		not_ok "second srun step, 2 tasks per node: all 8 tasks see them" "$problems"
	batch_node=$(awk 'NR == 1 { print $1 }' "$OUT/j4.batch")
	problems=$(check_nodes "$OUT/j4.batch" "$batch_node" "$(val "$OUT/j4.step0" "$batch_node" ORRERY_PROFILE)")
	[ -z "$problems" ] && ok "batch script sees ORRERY_* like its steps" ||
		not_ok "batch script sees ORRERY_* like its steps" "$problems"

	# Values: the canonical profile parses back to the same period the
	# (test) controller derived, and shift = period / 4 (test_controller).
	local prof period shift
	prof=$(val "$OUT/j4.step0" "$batch_node" ORRERY_PROFILE)
	period=$(val "$OUT/j4.step0" "$batch_node" ORRERY_PERIOD_US)
	shift=$(val "$OUT/j4.step0" "$batch_node" ORRERY_SHIFT_US)
	local score epoch want
	score=$(val "$OUT/j4.step0" "$batch_node" ORRERY_JOB_SCORE)
	epoch=$(val "$OUT/j4.step0" "$batch_node" ORRERY_EPOCH_US)
	if [ "$SELECT" = cons_tres ]; then
		want="period 250000 us, shift 62500 us (test_controller)"
		[[ $prof == period=250ms\;* ]] && [ "$period" = 250000 ] && [ "$shift" = 62500 ]
	else
		# The controller's gate period is the profile's, rounded up to
		# its quantum; the shift lies in [0, period); epoch is in the past.
		want="period >= 250000 us, 0 <= shift < period, epoch <= now, score numeric"
		[[ $prof == period=250ms\;* ]] && [ "$period" -ge 250000 ] && [ "$shift" -ge 0 ] &&
			[ "$shift" -lt "$period" ] && [ "$epoch" -le "$(date +%s)000000" ] &&
			[[ $score =~ ^[0-9]+(\.[0-9]+)?$ ]]
	fi
	if [ $? -eq 0 ]; then
		ok "relayed values: canonical profile, $want"
	else
		not_ok "relayed values: canonical profile, $want" \
			"profile=$prof period=$period shift=$shift epoch=$epoch score=$score"
	fi
	# The relay files are gone after the job (job_epilog).
	local left
	left=$(ls "$STATE"/spool/node*/orrery/"$J4" 2>/dev/null)
	[ -z "$left" ] && ok "epilog removed the relay files" || not_ok "epilog removed the relay files" $left
}

t_sacct() {
	local line
	[ -n "$J4" ] || return
	# The end record reaches slurmdbd a moment after the job ends.
	local deadline=$(( $(date +%s) + 20 ))
	while :; do
		line=$(timeout 10 sacct -n -X -P -j "$J4" -o JobID,JobName,State,NNodes,NodeList,Comment,AdminComment 2>&1)
		case $line in *'|COMPLETED|'*) break ;; esac
		[ "$(date +%s)" -lt "$deadline" ] || break
		sleep 1
	done
	IFS='|' read -r id name state nn nodelist comment admin <<<"$line"
	# The select plugin records its decision in AdminComment (ORR1:).
	local admin_ok=1
	[ "$SELECT" = cons_tres ] || [[ $admin == *ORR1:* ]] || admin_ok=0
	if [ "$state" = COMPLETED ] && [ "$nn" = 4 ] && [ "$comment" = orrery-it ] &&
	   [[ $nodelist == node* ]] && [ $admin_ok -eq 1 ]; then
		ok "sacct records the 4-node job: $nodelist, Comment=$comment, AdminComment='$admin'"
	else
		not_ok "sacct records the 4-node job (State, NNodes=4, NodeList, Comment)" "$line"
	fi
}

# Precedence: --comm-profile wins over ORRERY_COMM_PROFILE.
JP=
submit_precedence() {
	JP=$(ORRERY_COMM_PROFILE=resnet50 timeout 20 sbatch --parsable -J it-prec -N1 \
		--comm-profile='period=100ms;up=0ms+10ms@1Gbps' -o "$OUT/jp.batch" \
		--wrap "srun bash -c '$REPORT'" 2>"$OUT/jp.err")
}
t_precedence() {
	local state prof
	[ -n "$JP" ] || { not_ok "precedence job submitted" "$(cat "$OUT/jp.err")"; return; }
	state=$(cs_wait_job "$JP" 60)
	prof=$(awk '{ sub(/^[^ ]* /, "") } /^ORRERY_PROFILE=/ { sub(/^ORRERY_PROFILE=/, ""); print; exit }' "$OUT/jp.batch")
	if [ "$state" = COMPLETED ] && [[ $prof == period=100ms\;* ]]; then
		ok "--comm-profile wins over ORRERY_COMM_PROFILE"
	else
		not_ok "--comm-profile wins over ORRERY_COMM_PROFILE" "state=$state profile=$prof"
	fi
}

# ORRERY_COMM_PROFILE alone, with a catalogue model.
JE=
submit_env() {
	JE=$(ORRERY_COMM_PROFILE=resnet50 timeout 20 sbatch --parsable -J it-env -N2 \
		-o "$OUT/je.batch" --wrap "srun -N2 bash -c '$REPORT'" 2>"$OUT/je.err")
}
t_env() {
	local state problems nodes
	[ -n "$JE" ] || { not_ok "ORRERY_COMM_PROFILE job submitted" "$(cat "$OUT/je.err")"; return; }
	state=$(cs_wait_job "$JE" 60)
	nodes=$(awk '{ print $1 }' "$OUT/je.batch" | sort -u | tr '\n' ' ')
	problems=$(check_nodes "$OUT/je.batch" "$nodes" "")
	[ "$(echo $nodes | wc -w)" -eq 2 ] || problems="$problems nodes=$nodes"
	grep -q 'ORRERY_PROFILE=resnet50' "$OUT/je.batch" || problems="$problems profile not resnet50*"
	[ "$state" = COMPLETED ] && [ -z "$problems" ] &&
		ok "ORRERY_COMM_PROFILE=resnet50 reaches both nodes (model period resolved)" ||
		not_ok "ORRERY_COMM_PROFILE=resnet50 reaches both nodes" "state=$state" $problems "$(head -5 "$OUT/je.batch")"
}

# salloc + srun, and a standalone srun that makes its own allocation.
t_salloc() {
	local out problems nodes
	out=$(timeout 60 salloc -J it-salloc -N2 --comm-profile="$PATTERN" \
		srun -N2 bash -c "$REPORT" 2>"$OUT/salloc.err")
	echo "$out" >"$OUT/salloc.out"
	nodes=$(awk '{ print $1 }' "$OUT/salloc.out" | sort -u | tr '\n' ' ')
	problems=$(check_nodes "$OUT/salloc.out" "$nodes" "")
	[ "$(echo $nodes | wc -w)" -eq 2 ] || problems="$problems nodes=$nodes"
	[ -z "$problems" ] && ok "salloc --comm-profile + srun: both nodes see ORRERY_*" ||
		not_ok "salloc --comm-profile + srun: both nodes see ORRERY_*" $problems "$(cat "$OUT/salloc.err")"
}

t_srun() {
	local problems nodes
	timeout 60 srun -J it-srun -N3 --comm-profile="$PATTERN" bash -c "$REPORT" \
		>"$OUT/srun.out" 2>"$OUT/srun.err"
	nodes=$(awk '{ print $1 }' "$OUT/srun.out" | sort -u | tr '\n' ' ')
	problems=$(check_nodes "$OUT/srun.out" "$nodes" "")
	[ "$(echo $nodes | wc -w)" -eq 3 ] || problems="$problems nodes=$nodes"
	[ -z "$problems" ] && ok "srun --comm-profile (own allocation): 3 nodes see ORRERY_*" ||
		not_ok "srun --comm-profile (own allocation): 3 nodes see ORRERY_*" $problems "$(cat "$OUT/srun.err")"

	local err rc
	err=$(timeout 20 srun -J it-srun-bad -N1 --comm-profile='period=0ms' true 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -q '^srun: error: orrery: --comm-profile: ' <<<"$err" && no_job_named it-srun-bad; then
		ok "srun with a bad --comm-profile is rejected before allocation"
	else
		not_ok "srun with a bad --comm-profile is rejected before allocation" "rc=$rc" "$err"
	fi
}

# A job without any profile gets no ORRERY_* at all.
t_no_profile() {
	local out
	out=$(timeout 60 srun -J it-none -N1 bash -c "$REPORT" 2>&1)
	[ -z "$out" ] && ok "a job without a profile gets no ORRERY_* variables" ||
		not_ok "a job without a profile gets no ORRERY_* variables" "$out"
}

# @FILE from the submitting user: canonical explicit pattern in the job.
t_file_ok() {
	local f=$OUT/mine.profile out
	cp "$TOP/tests/data/profiles/good.profile" "$f"
	chmod 644 "$f"
	out=$(timeout 60 srun -J it-file -N1 --comm-profile="@$f" bash -c "$REPORT" 2>&1)
	if grep -q 'ORRERY_PROFILE=period=250ms;' <<<"$out" && grep -q 'ORRERY_PERIOD_US=250000' <<<"$out"; then
		ok "--comm-profile=@FILE: the file's pattern reaches the tasks"
	else
		not_ok "--comm-profile=@FILE: the file's pattern reaches the tasks" "$out"
	fi
}

# orrery-cluster itself: `up' again is harmless, `status' sees everything.
t_cluster_idempotent() {
	local out rc n
	out=$("$CLUSTER" up --state-dir "$STATE" --port-base "$PORT_BASE" --nodes "$NODES" --timeout 30 2>&1); rc=$?
	n=$("$CLUSTER" status --state-dir "$STATE" 2>&1 | grep -c '^slurmd-node.* running$')
	if [ $rc -eq 0 ] && grep -q "^export SLURM_CONF=$SLURM_CONF\$" <<<"$out" && [ "$n" -eq "$NODES" ]; then
		ok "orrery-cluster up twice is harmless; status shows $n slurmd running"
	else
		not_ok "orrery-cluster up twice is harmless; status shows all slurmd" "rc=$rc slurmd running=$n" "$out"
	fi
}

# slurmctld killed with -9: whatever its process is left as (a zombie
# when nothing reaps it, gone, a stale pid file), `up' says what it found
# and starts it again, and jobs run.
t_ctld_killed() {
	local pid st out rc n
	cs_kill_ctld
	pid=$CS_CTLD_PID st=$CS_CTLD_STATE
	echo "# slurmctld $pid after kill -9: ${st:-gone}; pid file $( [ -f "$STATE/run/slurmctld.pid" ] && echo left || echo removed)"
	out=$("$CLUSTER" up --state-dir "$STATE" --port-base "$PORT_BASE" --nodes "$NODES" --timeout 60 2>&1); rc=$?
	n=$(timeout 60 srun -N 2 hostname 2>/dev/null | wc -l)
	if [ $rc -eq 0 ] && grep -q "slurmctld (pid $pid) .*: starting it again" <<<"$out" && [ "$n" -eq 2 ]; then
		ok "orrery-cluster up after kill -9 of slurmctld (${st:-gone}): says so, restarts it, jobs run"
	else
		not_ok "orrery-cluster up after kill -9 of slurmctld (${st:-gone}) restarts it" "rc=$rc srun lines=$n" "$out"
	fi
}

# Last: `down' stops exactly what `up' started, and frees the ports; and
# with slurmctld killed under a running job (no scancel possible), the
# job's tasks too (sleep 613: the batch script's srun and one per node).
t_cluster_down() {
	local pids alive="" p id tasks left
	pids=$(awk '{ print $2 }' "$STATE/run/pids")
	id=$(timeout 20 sbatch --parsable -N 2 -o /dev/null --wrap 'srun sleep 613' 2>/dev/null)
	for _ in $(seq 100); do
		[ "$(pgrep -fc '^(/usr/bin/)?sleep 613$')" -ge 2 ] && break
		sleep 0.2
	done
	tasks=$(pgrep -f 'sleep 613' | tr '\n' ' ')
	cs_kill_ctld
	"$CLUSTER" down --state-dir "$STATE" >"$OUT/down.log" 2>&1
	for p in $pids; do [ -d "/proc/$p" ] && alive="$alive $p"; done
	left=$(pgrep -f 'sleep 613' | tr '\n' ' ')
	[ -n "$id" ] && [ -n "$tasks" ] && [ -z "$left" ] &&
		ok "orrery-cluster down after kill -9 of slurmctld under running job $id: its tasks are stopped too ($tasks)" ||
		not_ok "orrery-cluster down stops a running job's tasks when slurmctld is gone" \
			"job=${id:-none} tasks=${tasks:-none} left=${left:-none}" "$(cat "$OUT/down.log")"
	[ -z "$left" ] || kill -KILL $left 2>/dev/null
	for p in $PORT_BASE $((PORT_BASE + 1)) $((PORT_BASE + 2)) $((PORT_BASE + 10)); do
		timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null && alive="$alive port:$p"
	done
	[ -z "$alive" ] && ok "orrery-cluster down stops all $(echo $pids | wc -w) daemons it started and frees the ports" ||
		not_ok "orrery-cluster down stops all daemons it started" "still alive:$alive" "$(cat "$OUT/down.log")"
}

# Submit the batch jobs together (they share the 8 nodes), then check.
t_cluster_idempotent
submit_4node
submit_precedence
submit_env
t_bad_option
t_bad_env
t_bad_env_file
t_file_as_user
t_unknown_key
t_missing_plugin
t_require_profile
t_4node
t_precedence
t_env
t_relay_private
t_salloc
t_srun
t_no_profile
t_file_ok
t_sacct
t_ctld_killed
t_cluster_down
