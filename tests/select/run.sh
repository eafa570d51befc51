#!/bin/bash
# tests/select/run.sh - bring up a private Slurm cluster on this host with
# SelectType=select/orrery_cons_tres and check that it loads, delegates to
# cons_tres, fails open, and (when liborrery's placement is built in)
# places profiled jobs and records their shifts.
#
# usage: tests/select/run.sh [PLUGINDIR]
#   PLUGINDIR: where select_orrery_cons_tres.so was installed
#   (default /var/tmp/orrery-select/plugins; configure with
#   --with-slurm-plugindir=... and run `make install`).
# Needs root, munge, slurmctld, slurmd, slurm-client.  Uses ports
# 18000-18016 on 127.0.0.1 and state under /var/tmp/orrery-select/cluster
# (ORRERY_SELECT_TEST_PORT and ORRERY_SELECT_TEST_BASE move them).
# Prints one "ok"/"FAIL" line per check, then "N passed, M failed".
set -u

PLUGINDIR=${1:-/var/tmp/orrery-select/plugins}
BASE=${ORRERY_SELECT_TEST_BASE:-/var/tmp/orrery-select/cluster}
PORT=${ORRERY_SELECT_TEST_PORT:-18000}
NNODES=8
. "$(dirname "$0")/../lib/slurm-private.sh"

pass=0 failed=0
ok() { echo "ok   - $*"; pass=$((pass + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

why=$(sp_preflight 2>&1) || { echo "run.sh: $why"; echo "0 passed, 1 failed"; exit 1; }
sp_fresh_base
sp_start_munge

# ------------------------------------------------------------------ config
sp_write_slurm_conf orrsel select/orrery_cons_tres o $NNODES 2 1000 Gres=gpu:8 <<EOF
SlurmdDebug=info
JobCompType=jobcomp/none
MinJobAge=300
Prolog=$BASE/etc/prolog.sh
Epilog=$BASE/etc/epilog.sh
PrologFlags=Alloc
GresTypes=gpu
PlugStackConfig=$BASE/etc/plugstack.conf
EOF
# Count-only GPUs: Slurm 22.05 drops a gpu GRES without File=, and File=
# must be a device; links to /dev/null stand in (as orrery-cluster does).
mkdir -p "$BASE/dev"
for g in $(seq 0 7); do ln -sfn /dev/null "$BASE/dev/gpu$g"; done
printf 'AutoDetect=off\nNodeName=o[1-%s] Name=gpu File=%s/dev/gpu[0-7]\n' \
	$NNODES "$BASE" >"$BASE/etc/gres.conf"
# orrery's SPANK plugin (--comm-profile), when it was installed beside us.
sp_write_plugstack
SPANK=$PLUGINDIR/spank_orrery.so
sp_write_topology $((NNODES / 2)) $NNODES o	# two leaves
# Every job gets a profile: 50 ms of 80 Gb/s per node every 100 ms.  Two
# such jobs crossing the same 100 Gb/s leaf uplinks collide unless one is
# shifted by half a period.
write_good_conf() {
	cat >"$BASE/etc/orrery.conf" <<EOF
[orrery]
mode=enforce
candidates=16
debug=1
node_link=100Gbps
default_profile=period=100ms;up=0ms+50ms@80Gbps
[uplinks]
level0=100Gbps
EOF
}
write_good_conf
cat >"$BASE/etc/prolog.sh" <<EOF
#!/bin/sh
env | grep '^SPANK_ORRERY_' | sort >"$BASE/log/prolog-\$SLURM_JOB_ID-\$SLURMD_NODENAME" || true
exit 0
EOF
cat >"$BASE/etc/epilog.sh" <<EOF
#!/bin/sh
env | grep '^SPANK_ORRERY_' | sort >"$BASE/log/epilog-\$SLURM_JOB_ID-\$SLURMD_NODENAME" || true
exit 0
EOF
chmod 755 "$BASE/etc/prolog.sh" "$BASE/etc/epilog.sh"

# ------------------------------------------------------------------ daemons
sp_start_ctld -i
sp_start_slurmds o $NNODES
idle_nodes() { sp_count_nodes idle; }
all_idle() { [ "$(idle_nodes)" -eq $NNODES ]; }
all_up() { [ "$(sp_count_nodes idle,mix,alloc)" -eq $NNODES ]; }
sp_wait_for 20 all_idle

# ------------------------------------------------------------------ checks
check "slurmctld is running with select/orrery_cons_tres" kill -0 $CTLD
check "scontrol show config reports SelectType=select/orrery_cons_tres" \
	bash -c "timeout 10 scontrol show config | grep -Eq '^SelectType +=.*select/orrery_cons_tres'"
check "slurmctld logged orrery.conf (mode=enforce)" \
	grep -q 'select/orrery: mode=enforce' "$BASE/log/slurmctld.log"
check "all $NNODES slurmd registered idle (sinfo loads the plugin)" \
	test "$(idle_nodes)" -eq $NNODES
check "squeue works" t squeue -h
check "scontrol show node works" bash -c "timeout 10 scontrol show node o1 | grep -q NodeName=o1"
check "srun -N2 across emulated nodes" \
	bash -c "test \$(timeout 30 srun -N2 -n2 hostname | wc -l) -eq 2"
jid=$(t sbatch --parsable -N4 -o "$BASE/log/job-%j.out" --wrap 'srun hostname')
for _ in $(seq 100); do
	st=$(t squeue -h -j "$jid" -o %T 2>/dev/null)
	[ -z "$st" ] && break
	sleep 0.2
done
check "sbatch -N4 job ran its srun step on 4 nodes" \
	bash -c "test \$(wc -l <'$BASE/log/job-$jid.out') -eq 4"
check "no undefined-symbol or fatal errors in any daemon log" \
	bash -c "! grep -Eiq 'undefined symbol|fatal' $BASE/log/*.log $BASE/log/*.out"

# Fail-open: a broken orrery.conf makes the plugin pass through, jobs run.
printf '[orrery]\nmode=sideways\n' >"$BASE/etc/orrery.conf"
t scontrol reconfigure
sleep 1
check "broken orrery.conf: one clear error line naming the key" \
	grep -q "select/orrery: .*orrery.conf: \[orrery\] mode=sideways: expected enforce, advise or off; running as plain cons_tres" "$BASE/log/slurmctld.log"
check "broken orrery.conf: jobs still run" \
	bash -c "test \$(timeout 30 srun -N3 hostname | wc -l) -eq 3"
check "slurmctld still alive after reconfigure" kill -0 $CTLD

# ------------------------------------------------------------------ placement
write_good_conf
t scontrol reconfigure
sleep 1
field() { t scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
# A key of job $1's ORR1: record in AdminComment.
orr() {
	t scontrol show job "$1" | sed -n 's/.*ORR1:\([^ ]*\).*/\1/p' |
		tr ',' '\n' | sed -n "s/^$2=//p"
}
wait_running() {
	for _ in $(seq 100); do
		[ "$(t squeue -h -j "$1" -o %T)" = RUNNING ] && return 0
		sleep 0.1
	done
	return 1
}
# Stop our slurmctld and start it again (its jobs keep running);
# "corrupt" first overwrites orrery_state with random bytes.
# "kill9" kills it with SIGKILL instead of TERM (no state saved at exit);
# "clear" starts it with -c (no job state: after a SelectType change).
restart_ctld() {
	local sig=TERM opt=-i
	[ "${1:-}" = kill9 ] && sig=KILL
	[ "${1:-}" = clear ] && opt=-c
	sp_stop_ctld $sig
	[ "${1:-}" = corrupt ] && head -c 300 /dev/urandom >"$BASE/state/orrery_state"
	sp_start_ctld $opt
	sp_wait_for 20 all_up
}
if grep -q 'liborrery lacks' "$BASE/log/slurmctld.log"; then
	echo "skip - placement checks: $(grep -o 'liborrery lacks [a-z_]*' "$BASE/log/slurmctld.log" | head -n1)"
else
	# Job A holds an AdminComment of its own (jobstats-style): orrery
	# must append, not overwrite.
	a=$(t sbatch --parsable -H -N5 -n5 -c1 -o /dev/null --wrap 'sleep 30')
	t scontrol update job "$a" AdminComment="JS1:keepme"
	t scontrol release "$a"
	check "job A starts" wait_running "$a"
	b=$(t sbatch --parsable -N5 -n5 -c1 -o /dev/null --wrap 'sleep 30')
	check "job B starts beside A" wait_running "$b"
	sleep 1
	check "AdminComment keeps the existing JS1: record and appends ORR1:" \
		bash -c "timeout 10 scontrol show job $a | grep -Eq 'AdminComment=JS1:keepme ORR1:period_us=100000,'"
	pa=$(orr "$a" period_us) sa=$(orr "$a" shift_us) sb=$(orr "$b" shift_us)
	scb=$(orr "$b" score_min)
	check "job A period is the profile's 100 ms ($pa us)" test "$pa" = 100000
	d=$(( ( (${sb:-0} - ${sa:-0}) % 100000 + 100000) % 100000 ))
	check "job B is shifted half a period from A (A=$sa B=$sb us)" \
		test -n "$sb" -a $d -ge 49000 -a $d -le 51000
	check "job B's links are never over capacity after the shift (score_min=$scb)" \
		test "$scb" = 1.0000
	nb=$(field "$b" NodeList)
	check "slurmctld narrowed B to the candidate it logged ($nb)" \
		bash -c "grep -F 'select/orrery: trying JobId=$b candidate 1/' '$BASE/log/slurmctld.log' | grep -qF ' $nb '"
	first=$(ls "$BASE"/log/prolog-"$b"-* 2>/dev/null | head -n1)
	check "prolog of B sees SPANK_ORRERY_SHIFT_US=$sb" \
		grep -qx "SPANK_ORRERY_SHIFT_US=$sb" "${first:-/dev/null}"
	check "prolog of B sees SPANK_ORRERY_PERIOD_US and EPOCH_US" \
		bash -c "grep -qx SPANK_ORRERY_PERIOD_US=100000 '${first:-/dev/null}' && grep -q '^SPANK_ORRERY_EPOCH_US=[0-9]' '${first:-/dev/null}'"
	sp_wait_for 10 test -s "$BASE/state/orrery_state"
	check "state file written" test -s "$BASE/state/orrery_state"

	# Restart slurmctld while A and B run: orrery's record comes back from
	# orrery_state and the jobs leave it when they end.
	restart_ctld
	check "restart: B keeps its ORR1: record" \
		test "$(orr "$b" shift_us)" = "$sb"
	t scancel "$a" "$b"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	sleep 1
	check "restart: restored the 2 running jobs from orrery_state" \
		grep -q "select/orrery: restored 2 jobs from $BASE/state/orrery_state" "$BASE/log/slurmctld.log"
	check "ended jobs leave orrery's state (counter jobs=0)" \
		bash -c "grep 'select/orrery: mode=' '$BASE/log/slurmctld.log' | tail -n1 | grep -q 'jobs=0'"

	# mode=advise: the best candidate is logged, cons_tres chooses freely.
	sed -i 's/^mode=enforce/mode=advise/' "$BASE/etc/orrery.conf"
	t scontrol reconfigure
	sleep 1
	v=$(t sbatch --parsable -N2 -o /dev/null --wrap 'sleep 1')
	for _ in $(seq 100); do [ -z "$(t squeue -h -j "$v" -o %T)" ] && break; sleep 0.2; done
	check "advise: candidate logged, bitmap not narrowed" \
		bash -c "grep -q 'select/orrery: advise: JobId=$v candidate 1/' '$BASE/log/slurmctld.log' && ! grep -q 'select/orrery: trying JobId=$v ' '$BASE/log/slurmctld.log'"
	write_good_conf
	check "slurmctld still alive" kill -0 $CTLD

	# Restart slurmctld on a corrupt orrery_state with liborrery's
	# placement and evaluation failing (fault injection): one error
	# line for the state, one fallback line per job, jobs still run.
	ORRERY_FAULT=place,evaluate restart_ctld corrupt
	c=$(t sbatch --parsable -N3 -o "$BASE/log/job-%j.out" --wrap 'srun hostname')
	for _ in $(seq 100); do [ -z "$(t squeue -h -j "$c" -o %T)" ] && break; sleep 0.2; done
	check "faults injected: the job still ran on 3 nodes" \
		bash -c "test \$(wc -l <'$BASE/log/job-$c.out') -eq 3"
	check "faults injected: one 'falling back to cons_tres' line for the job's placement" \
		test "$(grep -c "select/orrery: placement failed: .*, falling back to cons_tres for JobId=$c\$" "$BASE/log/slurmctld.log")" -eq 1
	check "faults injected: evaluation failure at job start falls back too" \
		grep -q "select/orrery: evaluation failed: .*, falling back to cons_tres for JobId=$c\$" "$BASE/log/slurmctld.log"
	check "corrupt orrery_state: one error line, jobs rebuilt from slurmctld's records" \
		grep -q "select/orrery: $BASE/state/orrery_state: .*; rebuilding the running jobs from slurmctld's records" "$BASE/log/slurmctld.log"
	check "slurmctld survived the faults" kill -0 $CTLD

	# ---------------------------------------------------------- kill -9
	# SIGKILL leaves no chance to save anything at exit: orrery_state as
	# written at job_begin and Slurm's own job state must be enough.
	restart_ctld	# again without fault injection
	k1=$(t sbatch --parsable -N5 -n5 -c1 -o /dev/null --wrap 'sleep 60')
	check "kill -9: profiled job K1 starts" wait_running "$k1"
	sk1=$(orr "$k1" shift_us)
	# slurmctld's state-save thread writes job state at most every
	# SAVE_MAX_WAIT (5 s): killed sooner, Slurm itself would requeue K1.
	sleep 7
	restart_ctld kill9
	check "kill -9: K1 still running after the restart" \
		test "$(t squeue -h -j "$k1" -o %T)" = RUNNING
	check "kill -9: K1 keeps its ORR1: shift ($sk1 us)" \
		test -n "$sk1" -a "$(orr "$k1" shift_us)" = "$sk1"
	k2=$(t sbatch --parsable -N5 -n5 -c1 -o /dev/null --wrap 'sleep 30')
	check "kill -9: new job K2 starts beside K1" wait_running "$k2"
	# orrery_state is read when the first job_test builds the cluster.
	check "kill -9: restored K1 from orrery_state" \
		bash -c "grep 'select/orrery: restored [0-9]* jobs from' '$BASE/log/slurmctld.log' | tail -n1 | grep -q 'restored 1 jobs'"
	sleep 1
	sk2=$(orr "$k2" shift_us)
	d=$(( ( (${sk2:-0} - ${sk1:-0}) % 100000 + 100000) % 100000 ))
	check "kill -9: K2 is shifted half a period from restored K1 (K1=$sk1 K2=$sk2 us)" \
		test -n "$sk2" -a $d -ge 49000 -a $d -le 51000
	t scancel "$k1" "$k2"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	sleep 1
	ep=$(ls "$BASE"/log/epilog-"$k1"-* 2>/dev/null | head -n1)
	check "kill -9: K1's epilog still sees SPANK_ORRERY_SHIFT_US=$sk1" \
		grep -qx "SPANK_ORRERY_SHIFT_US=$sk1" "${ep:-/dev/null}"

	# ---------------------------------------------------------- busy nodes
	# A job that may share nodes is offered every node, full or not;
	# orrery ranks only those with CPUs enough for it.  o1-o3 full, o4
	# half used, o5-o8 idle: a 5-node job with one CPU per node fits on
	# o4-o8 only and must start on orrery's first candidate (ranked among
	# all eight, the best sets hold full nodes that cons_tres refuses).
	fill=()
	for n in 1 2 3; do
		fill+=("$(t sbatch --parsable -w o$n -N1 -n2 -c1 -o /dev/null --wrap 'sleep 60')")
	done
	fill+=("$(t sbatch --parsable -w o4 -N1 -n1 -c1 -o /dev/null --wrap 'sleep 60')")
	for j in "${fill[@]}"; do wait_running "$j"; done
	kept_counter() {
		grep 'select/orrery: mode=.* kept_answers=' "$BASE/log/slurmctld.log" | tail -n1 |
			sed 's/.* kept_answers=\([0-9]*\).*/\1/'
	}
	# A reconfigure that changes nothing orrery models keeps its model
	# (the 4 running jobs) instead of reloading it from orrery_state.
	# Its "kept" line comes at the first call that needs the model, which
	# may be within the second below (a job's end, the channel resync):
	# the log is read from the reconfigure on.
	mark0=$(wc -l <"$BASE/log/slurmctld.log")
	t scontrol reconfigure
	sleep 1
	k0=$(kept_counter)
	p=$(t sbatch --parsable -N5 --ntasks-per-node=1 -c1 -o /dev/null --wrap 'sleep 30')
	check "busy nodes: a 5-node job starts beside 4 single-node jobs" wait_running "$p"
	check "busy nodes: it runs on the nodes with a free CPU ($(field "$p" NodeList))" \
		test "$(field "$p" NodeList)" = "o[4-8]"
	tried=$(grep -F "select/orrery: trying JobId=$p candidate " "$BASE/log/slurmctld.log" |
		sed 's|.* candidate \([0-9]*\)/.*|\1|' | tr '\n' ' ')
	check "busy nodes: cons_tres took orrery's first candidate, no other was tried (tried: $tried)" \
		test "$tried" = "1 "
	# The only 5 nodes with a free CPU are also cons_tres's own answer on
	# the full set: the job starts on it without a second cons_tres call.
	check "busy nodes: cons_tres's own answer was kept (kept_answers ${k0:-?} -> $(kept_counter))" \
		test "$(kept_counter)" = $(( ${k0:-0} + 1 ))
	if sp_reconfigure_restarts; then
		# Slurm $SP_SLURM_VERSION: reconfigure is a new slurmctld.
		check "busy nodes: the reconfigure before it (a new slurmctld on $SP_SLURM_VERSION) restored orrery's model of the 4 running jobs" \
			bash -c "tail -n +$((mark0 + 1)) '$BASE/log/slurmctld.log' | grep -q 'select/orrery: restored 4 jobs from '"
	else
		check "busy nodes: the reconfigure before it kept orrery's model of the 4 running jobs" \
			bash -c "tail -n +$((mark0 + 1)) '$BASE/log/slurmctld.log' | grep -q 'select/orrery: reconfigure changed nothing orrery models; kept its 4 running jobs' &&
				! tail -n +$((mark0 + 1)) '$BASE/log/slurmctld.log' | grep -q 'select/orrery: restored '"
	fi
	t scancel "$p" "${fill[@]}"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	sp_wait_for 20 all_idle

	# ---------------------------------------------------------- hold
	# orrery.conf hold=COST,SECONDS: A (o1+o5) and B (o2+o6) cross both
	# leaf uplinks and rotate apart; o3 and o7 are taken by one-node
	# jobs, so C (2 whole nodes) can only start on o4+o8, across the same
	# uplinks: three 50 %-duty jobs on 100 Gb/s, a predicted cost of
	# about 1.5 jobs.  Held at 0.5 while A runs; it starts when A ends.
	# bf_interval=1: a backfill pass plans C within the 3 s below.
	sed -i 's/^\[orrery\]$/[orrery]\nhold=0.5,600/' "$BASE/etc/orrery.conf"
	echo "SchedulerParameters=bf_interval=1" >>"$BASE/etc/slurm.conf"
	t scontrol reconfigure
	sleep 1
	check "hold: slurmctld logged hold=0.5,600" \
		bash -c "grep 'select/orrery: mode=enforce candidates=16 rank_spread=0 hold=' '$BASE/log/slurmctld.log' | tail -n1 | grep -q 'hold=0.5,600'"
	# The layout above (also the limit's test below).
	hold_layout() {
		ha=$(t sbatch --parsable -w o1,o5 -N2 -n2 -c2 -o /dev/null --wrap 'sleep 120')
		hb=$(t sbatch --parsable -w o2,o6 -N2 -n2 -c2 -o /dev/null --wrap 'sleep 120')
		hf=()
		for n in 3 7; do
			hf+=("$(t sbatch --parsable -w o$n -N1 -n1 -c2 -o /dev/null --wrap 'sleep 120')")
		done
		for j in "$ha" "$hb" "${hf[@]}"; do wait_running "$j"; done
	}
	hold_layout
	hc=$(t sbatch --parsable -N2 -n2 -c2 -o /dev/null --wrap 'sleep 5')
	sp_wait_for 10 grep -q "select/orrery: JobId=$hc held: " "$BASE/log/slurmctld.log"
	check "hold: C is held, the reason logged once ($(grep -o "select/orrery: JobId=$hc held: .*" "$BASE/log/slurmctld.log" | head -n1))" \
		test "$(grep -c "select/orrery: JobId=$hc held: its neighbours would add [0-9.]* jobs of slowdown on its placement's links (hold=0.5,600); waiting up to [0-9]*s more" "$BASE/log/slurmctld.log")" -eq 1
	sleep 3
	check "hold: C still pending while A and B run ($(t squeue -h -j "$hc" -o '%T %r'))" \
		test "$(t squeue -h -j "$hc" -o %T)" = PENDING
	# squeue can only say Resources; AdminComment says why.
	check "hold: C's AdminComment says it is held while it waits ($(t scontrol show job "$hc" | grep -o 'AdminComment=[^ ]*'))" \
		test "$(orr "$hc" fallback)" = held
	# Backfill plans C from its hold's end (600 s after it became
	# eligible), not from now: its nodes stay usable meanwhile.
	planned() {
		local st sub
		st=$(date -d "$(t squeue -h -j "$hc" -o %S)" +%s 2>/dev/null) || return 1
		sub=$(date -d "$(t squeue -h -j "$hc" -o %V)" +%s 2>/dev/null) || return 1
		[ $((st - sub)) -ge 595 ] && [ $((st - sub)) -le 605 ]
	}
	sp_wait_for 10 planned
	check "hold: backfill plans C from its hold's end (StartTime $(t squeue -h -j "$hc" -o %S), submitted $(t squeue -h -j "$hc" -o %V))" \
		planned
	t scancel "$ha"
	ok_c=false
	for _ in $(seq 150); do
		s=$(t squeue -h -j "$hc" -o %T)
		[ "$s" = RUNNING ] || [ "$s" = COMPLETING ] || [ -z "$s" ] && { ok_c=true; break; }
		sleep 0.2
	done
	check "hold: C starts once A has ended ($(field "$hc" NodeList))" $ok_c
	# Held from its first refusal until it started: at least the 3 s
	# slept above; its record says so (orrery-sacct's Held column).
	hs=$(orr "$hc" held_s)
	check "hold: C's ORR1: record says it was held ${hs:-?} s (at least 3)" \
		test "${hs:-0}" -ge 3
	check "hold: C's record at its start replaces the held one (fallback '$(orr "$hc" fallback)', period_us $(orr "$hc" period_us))" \
		bash -c "[ -z '$(orr "$hc" fallback)' ] && [ -n '$(orr "$hc" period_us)' ]"
	check "hold: slurmctld alive" kill -0 $CTLD
	t scancel "$hb" "${hf[@]}" "$hc"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	sp_wait_for 20 all_idle

	# The hold's limit: at hold=0.5,8 the same layout holds D, and D
	# starts on o4+o8 while A and B still run, no sooner than 8 s after
	# it became eligible (a hold never outlasts its limit, and never
	# ends before it while the cost stays).
	sed -i 's/^hold=0.5,600$/hold=0.5,8/' "$BASE/etc/orrery.conf"
	t scontrol reconfigure
	sleep 1
	hold_layout
	hd=$(t sbatch --parsable -N2 -n2 -c2 -o /dev/null --wrap 'sleep 60')
	sp_wait_for 10 grep -q "select/orrery: JobId=$hd held: " "$BASE/log/slurmctld.log"
	check "hold limit: D is held at hold=0.5,8" \
		grep -q "select/orrery: JobId=$hd held: .*(hold=0.5,8); waiting up to [0-8]s more" "$BASE/log/slurmctld.log"
	ok_d=false
	for _ in $(seq 300); do
		[ "$(t squeue -h -j "$hd" -o %T)" = RUNNING ] && { ok_d=true; break; }
		sleep 0.2
	done
	check "hold limit: D starts while A and B run ($(field "$hd" NodeList); A $(t squeue -h -j "$ha" -o %T), B $(t squeue -h -j "$hb" -o %T))" \
		bash -c "$ok_d && [ '$(t squeue -h -j "$ha" -o %T)' = RUNNING ] && [ '$(t squeue -h -j "$hb" -o %T)' = RUNNING ]"
	d_sub=$(date -d "$(field "$hd" SubmitTime)" +%s 2>/dev/null || echo 0)
	d_st=$(date -d "$(field "$hd" StartTime)" +%s 2>/dev/null || echo 0)
	check "hold limit: D started $((d_st - d_sub)) s after submission (at least 8)" \
		test $((d_st - d_sub)) -ge 8
	check "hold limit: slurmctld alive" kill -0 $CTLD
	t scancel "$ha" "$hb" "${hf[@]}" "$hd"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	write_good_conf
	sed -i '/^SchedulerParameters=bf_interval=1$/d' "$BASE/etc/slurm.conf"
	t scontrol reconfigure
	sleep 1

	# ---------------------------------------------------------- GPUs
	# GRES are cons_tres's business: orrery narrows the node bitmap only.
	# Total GPUs of a job from `scontrol show job -d' (Nodes=... GRES=gpu:N(...)).
	gpus_total() {
		t scontrol show job -d "$1" | sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=gpu:\([0-9]*\).*/\1 \2/p' |
			while read -r nl n; do
				echo $(( $(t scontrol show hostnames "$nl" | wc -l) * n ))
			done | awk '{ s += $1 } END { print s + 0 }'
	}
	gpu_job() {	# gpu_job CHECK-NAME EXPECT-PER-NODE EXPECT-TOTAL SBATCH-ARGS...
		local what=$1 per=$2 tot=$3 j tres; shift 3
		j=$(t sbatch --parsable -o /dev/null "$@" --wrap 'sleep 20')
		if ! wait_running "$j"; then bad "$what: did not start"; t scancel "$j"; return; fi
		# (TRES lists gres/gpu only with slurmdbd; JOB_GRES is cons_tres's.)
		tres=$(t scontrol show job -d "$j" | sed -n 's/.*JOB_GRES=\([^ ]*\).*/\1/p')
		check "$what: JOB_GRES=gpu:$tot ($tres)" test "$tres" = "gpu:$tot"
		check "$what: $tot GPUs allocated in total" test "$(gpus_total "$j")" = "$tot"
		[ -n "$per" ] && check "$what: every node got gpu:$per" \
			bash -c "timeout 10 scontrol show job -d $j | grep -q 'GRES=gpu:' && ! timeout 10 scontrol show job -d $j | grep '^ *Nodes=.*GRES=gpu:' | grep -vq 'GRES=gpu:$per('"
		check "$what: orrery placed it (ORR1: record)" test -n "$(orr "$j" shift_us)"
		t scancel "$j"
		for _ in $(seq 100); do [ -z "$(t squeue -h -j "$j" -o %T)" ] && break; sleep 0.1; done
	}
	gpu_job "-N2 --gpus-per-node=8" 8 16 -N2 --gpus-per-node=8
	if [ -f "$SPANK" ]; then
		gpu_job "-N2 --gpus-per-node=8 --comm-profile" 8 16 -N2 --gpus-per-node=8 \
			--comm-profile='period=100ms;up=0ms+50ms@80Gbps'
	else
		echo "skip - --comm-profile GPU job: no $SPANK"
	fi
	gpu_job "-N2 --gpus=12" "" 12 -N2 --gpus=12

	# ---------------------------------------------------------- cache
	# A waiting job is tested on every scheduling pass.  cons_tres answers
	# first on the full set: while the job cannot start it costs one
	# cons_tres call per test and is never ranked; once another job's
	# job_fini frees nodes it is ranked against the new state and
	# started on its best candidate, its profile parsed once for the
	# ranking and job_begin together; its cache entry goes at job_fini.
	# sched_interval=2: main-scheduler passes every 2 s.
	echo "SchedulerParameters=sched_interval=2" >>"$BASE/etc/slurm.conf"
	t scontrol reconfigure
	sleep 1
	# counter KEY: its value on the last counters line
	counter() {
		grep 'select/orrery: mode=.* job_tests=' "$BASE/log/slurmctld.log" | tail -n1 |
			tr ' ' '\n' | sed -n "s/^$1=//p"
	}
	w1=$(t sbatch --parsable -N4 -n8 -c1 -o /dev/null --wrap 'sleep 60')
	check "cache: W1 holds 4 whole nodes" wait_running "$w1"
	sp_log_counters
	r0=$(counter run_now_tests) j0=$(counter job_tests) c0=$(counter cons_tres_calls)
	k0=$(( $(counter rank_hits) + $(counter rank_misses) )) p0=$(counter parses)
	p=$(t sbatch --parsable -N6 -n6 -c1 -o /dev/null --wrap 'sleep 20')
	sleep 6		# 3 main-scheduler passes, a backfill cycle
	sp_log_counters
	r1=$(counter run_now_tests) j1=$(counter job_tests) c1=$(counter cons_tres_calls)
	k1=$(( $(counter rank_hits) + $(counter rank_misses) ))
	check "cache: waiting P (6 nodes, 4 free) is pending" \
		test "$(t squeue -h -j "$p" -o %T)" = PENDING
	check "cache: P was tested to start on several passes (run_now_tests $r0 -> $r1)" \
		test "$r1" -ge $((r0 + 2))
	check "cache: one cons_tres call per job_test while P waits (job_tests +$((j1 - j0)), cons_tres_calls +$((c1 - c0)))" \
		test $((c1 - c0)) -eq $((j1 - j0))
	check "cache: P not ranked while it cannot start (rankings $k0 -> $k1, no candidate line)" \
		bash -c "test $k1 -eq $k0 && ! grep -q 'select/orrery: trying JobId=$p ' '$BASE/log/slurmctld.log'"
	t scancel "$w1"	# job_fini: the cluster state changed
	check "cache: P starts once W1 has ended" wait_running "$p"
	sleep 1
	np=$(field "$p" NodeList)
	check "cache: after W1's job_fini P was ranked and started on its first candidate ($np)" \
		bash -c "grep -F 'select/orrery: trying JobId=$p candidate 1/' '$BASE/log/slurmctld.log' | tail -n1 | grep -qF ' $np '"
	check "cache: P's profile parsed once for its ranking and job_begin (parses $p0 -> $(counter parses))" \
		test "$(counter parses)" -eq $((p0 + 1))
	t scancel "$p"
	for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
	sleep 1
	sp_log_counters
	check "cache: no entry left once the cluster is empty (cache_entries=$(counter cache_entries))" \
		test "$(counter cache_entries)" = 0

	# ---------------------------------------------------------- off
	# mode=off: the same two heavy jobs land where plain cons_tres puts
	# them.
	heavy_nodes() {
		local h1 h2 r
		h1=$(t sbatch --parsable -N3 -n6 -c1 -o /dev/null --wrap 'sleep 20')
		wait_running "$h1"
		h2=$(t sbatch --parsable -N3 -n6 -c1 -o /dev/null --wrap 'sleep 20')
		wait_running "$h2"
		r="$(field "$h1" NodeList) $(field "$h2" NodeList)"
		t scancel "$h1" "$h2"
		for _ in $(seq 100); do [ -z "$(t squeue -h)" ] && break; sleep 0.1; done
		sp_wait_for 20 all_idle
		echo "$r"
	}
	# Both runs start from a cleared slurmctld (-c) with all nodes idle.
	sed -i 's/^mode=.*/mode=off/' "$BASE/etc/orrery.conf"
	restart_ctld clear
	sp_wait_for 20 all_idle
	check "mode=off: slurmctld logged it" \
		bash -c "grep 'select/orrery: mode=' '$BASE/log/slurmctld.log' | tail -n1 | grep -q 'mode=off'"
	off_nodes=$(heavy_nodes)
	# A client that puts the controller's names in the job's SPANK
	# environment itself (here the stand-in controller of a plugstack of
	# its own) does not get them to the prolog of a job orrery did not
	# place (security review, finding 5): job_begin removes them.
	if [ -f "$SPANK" ]; then
		sed "s|^PlugStackConfig=.*|PlugStackConfig=$BASE/etc/client.plugstack|" \
			"$BASE/etc/slurm.conf" >"$BASE/etc/client.conf"
		echo "required $SPANK test_controller=1" >"$BASE/etc/client.plugstack"
		cj=$(SLURM_CONF=$BASE/etc/client.conf t sbatch --parsable -N1 -o /dev/null \
			--comm-profile='period=100ms;up=0ms+50ms@80Gbps' --wrap true)
		sp_wait_for 20 bash -c "ls '$BASE'/log/epilog-'$cj'-* >/dev/null 2>&1"
		first=$(ls "$BASE"/log/prolog-"$cj"-* 2>/dev/null | head -n1)
		check "mode=off: the prolog gets the client's profile, none of the controller values it set itself ($(tr '\n' ' ' <"${first:-/dev/null}"))" \
			bash -c "grep -q '^SPANK_ORRERY_PROFILE=period=100ms' '${first:-/dev/null}' &&
				! grep -Eq '^SPANK_ORRERY_(PERIOD_US|EPOCH_US|SHIFT_US|JOB_SCORE)=' '${first:-/dev/null}'"
	else
		echo "skip - client-set controller values: no $SPANK"
	fi
	sed -i 's|^SelectType=.*|SelectType=select/cons_tres|' "$BASE/etc/slurm.conf"
	restart_ctld clear
	sp_wait_for 20 all_idle
	check "SelectType=select/cons_tres now" \
		bash -c "timeout 10 scontrol show config | grep -Eq '^SelectType += select/cons_tres$'"
	ct_nodes=$(heavy_nodes)
	check "off mode places like cons_tres (off: $off_nodes; cons_tres: $ct_nodes)" \
		test -n "$ct_nodes" -a "$off_nodes" = "$ct_nodes"
	sed -i 's|^SelectType=.*|SelectType=select/orrery_cons_tres|' "$BASE/etc/slurm.conf"

	# ---------------------------------------------------------- topology/block
	# Where Slurm has topology/block (23.11+): orrery models the base
	# blocks as leaf switches under a spine of its own (one line) and
	# narrows a job to blocks as it does to leaves under topology/tree.
	if [ -f "$SYSPLUGINS/topology_block.so" ]; then
		sed -i 's/^mode=.*/mode=enforce/' "$BASE/etc/orrery.conf"
		sed -i 's|^TopologyPlugin=.*|TopologyPlugin=topology/block|' "$BASE/etc/slurm.conf"
		printf 'BlockName=b1 Nodes=o[1-4]\nBlockName=b2 Nodes=o[5-8]\n' >"$BASE/etc/topology.conf"
		mark=$(wc -l <"$BASE/log/slurmctld.log")
		sp_stop_slurmds
		restart_ctld clear
		sp_start_slurmds o $NNODES
		sp_wait_for 30 all_idle
		ba=$(t sbatch --parsable -N2 -n2 -c1 -o /dev/null --wrap 'sleep 20')
		check "topology/block: a profiled 2-node job starts" wait_running "$ba"
		sleep 1
		check "topology/block: slurmctld logged the blocks as orrery's leaves" \
			bash -c "tail -n +$((mark + 1)) '$BASE/log/slurmctld.log' | grep -q \"select/orrery: topology/block: 2 blocks are orrery's leaf switches\""
		check "topology/block: orrery placed it (candidate line, ORR1: period_us=$(orr "$ba" period_us))" \
			bash -c "grep -qF 'select/orrery: trying JobId=$ba candidate 1/' '$BASE/log/slurmctld.log' && test '$(orr "$ba" period_us)' = 100000"
		bn=$(field "$ba" NodeList)
		check "topology/block: its nodes are in one block ($bn)" \
			bash -c "case '$bn' in o\[[1-4]-[1-4]\]|o\[[1-4],[1-4]\]|o\[[5-8]-[5-8]\]|o\[[5-8],[5-8]\]) exit 0;; esac; exit 1"
		check "topology/block: no 'cannot model the topology' line" \
			bash -c "! tail -n +$((mark + 1)) '$BASE/log/slurmctld.log' | grep -q 'cannot model the topology'"
		t scancel "$ba"
	else
		echo "skip - topology/block: not in Slurm $SP_SLURM_VERSION"
	fi
fi

echo "$pass passed, $failed failed"
[ $failed -eq 0 ]
