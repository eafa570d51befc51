# tests/lib/tap.sh - the result lines every shell suite prints, sourced by
# the suites (". "$HERE/../lib/tap.sh"): "ok - WHAT", "not ok - WHAT" with
# "#   DETAIL" lines, and last "N passed, M failed" (README's contract, read
# by tests/run-all.sh and CI).
PASS=0
FAIL=0
summary() { echo "$PASS passed, $FAIL failed"; }
ok() { PASS=$((PASS + 1)); echo "ok - $1"; }
# not_ok WHAT [DETAIL...]
not_ok() {
	FAIL=$((FAIL + 1))
	echo "not ok - $1"
	shift
	local l
	for l in "$@"; do echo "#   $l"; done
}
