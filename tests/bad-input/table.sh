#!/bin/bash
# Print the bad-input table (Markdown) from the case directories, so that
# doc/bad-input.md and the tests cannot drift apart:
#   tests/bad-input/table.sh > doc/bad-input.table.md
# (doc/bad-input.md includes its output between the TABLE markers;
#  tests/bad-input/table.sh --check fails when it is stale.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

. "$here/expected.sh"

table() {
	local edge='' d e c first msg rc oc what f l2
	for d in $(find "$here" -mindepth 2 -maxdepth 2 -type d | sort); do
		c=${d##*/}
		e=${d%/*}
		e=${e##*/}
		if [ "$e" != "$edge" ]; then
			edge=$e
			# The edge's outcome: that of its first case that is not
			# an accepted input.
			expected_fields "$(find "$here/$e" -name expected | sort | grep -v /accepted | head -n 1)"
			first=$oc
			printf '\n### %s\n\n' "$e"
			printf 'Outcome: %s\n\n' "$first"
			printf '| case | input | message (fragment) | exit | outcome if different |\n|---|---|---|---|---|\n'
		fi
		if [ -x "$d/generate" ]; then
			# Its second line, a comment, says what it writes.
			what=
			{ read -r l2; read -r l2; } <"$d/generate" || :
			[[ $l2 == "#"* ]] && { what=${l2#\#}; what=${what#"${what%%[! ]*}"}; }
		else
			f=$(find "$d" -type f ! -name expected | head -n 1)
			if [ -z "$f" ]; then
				what="(a directory)"
			else
				what=$(head -c 60 "$f" | LC_ALL=C tr -c '[:print:]' '.')
				[ "$(stat -c %s "$f")" -gt 60 ] && what="$what..."
			fi
		fi
		expected_fields "$d/expected"
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
