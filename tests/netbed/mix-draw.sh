#!/bin/bash
# tests/netbed/mix-draw.sh (make check): scenario r's random mix
# (tests/netbed/mix.sh) without a fabric: a seed draws the same jobs every
# time, the jobs doc/netbed-report.md lists for it, and bad seeds and sizes
# are refused with what is accepted.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TRAINER=${TRAINER:-contrib/netbed/orrery-netbed-trainer}
UPLINK_MBIT=100 EFFICIENCY=0.85 SCEN=r
. "$HERE/../lib/tap.sh"
. "$HERE/mix.sh"
sizes() { NETBED_SEED=$1 NETBED_MIX_JOBS=${2:-8} seq_r >/dev/null && echo "${SEQ_RANKS[*]}"; }
# The job sizes of seeds 1-5 as doc/netbed-report.md's scenario r table
# lists them.
want=("" "2 3 3 4 4 3 3 3" "3 4 4 3 4 4 3 3" "3 3 2 4 1 4 3 2" "3 3 1 3 3 3 4 2" "4 3 2 1 3 1 2 4")
for s in 1 2 3 4 5; do
	got=$(sizes $s)
	[ "$got" = "${want[$s]}" ] && ok "seed $s draws the sizes the report lists ($got)" ||
		not_ok "seed $s draws the sizes the report lists" "got: $got" "want: ${want[$s]}"
done
a=$(NETBED_SEED=7 seq_r) b=$(NETBED_SEED=7 seq_r)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "the same seed draws the same jobs twice" ||
	not_ok "the same seed draws the same jobs twice" "$a" "$b"
NETBED_SEED=7 seq_r >/dev/null
bad=""
for i in "${!SEQ_RANKS[@]}"; do
	[ "${SEQ_RANKS[i]}" -ge 1 ] && [ "${SEQ_RANKS[i]}" -le 4 ] && [ "${SEQ_ITERS[i]}" -ge 5 ] &&
		{ [ "${SEQ_RANKS[i]}" -eq 1 ] || [ -n "$(seq_profile "$i")" ]; } || bad="$bad job$((i + 1))"
done
[ -z "$bad" ] && [ "${#SEQ_RANKS[@]}" -eq 8 ] && [ "${SEQ_AT[0]}" -eq 0 ] &&
	ok "8 jobs of 1-4 nodes, each multi-node job with a profile, the first submitted at 0 s" ||
	not_ok "8 jobs of 1-4 nodes with profiles" "bad:$bad count ${#SEQ_RANKS[@]}"
[ "$(sizes 3 20 | wc -w)" -eq 20 ] && ok "NETBED_MIX_JOBS=20 draws 20 jobs" || not_ok "NETBED_MIX_JOBS=20 draws 20 jobs"
for bad in "NETBED_SEED=x" "NETBED_SEED=-1" "NETBED_MIX_JOBS=0" "NETBED_MIX_JOBS=41"; do
	out=$(env $bad bash -c ". '$HERE/../lib/tap.sh'; TRAINER=$TRAINER UPLINK_MBIT=100 EFFICIENCY=0.85 SCEN=r; . '$HERE/mix.sh'; seq_r" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && echo "$out" | grep -q "accepted: a seed 0-1000000, 1-40 jobs" &&
		ok "$bad is refused with what is accepted" || not_ok "$bad is refused with what is accepted" "rc $rc: $out"
done
summary
[ "$FAIL" -eq 0 ]
