#!/bin/bash
# Print the bad-input table (Markdown) from the case directories, so that
# doc/bad-input.md and the tests cannot drift apart:
#   tests/bad-input/table.sh > doc/bad-input.table.md
# (doc/bad-input.md includes its output between the TABLE markers;
#  tests/bad-input/table.sh --check fails when it is stale.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

table() {
	local edge='' d e c
	for d in $(find "$here" -mindepth 2 -maxdepth 2 -type d | sort); do
		e=$(basename "$(dirname "$d")")
		c=$(basename "$d")
		if [ "$e" != "$edge" ]; then
			edge=$e
			printf '\n### %s\n\n' "$e"
			printf 'Outcome: %s\n\n' "$(sed -n 's/^outcome: //p' "$(find "$here/$e" -name expected | sort | grep -v /accepted | head -n 1)")"
			printf '| case | input | message (fragment) | exit | outcome if different |\n|---|---|---|---|---|\n'
		fi
		local what msg rc oc first
		first=$(sed -n 's/^outcome: //p' "$(find "$here/$e" -name expected | sort | grep -v /accepted | head -n 1)")
		if [ -x "$d/generate" ]; then
			what=$(sed -n '2s/^# *//p' "$d/generate")
		else
			f=$(find "$d" -type f ! -name expected | head -n 1)
			if [ -z "$f" ]; then
				what="(a directory)"
			else
				what=$(head -c 60 "$f" | LC_ALL=C tr -c '[:print:]' '.')
				[ "$(stat -c %s "$f")" -gt 60 ] && what="$what..."
			fi
		fi
		msg=$(sed -n 's/^message: //p' "$d/expected")
		rc=$(sed -n 's/^exit: //p' "$d/expected")
		oc=$(sed -n 's/^outcome: //p' "$d/expected")
		[ "$oc" = "$first" ] && oc=
		[ "$msg" = - ] && msg="(nothing logged)"
		printf '| %s | `%s` | %s | %s | %s |\n' "$c" "${what//|/\\|}" "${msg//|/\\|}" "$rc" "$oc"
	done
}

if [ "${1:-}" = --check ]; then
	diff <(table) <(sed -n '/^<!-- TABLE BEGIN/,/^<!-- TABLE END/{//!p}' "$top/doc/bad-input.md") >/dev/null || {
		echo "doc/bad-input.md is stale: regenerate its table with tests/bad-input/table.sh"; exit 1; }
	exit 0
fi
table
