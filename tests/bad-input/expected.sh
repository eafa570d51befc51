# tests/bad-input/expected.sh - sourced by run.sh and table.sh.
# expected_fields FILE: sets msg, rc and oc from a case's `expected' file
# (its message:, exit: and outcome: lines).  Bash builtins only: with some
# 120 cases, a sed per field was most of the suite's time.
expected_fields() {
	local line
	msg= rc= oc=
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"message: "*) msg=${line#message: } ;;
		"exit: "*) rc=${line#exit: } ;;
		"outcome: "*) oc=${line#outcome: } ;;
		esac
	done <"$1"
}
