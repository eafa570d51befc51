#!/usr/bin/env python3
"""leak_report.py LOGDIR - read valgrind-*.log leak reports of slurmctld and
say which leak records belong to orrery (liborrery, select_orrery_cons_tres).

A record is orrery's when, walking its stack up from the allocation, an
orrery frame comes before any Slurm frame (slurmctld, libslurmfull,
cons_tres); Slurm's allocator wrappers (xmalloc & co.) and libc/libstdc++/
GLib frames are skipped.  So memory cons_tres allocates while orrery calls
it is Slurm's, and a std::vector grown inside liborrery is orrery's.

Slurm's xmalloc returns a pointer past a size header: every live xmalloc'd
block is "possibly lost" to valgrind.  Such records are counted, not
failed; "possibly lost" blocks from malloc/new inside orrery, and every
"definitely" or "indirectly" lost orrery record, fail.

A thread still running when slurmctld exits holds its TLS, which
valgrind reports "possibly lost" from pthread_create (_dl_allocate_tls).
Debian's slurmctld never calls the select plugin's fini, so the plugin's
one worker thread (orrery_ctld.c, worker_start) is such a thread in
every run, as Slurm's own agent thread is.  One live thread per creating
function and run is counted as a thread, not a leak; a second one from
the same place (threads started and never joined) fails.
Prints figures and "ok"/"FAIL" lines; exit 1 on failure.
"""
import glob
import os
import re
import sys

HEAD = re.compile(r'==\d+== ([\d,]+) (?:\([\d,]+ direct, [\d,]+ indirect\) )?'
                  r'bytes in ([\d,]+) blocks are (definitely|indirectly|possibly) lost')
FRAME = re.compile(r'==\d+== +(?:at|by) 0x[0-9A-F]+: (.*?) \((.*)\)\s*$')
ORRERY = re.compile(r'liborrery|select_orrery_cons_tres|orrery_ctld\.c|select_orrery\.c|'
                    r'admin_record\.c|orrery_conf\.c|^orrery_|\borrery::|_api\.cpp|'
                    r'state_file\.cpp|cluster\.cpp|placement|candidates\.cpp|rank\.cpp|'
                    r'evaluate\.cpp|circle\.cpp|score\.cpp|topology\.cpp|spec\.cpp|pattern\.cpp')
# Every source file of orrery's that runs in slurmctld: the plugin's
# (valgrind names a frame's file when the plugin has debug info, as our
# builds do) and liborrery's.
_TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
OURS = {os.path.basename(f)
        for pat in ('plugins/select/orrery/*.[ch]', 'lib/*/*.[ch]', 'lib/*/*.[ch]pp')
        for f in glob.glob(os.path.join(_TOP, pat))}
SLURM = re.compile(r'libslurmfull|select_cons_tres|slurmctld|common_job_test|select_nodes|main$')
XALLOC = re.compile(r'^slurm_x|^_x|^xstr|^slurm_xstr')
ALLOC = re.compile(r'vgpreload|^(malloc|calloc|realloc|memalign|posix_memalign|strdup|strndup|'
                   r'operator new|operator new\[\])')


TLS = re.compile(r'_dl_allocate_tls|allocate_dtv')


def ours(fn, loc):
    return bool(ORRERY.search(fn) or ORRERY.search(loc) or
                loc.split(':')[0] in OURS)


def thread_creator(frames):
    """The function that started the thread whose TLS this is, or None."""
    if not any(TLS.search(fn) for fn, _ in frames):
        return None
    for fn, loc in frames:
        if ours(fn, loc) or SLURM.search(fn) or SLURM.search(loc):
            return '%s (%s)' % (fn, loc)
    return '?'


def owner(frames):
    """('orrery'|'slurm'|'other', allocated through Slurm's xmalloc)"""
    via_x = False
    for fn, loc in frames:
        if ALLOC.search(fn) or ALLOC.search(loc):
            continue
        if XALLOC.search(fn):
            via_x = True
            continue
        if ours(fn, loc):
            return 'orrery', via_x
        if SLURM.search(fn) or SLURM.search(loc):
            return 'slurm', via_x
    return 'other', via_x


def main(logdir):
    logs = sorted(glob.glob(logdir + '/valgrind-*.log'))
    complete = 0
    fails = []
    count = {}
    threads = {}  # creator -> per run, its live threads so far
    for path in logs:
        text = open(path, errors='replace').read()
        if 'LEAK SUMMARY' not in text and 'All heap blocks were freed' not in text:
            continue  # killed (kill -9, timeout) or a forked child: no report
        complete += 1
        records, cur = [], None
        for line in text.splitlines():
            m = HEAD.search(line)
            if m:
                cur = [line]
                records.append((m, cur))
            elif cur is not None:
                if re.match(r'==\d+== *$', line):
                    cur = None
                else:
                    cur.append(line)
        live = {}  # thread creator -> records in this run
        for m, lines in records:
            frames = [f.groups() for f in map(FRAME.match, lines[1:]) if f]
            who, via_x = owner(frames)
            kind = m.group(3)
            creator = thread_creator(frames)
            if who == 'orrery' and kind == 'possibly' and creator:
                site = re.sub(r':\d+\)$', ')', creator)  # inlined copies: one place
                live[site] = live.get(site, 0) + 1
                threads.setdefault(site, []).append(live[site])
                if live[site] == 1:
                    continue  # the one live thread of that place
            key = (who, kind, 'xmalloc' if via_x else 'malloc')
            n = count.setdefault(key, [0, 0])
            n[0] += 1
            n[1] += int(m.group(1).replace(',', ''))
            if who == 'orrery' and (kind != 'possibly' or not via_x):
                fails.append((path, lines))
    print('# %d valgrind logs, %d with a leak report (killed ones have none)'
          % (len(logs), complete))
    for (who, kind, via), (n, b) in sorted(count.items()):
        print('# %-6s %-10s lost, via %-7s: %5d records, %9d bytes' % (who, kind, via, n, b))
    for site, seen in sorted(threads.items()):
        print('# orrery thread alive at exit, started in %s: in %d runs, at most %d in one'
              % (site, seen.count(1), max(seen)))
    for path, lines in fails[:10]:
        print('# orrery leak in %s:' % path)
        print('\n'.join('#   ' + l for l in lines[:30]))
    ok1 = complete > 0
    ok2 = not fails
    print(('ok   - ' if ok1 else 'FAIL - ') + 'valgrind leak reports from %d slurmctld runs' % complete)
    print(('ok   - ' if ok2 else 'FAIL - ') +
          'no definite/indirect leak, and no possible leak outside xmalloc, allocated by orrery code (%d)'
          % len(fails))
    print('%d passed, %d failed' % (ok1 + ok2, (not ok1) + (not ok2)))
    return 0 if ok1 and ok2 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
