#!/bin/bash
# tests/stress/leakcheck.sh - slurmctld under valgrind --leak-check=full
# while select/orrery_cons_tres handles jobs, faults included.
#
# usage: tests/stress/leakcheck.sh [--jobs N] [PLUGINDIR]
#
# Runs tests/stress/run.sh (fault injection, then a load of N jobs, default
# 300) with every slurmctld started under valgrind, stops the last one with
# `scontrol shutdown`, and reads the leak records of every slurmctld that
# exited normally.  A record whose stack passes through orrery's code
# (liborrery, select_orrery_cons_tres.so) fails the check; Slurm's own
# records are only counted.  Debian's slurmctld is built without
# --enable-memory-leak-debug: at exit it frees little of its own state
# (Slurm's "definitely lost" records are those of its threads and caches)
# and never unloads the select plugin, so orrery's live cluster state is
# "still reachable", not a leak.  Slow (valgrind serialises slurmctld's
# threads): minutes, not part of tests/run-all.sh.
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

python3 - "$BASE/log" <<'EOF'
import glob, re, sys

head = re.compile(r'==\d+== ([\d,]+) (?:\(([\d,]+) direct, ([\d,]+) indirect\) )?bytes in ([\d,]+) blocks are (definitely|indirectly|possibly) lost')
orrery = re.compile(r'liborrery|select_orrery_cons_tres|orrery_ctld\.c|select_orrery\.c|admin_record\.c|orrery_conf\.c|orrery_[a-z_]+ \(')
logs = sorted(glob.glob(sys.argv[1] + '/valgrind-*.log'))
complete = orr = slurm = 0
orr_bytes = slurm_bytes = 0
for path in logs:
    text = open(path, errors='replace').read()
    if 'LEAK SUMMARY' not in text and 'All heap blocks were freed' not in text:
        continue  # killed (kill -9 / timeout): no leak report
    complete += 1
    records, cur = [], None
    for line in text.splitlines():
        m = head.search(line)
        if m:
            cur = [line]
            records.append((m, cur))
        elif cur is not None:
            if re.match(r'==\d+== *$', line):
                cur = None
            else:
                cur.append(line)
    for m, lines in records:
        nbytes = int(m.group(1).replace(',', ''))
        body = '\n'.join(lines)
        if orrery.search(body):
            orr += 1
            orr_bytes += nbytes
            print('# orrery leak record in %s:' % path)
            print('\n'.join('#   ' + l for l in lines[:25]))
        else:
            slurm += 1
            slurm_bytes += nbytes
print('# %d valgrind logs, %d with a leak report (the others were killed)' % (len(logs), complete))
print('# leak records through orrery code: %d (%d bytes)' % (orr, orr_bytes))
print("# Slurm's own leak records (ignored): %d (%d bytes)" % (slurm, slurm_bytes))
ok = complete > 0 and orr == 0
print(('ok   - ' if complete else 'FAIL - ') + 'valgrind leak reports from %d slurmctld runs' % complete)
print(('ok   - ' if orr == 0 else 'FAIL - ') + 'no leak record whose stack passes through orrery code')
print('%d passed, %d failed' % ((complete > 0) + (orr == 0), (complete == 0) + (orr != 0)))
sys.exit(0 if ok else 1)
EOF
prc=$?
[ $rc -eq 0 ] && [ $prc -eq 0 ]
