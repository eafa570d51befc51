# tests/netbed/mix.sh - the job sequences' profiles and scenario r's
# random draw, sourced by tests/netbed/run.sh and by tests/netbed/mix-draw.sh
# (make check: the same seed draws the same jobs, without a fabric).
# Needs TRAINER (orrery-netbed-trainer), UPLINK_MBIT, EFFICIENCY, SCEN and
# tests/lib/tap.sh's not_ok.

seq_profile() {  # seq_profile I: the job's profile (empty: 1 node)
	local r=${SEQ_RANKS[$1]} b=${SEQ_BYTES[$1]} c=${SEQ_COMPUTE[$1]}
	[ "$r" -gt 1 ] || return 0
	[ "$c" != up ] || c=$("$TRAINER" --print-profile --ranks "$r" --bytes "$b" --compute-ms 0 --rate $UPLINK_MBIT \
		--efficiency $EFFICIENCY | sed -n 's/^period=\([0-9]*\)ms;.*/\1/p')
	"$TRAINER" --print-profile --ranks "$r" --bytes "$b" --compute-ms "$c" --rate $UPLINK_MBIT --efficiency $EFFICIENCY
}

# r: a random mix, not chosen to show anything: NETBED_MIX_JOBS jobs
# (default 8) drawn from NETBED_SEED (default 1; the same seed gives the
# same jobs on any machine: bash arithmetic, no awk rand): 1, 2, 3 or 4
# nodes (15, 30, 35, 20 %; 4-node rings cross two uplinks), 1-3 MiB
# all-reduces, a compute phase of 40, 100, 200 or 300 ms or as long as
# the Up phase, as many iterations as make 10-30 s at the profile's
# period, each submitted 0-8 s after the one before.  Under cons_tres,
# orrery and orrery-hold; the ratios are printed, not asserted.
seq_r() {
	local seed=${NETBED_SEED:-1} n=${NETBED_MIX_JOBS:-8} i x R at=0 c p period
	[[ $seed =~ ^[0-9]+$ ]] && [ "$seed" -le 1000000 ] && [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 40 ] || {
		not_ok "$SCEN: NETBED_SEED=$seed NETBED_MIX_JOBS=$n" "accepted: a seed 0-1000000, 1-40 jobs"
		return 1
	}
	rnd() { x=$(( (x * 1103515245 + 12345) % 2147483648 )); R=$(( (x >> 8) % $1 )); }
	x=$(( (seed * 2654435761 + 12345) % 2147483648 ))
	SEQ_RANKS=() SEQ_BYTES=() SEQ_COMPUTE=() SEQ_ITERS=() SEQ_AT=()
	for ((i = 0; i < n; i++)); do
		rnd 20
		SEQ_RANKS[i]=$(( R < 3 ? 1 : R < 9 ? 2 : R < 16 ? 3 : 4 ))
		rnd 3; SEQ_BYTES[i]=$(( (R + 1) * 1048576 ))
		c=(40 100 200 300 up); rnd 5; SEQ_COMPUTE[i]=${c[R]}
		[ "${SEQ_RANKS[i]}" -gt 1 ] || { SEQ_BYTES[i]=4; [ "${SEQ_COMPUTE[i]}" != up ] || SEQ_COMPUTE[i]=300; }
		p=$(seq_profile "$i")
		period=${SEQ_COMPUTE[i]}
		[ -z "$p" ] || period=$(echo "$p" | sed -n 's/^period=\([0-9]*\)ms;.*/\1/p')
		rnd 21; SEQ_ITERS[i]=$(( (10 + R) * 1000 / period ))
		[ "${SEQ_ITERS[i]}" -ge 5 ] || SEQ_ITERS[i]=5
		[ "$i" -eq 0 ] || { rnd 9; at=$((at + R)); }
		SEQ_AT[i]=$at
		echo "# r seed $seed job $((i + 1)): ${SEQ_RANKS[i]} nodes, ${SEQ_BYTES[i]} B all-reduce, compute $([ "${SEQ_COMPUTE[i]}" = up ] && echo "as long as the Up phase" || echo "${SEQ_COMPUTE[i]} ms"), ${SEQ_ITERS[i]} iterations, submitted at ${SEQ_AT[i]} s${p:+, profile $p}"
	done
	SEQ_POLICIES="cons_tres orrery orrery-hold"
}
