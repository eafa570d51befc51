#!/bin/bash
# tests/options/run.sh - a profiled job keeps the meaning of its Slurm
# options.  Each row of the table below is one sbatch command line, run on
# the same private 16-node cluster (4 nodes per leaf, 4 CPUs and 4 GPUs per
# node, one single-CPU job already on o2) four ways:
#   cons_tres   SelectType=select/cons_tres, no profile (the reference);
#   orrery      select/orrery_cons_tres in enforce mode, no profile;
#   profile     the same, with --comm-profile;
#   default     the same, orrery.conf's default_profile, no --comm-profile.
# Every way must give the node count cons_tres gives and the property the
# option defines (spread, exclusivity, inclusion, exclusion, leaf switch
# count, contiguity, partition and reservation membership); under orrery
# the job's ORR1: record must say who chose its nodes (no fallback: orrery;
# fallback=option:NAME for the options orrery leaves to cons_tres).
# The table is doc/select-orrery.8's "SLURM OPTIONS".
#
# usage: tests/options/run.sh [PLUGINDIR]
#   PLUGINDIR: where select_orrery_cons_tres.so and spank_orrery.so were
#   installed (default /var/tmp/orrery-select/plugins).
# Needs root, munge, slurmctld, slurmd, slurm-client.  Uses ports
# 18400-18416 on 127.0.0.1 and state under /var/tmp/orrery-options
# (ORRERY_OPTIONS_PORT and ORRERY_OPTIONS_BASE move them).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
PLUGINDIR=${1:-/var/tmp/orrery-select/plugins}
BASE=${ORRERY_OPTIONS_BASE:-/var/tmp/orrery-options}
PORT=${ORRERY_OPTIONS_PORT:-18400}
NNODES=16
LEAF=4
PROFILE='period=100ms;up=0ms+50ms@80Gbps'
. "$HERE/../lib/slurm-private.sh"
. "$HERE/../lib/tap.sh"

why=$(sp_preflight 2>&1) || { not_ok "preflight" "$why"; summary; exit 1; }
[ -f "$PLUGINDIR/spank_orrery.so" ] ||
	{ not_ok "preflight" "no $PLUGINDIR/spank_orrery.so"; summary; exit 1; }

# ------------------------------------------------------------------ table
# NAME|SBATCH ARGS|EXPECTED NODES (= : cons_tres's count)|PROPERTY|ORRERY
# PROPERTY is a function below, given the job's expanded node list;
# ORRERY: "placed" (orrery chose the nodes), "option:NAME" (left to
# cons_tres for that reason), "-" (not asserted: cons_tres may refuse
# orrery's candidates, e.g. for GPUs orrery does not count).
TABLE='
N-range|-N 2-4|4|none|placed
N-range-tasks|-N 2-6 -n 4|=|none|placed
spread-job|-n 4 --spread-job|4|spread4|placed
exclusive|-N 2 --exclusive|2|exclusive|placed
contiguous|-N 3 --contiguous|3|contiguous|option:contiguous
nodelist|-N 2 -w o6,o14|2|has_o6_o14|option:nodelist
exclude|-N 3 -x o[1-12]|3|none_of_o1_o12|placed
switches|-N 3 --switches=1@10:00|3|one_leaf|placed
ntasks-per-node|-n 8 --ntasks-per-node=2|4|none|placed
distribution|-N 3 -n 6 --distribution=cyclic|3|none|placed
gpus-per-node|-N 2 --gpus-per-node=2|2|none|-
gpus|--gpus=6 --gpus-per-node=3|2|none|-
het-job|-N 1 : -N 2|3|none|option:het-job
array|--array=1-2 -N 2|4|none|placed
reservation|-N 3 --reservation=optres|3|in_o9_o12|placed
partition|-p half -N 3|3|in_o5_o12|placed
'

# ------------------------------------------------------------------ properties
idx() { echo "${1#o}"; }
p_none() { :; }
p_spread4() { [ $# -eq 4 ] || echo "spread over $# nodes, not 4"; }
p_has_o6_o14() {
	case " $* " in *" o6 "*) ;; *) echo "o6 not in $*" ;; esac
	case " $* " in *" o14 "*) ;; *) echo "o14 not in $*" ;; esac
}
p_none_of_o1_o12() {
	local n
	for n in "$@"; do [ "$(idx "$n")" -le 12 ] && echo "excluded $n used"; done
}
p_in_o9_o12() {
	local n i
	for n in "$@"; do i=$(idx "$n"); [ "$i" -ge 9 -a "$i" -le 12 ] || echo "$n outside the reservation"; done
}
p_in_o5_o12() {
	local n i
	for n in "$@"; do i=$(idx "$n"); [ "$i" -ge 5 -a "$i" -le 12 ] || echo "$n outside partition half"; done
}
p_one_leaf() {
	local leaves
	leaves=$(for n in "$@"; do echo $(( ($(idx "$n") - 1) / LEAF )); done | sort -u | wc -l)
	[ "$leaves" -eq 1 ] || echo "$leaves leaf switches for --switches=1"
}
p_contiguous() {
	local prev= n i
	for n in "$@"; do
		i=$(idx "$n")
		[ -n "$prev" ] && [ "$i" -ne $((prev + 1)) ] && echo "not contiguous: $*"
		prev=$i
	done
}
# Whole nodes: every CPU of the job's nodes is the job's, and o2 (which
# runs another job) is not among them.
p_exclusive() {
	[ "$(t squeue -h -j "$BG" -o %T)" = RUNNING ] || echo "o2's job is not running (the check needs it)"
	case " $* " in *" o2 "*) echo "shares o2 with another job" ;; esac
	[ "$CUR_CPUS" -eq $(( $# * 4 )) ] || echo "$CUR_CPUS CPUs on $# nodes (not whole nodes)"
}

# ------------------------------------------------------------------ cluster
conf() {	# conf SELECTTYPE
	sp_write_slurm_conf orropt "$1" o $NNODES 4 1000 Gres=gpu:4 <<EOF
GresTypes=gpu
PlugStackConfig=$BASE/etc/plugstack.conf
MinJobAge=300
PrologFlags=Alloc
SchedulerParameters=sched_interval=2,bf_interval=5
EOF
	echo "PartitionName=half Nodes=o[5-12] MaxTime=60 State=UP" >>"$BASE/etc/slurm.conf"
	# Count-only GPUs on /dev/null links, as tests/select/run.sh has them.
	mkdir -p "$BASE/dev"
	for g in 0 1 2 3; do ln -sfn /dev/null "$BASE/dev/gpu$g"; done
	printf 'AutoDetect=off\nNodeName=o[1-%s] Name=gpu File=%s/dev/gpu[0-3]\n' \
		$NNODES "$BASE" >"$BASE/etc/gres.conf"
}
bring_up() {	# bring_up SELECTTYPE
	rm -rf "$BASE/state" "$BASE/spool" && mkdir -p "$BASE/state" "$BASE/spool"
	conf "$1"
	sp_start_munge || return 1
	sp_start_ctld -c || return 1
	sp_start_slurmds o $NNODES
	sp_wait_for 30 all_idle || return 1
	t scontrol create reservation ReservationName=optres Nodes=o[9-12] \
		StartTime=now Duration=60 Users=root Flags=IGNORE_JOBS >/dev/null || return 1
	# runs through the phase, until end_phase cancels it (bounded by the sleep
	# should the suite die first)
	BG=$(t sbatch --parsable -w o2 -n1 -c1 -t 60 -o /dev/null --wrap 'sleep 3000')
	running "$BG"
}
all_idle() { [ "$(sp_count_nodes idle)" -eq $NNODES ]; }
no_jobs() { [ -z "$(t squeue -h -o %i 2>/dev/null)" ]; }
# end_phase: cancel every job and wait until they are gone before the
# daemons stop: sp_stop_all stops slurmd, not the jobs' slurmstepd, and
# the next phase reuses job ids from 1.
end_phase() {
	t scancel --full -u root 2>/dev/null
	sp_wait_for 60 no_jobs || echo "# warning: jobs still listed: $(t squeue -h -o %i | tr '\n' ' ')"
	sp_stop_all
}
orrery_conf() {	# orrery_conf [DEFAULT_PROFILE]
	{
		printf '[orrery]\nmode=enforce\ncandidates=16\nnode_link=100Gbps\n'
		[ -n "${1:-}" ] && echo "default_profile=$1"
		printf '[uplinks]\nlevel0=100Gbps\n'
	} >"$BASE/etc/orrery.conf"
}

# Records of job $1 (all components of a het job, all tasks of an array).
records() { t scontrol -o show job "$1" 2>/dev/null; }
# (het jobs are started by the backfill scheduler: bf_interval=5 above)
running() {
	local end=$((SECONDS + 60)) r
	while [ $SECONDS -lt $end ]; do
		r=$(records "$1")
		[ -n "$r" ] && ! grep -vq 'JobState=RUNNING' <<<"$r" && return 0
		sleep 0.2
	done
	return 1
}
gone() { ! t squeue -h -j "$1" 2>/dev/null | grep -q .; }

# run_row WAY NAME ARGS...: run the job, print "COUNT NODES...|CPUS|ORR1"
run_row() {
	local way=$1 name=$2 jid r nodes cpus orr
	shift 2
	# shellcheck disable=SC2086
	jid=$(t sbatch --parsable -o /dev/null "$@" --wrap 'sleep 60' 2>"$BASE/log/sbatch-$way-$name.err")
	jid=${jid%%;*}
	if [ -z "$jid" ] || ! running "$jid"; then
		echo "did-not-start $(head -c 200 "$BASE/log/sbatch-$way-$name.err" 2>/dev/null)"
		[ -n "$jid" ] && t scancel "$jid"
		return
	fi
	r=$(records "$jid")
	nodes=$(sed -n 's/.* NodeList=\([^ ]*\).*/\1/p' <<<"$r" | while read -r nl; do t scontrol show hostnames "$nl"; done | sort -t o -k2n | tr '\n' ' ')
	cpus=$(sed -n 's/.* NumCPUs=\([0-9]*\).*/\1/p' <<<"$r" | awk '{ s += $1 } END { print s + 0 }')
	orr=$(grep -o 'ORR1:[^ ]*' <<<"$r" | head -n1)
	t scancel "$jid"
	sp_wait_for 20 gone "$jid"
	echo "$(wc -w <<<"$nodes") ${nodes}|$cpus|$orr"
}

declare -A REF
# check_way WAY [EXTRA ARGS]: every row, under the running cluster.
check_way() {
	local way=$1 extra=${2:-} name args want prop who out count nodes cpus orr problems f
	while IFS='|' read -r name args want prop who; do
		[ -z "$name" ] && continue
		# The profile goes with the first het component.
		if [ -n "$extra" ] && [[ $args == *" : "* ]]; then
			args="$extra ${args}"
		elif [ -n "$extra" ]; then
			args="$args $extra"
		fi
		set -f	# o[1-12] is Slurm's, not a glob
		# shellcheck disable=SC2086
		out=$(run_row "$way" "$name" $args)
		set +f
		if [[ $out == did-not-start* ]]; then
			not_ok "$way: $name ($args) starts" "$out"
			continue
		fi
		count=${out%% *}
		nodes=${out#* }; nodes=${nodes%%|*}
		cpus=${out#*|}; cpus=${cpus%%|*}
		orr=${out##*|}
		[ "$way" = cons_tres ] && REF[$name]=$count
		problems=()
		if [ "$want" = = ]; then
			[ "$count" = "${REF[$name]:-?}" ] ||
				problems+=("$count nodes, cons_tres gave ${REF[$name]:-?}")
		else
			[ "$count" = "$want" ] || problems+=("$count nodes, expected $want")
			[ "$way" = cons_tres ] || [ "$count" = "${REF[$name]:-?}" ] ||
				problems+=("$count nodes, cons_tres gave ${REF[$name]:-?}")
		fi
		CUR_CPUS=$cpus
		# shellcheck disable=SC2086
		while read -r f; do [ -n "$f" ] && problems+=("$f"); done < <(p_$prop $nodes)
		case $way in
		cons_tres|orrery)
			[ -z "$orr" ] || problems+=("unprofiled job has a record: $orr") ;;
		*)
			fb=$(sed -n 's/.*[:,]fallback=\([^,]*\).*/\1/p' <<<"$orr")
			case $who in
			placed) [ -n "$orr" ] && [ -z "$fb" ] ||
				problems+=("orrery did not choose the nodes: ${orr:-no ORR1: record}") ;;
			option:*) [ "$fb" = "$who" ] ||
				problems+=("record says fallback=${fb:-none}, expected $who: $orr") ;;
			-) [ -n "$orr" ] || problems+=("no ORR1: record") ;;
			esac ;;
		esac
		case $orr in
		'') who=unprofiled ;;
		*fallback=*) who="fallback=${orr##*fallback=}" ;;
		*) who="placed by orrery" ;;
		esac
		if [ ${#problems[@]} -eq 0 ]; then
			ok "$way: $name ($args): $count nodes [$nodes] $who"
		else
			not_ok "$way: $name ($args): [$nodes]" "${problems[@]}"
		fi
	done <<<"$TABLE"
}

# quiet WAY NODES EXPECT: a profiled job's output (its srun step's
# environment and whatever slurmstepd printed) has no error line, and
# ORRERY_GATE is EXPECT ("-": absent, the job is gated).
quiet() {
	local way=$1 n=$2 want=$3 jid out got
	out=$BASE/log/quiet-$way-$n.out
	jid=$(t sbatch --parsable -N "$n" --comm-profile=resnet50 -o "$out" \
		--wrap 'srun env | grep "^ORRERY_" | sort -u; sleep 1')
	sp_wait_for 60 gone "$jid"
	got=$(sed -n 's/^ORRERY_GATE=//p' "$out" 2>/dev/null | sort -u | tr '\n' ' ')
	got=${got% }
	if grep -qi 'error' "$out" 2>/dev/null; then
		not_ok "$way: -N $n --comm-profile=resnet50: no error line in the job's output" "$(grep -i error "$out" | head -n 3)"
	else
		ok "$way: -N $n --comm-profile=resnet50: no error line in the job's output"
	fi
	[ "${got:--}" = "$want" ] && ok "$way: -N $n: ORRERY_GATE ${got:-unset} (want $want)" ||
		not_ok "$way: -N $n: ORRERY_GATE ${got:-unset}, want $want" "$(cat "$out" 2>/dev/null | head -n 12)"
}

# A broken orrery.conf: every error in one block, once per file text,
# even across several reconfigures; a profiled job meanwhile runs as
# under cons_tres and its record says so.
conf_checks() {
	local log=$BASE/log/slurmctld.log mark jid orr req
	mark=$(wc -l <"$log")
	printf '[orrery]\nmode=sideways\ncandidate=3\n' >"$BASE/etc/orrery.conf"
	t scontrol reconfigure; sleep 1; t scontrol reconfigure; sleep 1
	if tail -n +$((mark + 1)) "$log" | grep -q "select/orrery: $BASE/etc/orrery.conf: 2 errors; running as plain cons_tres:" &&
	   tail -n +$((mark + 1)) "$log" | grep -q "select/orrery:   .*mode=sideways: expected" &&
	   tail -n +$((mark + 1)) "$log" | grep -q "select/orrery:   .*unknown key 'candidate'"; then
		ok "orrery.conf with two bad keys: both reported in one block"
	else
		not_ok "orrery.conf with two bad keys: both reported in one block" "$(tail -n +$((mark + 1)) "$log" | grep orrery | head -n 5)"
	fi
	# Once per slurmctld: on 24.05+ each reconfigure is a new slurmctld
	# (sp_reconfigure_restarts), which reports it once again.
	once=1
	sp_reconfigure_restarts && once=2
	[ "$(tail -n +$((mark + 1)) "$log" | grep -c 'mode=sideways')" = $once ] &&
		ok "the same broken file is reported once per slurmctld over two reconfigures ($once lines, Slurm $SP_SLURM_VERSION)" ||
		not_ok "the same broken file is reported once over two reconfigures" "$(grep -c 'mode=sideways' "$log") lines"
	jid=$(t sbatch --parsable -N 2-4 --comm-profile=resnet50 -o /dev/null --wrap 'sleep 30')
	if running "$jid"; then
		orr=$(records "$jid" | grep -o 'ORR1:[^ ]*')
		[ "$(records "$jid" | sed -n 's/.* NumNodes=\([0-9]*\).*/\1/p')" = 4 ] &&
			ok "broken orrery.conf: -N 2-4 job runs as under cons_tres (4 nodes)" ||
			not_ok "broken orrery.conf: -N 2-4 job runs as under cons_tres (4 nodes)"
		# the request as the SPANK plugin canonicalised it
		req=$(sed -n 's/.*requested_b64=\([^,]*\).*/\1/p' <<<"$orr" | base64 -d 2>/dev/null)
		case $orr in
		*fallback=conf_error*) [[ $req == resnet50:* ]] &&
			ok "broken orrery.conf: the job's record keeps the request ($req) and says fallback=conf_error" ||
			not_ok "broken orrery.conf: the job's record keeps the request" "requested: $req" "$orr" ;;
		*) not_ok "broken orrery.conf: the job's record says fallback=conf_error" "${orr:-no ORR1: record}" ;;
		esac
		t scancel "$jid"; sp_wait_for 20 gone "$jid"
	else
		not_ok "broken orrery.conf: a profiled job starts"
	fi
	mark=$(wc -l <"$log")
	printf '[orrery]\nmode=enforce\0\n' >"$BASE/etc/orrery.conf"
	t scontrol reconfigure; sleep 1; t scontrol reconfigure; sleep 1
	[ "$(tail -n +$((mark + 1)) "$log" | grep -c 'contains a NUL byte')" = $once ] &&
		ok "orrery.conf with a NUL byte: one line per slurmctld over two reconfigures ($once lines)" ||
		not_ok "orrery.conf with a NUL byte: one line over two reconfigures" "$(tail -n +$((mark + 1)) "$log" | grep -c 'NUL') lines"
	orrery_conf "$PROFILE"
	t scontrol reconfigure; sleep 1
}

sp_fresh_base
echo "required $PLUGINDIR/spank_orrery.so runtime_dir=$BASE/spool/%n/orrery" >"$BASE/etc/plugstack.conf"
sp_write_topology $LEAF $NNODES o
orrery_conf

if bring_up select/cons_tres; then
	ok "cons_tres cluster up"
	check_way cons_tres
	quiet cons_tres 2 none:no-slot
else
	not_ok "cons_tres cluster up" "$(tail -n 5 "$BASE/log/slurmctld.log" 2>/dev/null)"
fi
end_phase

if bring_up select/orrery_cons_tres; then
	ok "select/orrery_cons_tres cluster up"
	check_way orrery
	check_way profile "--comm-profile=$PROFILE"
	quiet orrery 1 none:single-node
	quiet orrery 2 -
	orrery_conf "$PROFILE"
	t scontrol reconfigure
	sleep 1
	# o2's job started before the default: reconfigure so it is modelled
	check_way default
	conf_checks
	grep -q 'select/orrery: .*contiguous, left to cons_tres' "$BASE/log/slurmctld.log" &&
		ok "slurmctld log says why a --contiguous job was left to cons_tres" ||
		not_ok "slurmctld log says why a --contiguous job was left to cons_tres"
	if grep -Eiq 'fatal|segfault|undefined symbol' "$BASE"/log/*.log; then
		not_ok "no fatal error in the daemon logs" "$(grep -Ei 'fatal|segfault|undefined symbol' "$BASE"/log/*.log | head -n 3)"
	else
		ok "no fatal error in the daemon logs"
	fi
else
	not_ok "select/orrery_cons_tres cluster up" "$(tail -n 5 "$BASE/log/slurmctld.log" 2>/dev/null)"
fi
end_phase
summary
[ "$FAIL" -eq 0 ]
