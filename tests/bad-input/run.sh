#!/bin/bash
# The bad-input suite: every directory tests/bad-input/EDGE/CASE/ holds one
# bad input (or a `generate` script that writes it, for inputs too large
# for the repository) and `expected`:
#     exit: 1
#     message: FRAGMENT      (must appear, verbatim, in the one line logged;
#                             "-": accepted, nothing logged)
# Each case goes through the real code of its edge, offline:
#   comm-profile-option  sbatch --comm-profile=VALUE   (SPANK option callback)
#   comm-profile-env     ORRERY_COMM_PROFILE=VALUE     (SPANK post-option)
#   profile-file         --comm-profile=@FILE          (read as the user)
#   plugstack            plugstack.conf arguments      (slurm_spank_init)
#   relay                RUNTIME_DIR/JOBID in slurmstepd (root only)
#   orrery.conf          select/orrery_cons_tres at start/reconfigure
#   state-file           StateSaveLocation/orrery_state (orrery_cluster_load,
#                        through orrery-query solve --state)
#   topology             topology.conf (orrery-query topology)
# The outcome of each edge is in doc/bad-input.md (tests/bad-input/table.sh
# writes that table from these directories).
#
#   tests/bad-input/run.sh [--build DIR] [--record]
# --build: the configured build tree (default: the current directory when
# it has tests/bad-input/osp_harness, as under make check, else build/).
# --record: print what each case logs instead of checking (for new cases).
# Last line: "N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=
record=0
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--record) record=1; shift ;;
	*) echo "bad-input: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
if [ -z "$build" ]; then
	if [ -x tests/bad-input/osp_harness ]; then build=$PWD; else build=$top/build; fi
fi
osp=$build/tests/bad-input/osp_harness
conf=$build/tests/bad-input/conf_check
query=$build/contrib/query/orrery-query
for b in "$osp" "$conf" "$query"; do
	[ -x "$b" ] || { echo "bad-input: $b not built (make check builds it)"; echo "0 passed, 1 failed"; exit 1; }
done

tmp=$(mktemp -d /tmp/orrery-bad-input.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0

run_case() {  # EDGE DIR WORK -> stdout/stderr of the code under test
	local edge=$1 d=$2 w=$3
	case $edge in
	comm-profile-option) "$osp" option "$(< "$w/value")" ;;
	comm-profile-env) "$osp" env "$(< "$w/value")" ;;
	profile-file) "$osp" option "@$w/profile" ;;
	plugstack) # word-split on purpose: the arguments of one plugstack line
		   # shellcheck disable=SC2046
		   "$osp" plugstack $(< "$w/args") ;;
	relay) mkdir -p "$w/run" && chmod 0755 "$w/run" &&
	       cp "$w/42" "$w/run/42" && chmod 0644 "$w/run/42" &&
	       "$osp" relay "$w/run" 42 ;;
	orrery.conf) "$conf" "$w/orrery.conf" ;;
	state-file) "$query" solve --generate tiers=2,leaves=4,nodes-per-leaf=4 \
			--state "$w/orrery_state" ;;
	topology) "$query" topology --topology "$w/topology.conf" ;;
	*) echo "unknown edge $edge"; return 99 ;;
	esac
}

. "$here/expected.sh"
for d in $(find "$here" -mindepth 2 -maxdepth 2 -type d | sort); do
	edge=${d%/*}
	edge=${edge##*/}
	name=$edge/${d##*/}
	if [ $edge = relay ] && [ "$(id -u)" -ne 0 ]; then
		skipped=$((skipped + 1))   # the reader insists on root-owned files
		continue
	fi
	w=$tmp/$edge-${d##*/}
	mkdir -p "$w"
	cp -r "$d"/. "$w"/
	if [ -x "$d/generate" ]; then
		"$d/generate" "$w" || { echo "FAIL $name: generate failed"; failed=$((failed + 1)); continue; }
	fi
	out=$(cd "$w" && run_case "$edge" "$d" "$w" 2>&1 >/dev/null)
	got=$?
	if [ $record -eq 1 ]; then
		printf '%s\texit %d\t%s\n' "$name" $got "$(printf '%s' "$out" | head -c 400 | tr '\n' ' ')"
		rm -rf "$w"
		continue
	fi
	rm -rf "$w"
	msg= rc=
	[ -f "$d/expected" ] && expected_fields "$d/expected"
	want_rc=$rc want_msg=$msg
	if [ -z "$want_rc" ] || [ -z "$want_msg" ]; then
		echo "FAIL $name: no exit:/message: in expected"
		failed=$((failed + 1))
	elif [ "$got" -ne "$want_rc" ]; then
		echo "FAIL $name: exit $got, expected $want_rc; logged: $out"
		failed=$((failed + 1))
	elif [ "$want_msg" = - ]; then
		# accepted: nothing logged
		if [ -n "$out" ]; then
			echo "FAIL $name: expected no log line, got: $out"
			failed=$((failed + 1))
		else
			passed=$((passed + 1))
		fi
	elif ! grep -qF -- "$want_msg" <<< "$out"; then
		echo "FAIL $name: message lacks '$want_msg'; logged: $out"
		failed=$((failed + 1))
	elif [ "$(grep -c '' <<< "$out")" -ne 1 ]; then
		echo "FAIL $name: expected one log line, got: $out"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
done
[ $skipped -gt 0 ] && echo "bad-input: $skipped relay cases skipped (need root)"
# The table in doc/bad-input.md is generated from these directories.
if [ $record -eq 0 ] && [ -f "$top/doc/bad-input.md" ]; then
	if "$here/table.sh" --check; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
