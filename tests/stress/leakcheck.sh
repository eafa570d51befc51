#!/bin/bash
# tests/stress/leakcheck.sh - slurmctld under valgrind --leak-check=full
# while select/orrery_cons_tres handles jobs, faults included.
#
# usage: tests/stress/leakcheck.sh [--jobs N] [PLUGINDIR]
#
# Runs tests/stress/run.sh (fault injection, then a load of N jobs, default
# 300) with every slurmctld started under valgrind, stops the last one with
# `scontrol shutdown`, and reads the leak records of every slurmctld that
# exited normally (leak_report.py): a leak allocated by orrery's code
# (liborrery, select_orrery_cons_tres.so) fails the check; Slurm's own
# records are only counted.  Debian's slurmctld is built without
# --enable-memory-leak-debug: at exit it frees little of its own state
# (Slurm's "definitely lost" records are those of its threads and caches)
# and never unloads the select plugin, so orrery's live cluster state is
# "still reachable", not a leak; for the same reason the plugin's worker
# thread is still running at exit, and its TLS, "possibly lost" from
# pthread_create, is counted as a live thread: one per place that starts
# threads and run, more fails (leak_report.py).  Slow (valgrind serialises slurmctld's
# threads): about 10 minutes on 2 busy cores, not part of
# tests/run-all.sh.
# Needs valgrind, python3 and what run.sh needs.  Ports 20220-20236, state
# under /var/tmp/orrery-st-leak.
set -u

JOBS=300
PLUGINDIR=/var/tmp/orrery-stress/plugins
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) JOBS=$2; shift 2 ;;
	-*) echo "leakcheck.sh: unknown option '$1' (accepted: --jobs N)" >&2; exit 2 ;;
	*) PLUGINDIR=$1; shift ;;
	esac
done
command -v valgrind >/dev/null || { echo "leakcheck.sh: valgrind not installed"; echo "0 passed, 1 failed"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
BASE=${ORRERY_STRESS_BASE:-/var/tmp/orrery-st-leak}
VGLOG=$BASE/log/valgrind-%p.log

export ORRERY_STRESS_BASE=$BASE
export ORRERY_STRESS_PORT=${ORRERY_STRESS_PORT:-20220}
export ORRERY_STRESS_SLOW=${ORRERY_STRESS_SLOW:-15}
export ORRERY_STRESS_WRAP="valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite --num-callers=40 --trace-children=no --log-file=$VGLOG"
start=$SECONDS
"$here/run.sh" --only fault,load --jobs "$JOBS" "$PLUGINDIR"
rc=$?
echo "# run.sh under valgrind: $((SECONDS - start)) s, exit $rc"

python3 "$here/leak_report.py" "$BASE/log"
prc=$?
[ $rc -eq 0 ] && [ $prc -eq 0 ]
