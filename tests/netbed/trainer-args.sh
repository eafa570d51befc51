#!/bin/bash
# tests/netbed/trainer-args.sh (make check): orrery-netbed-trainer's
# profile derivation and its refusal of bad input, without a fabric.
set -u
T=${TRAINER:-contrib/netbed/orrery-netbed-trainer}
. "$(dirname "$0")/../lib/tap.sh"
check() {  # check WHAT EXPECTED ARGS...
	local what=$1 want=$2 got
	shift 2
	got=$("$T" "$@" 2>&1)
	[ "$got" = "$want" ] && ok "$what" || not_ok "$what" "got: $got" "want: $want"
}
# 3 ranks send 2*2/3 * 3 MiB = 4194304 bytes each: 335.5 ms at 100 Mbit/s,
# 394.7 ms at 0.85 of it; 33.55 Mbit in 395 ms: 85 Mbit/s.
check "profile of a 3-rank 3 MiB ring at 100 Mbit/s" "period=795ms;up=400ms+395ms@85Mbps" \
	--print-profile --ranks 3 --bytes 3145728 --compute-ms 400 --rate 100 --efficiency 0.85
# 2 ranks: 3 MiB each, 251.7 ms at 100 Mbit/s, 279.6 ms at 0.9; 25.17 Mbit in 280 ms: 90 Mbit/s.
check "profile of a 2-rank ring: each rank sends the whole buffer" "period=480ms;up=200ms+280ms@90Mbps" \
	--print-profile --ranks 2 --bytes 3145728 --compute-ms 200 --rate 100 --efficiency 0.9
check "--efficiency outside 0.1..1 is refused" "orrery-netbed-trainer: error: --efficiency 2: accepted 0.1 to 1" \
	--print-profile --ranks 2 --bytes 1000 --rate 100 --efficiency 2
check "--print-profile needs ranks and a rate" \
	"orrery-netbed-trainer: error: --print-profile needs --ranks N (>= 2) and --rate MBIT" --print-profile --bytes 1000
check "a rank beyond the peer list is refused" "orrery-netbed-trainer: error: rank beyond the --peers list" \
	--peers 10.0.0.1,10.0.0.2 --rank 2
check "a port below 1024 is refused" "orrery-netbed-trainer: error: --port: not an integer in range" \
	--peers 10.0.0.1 --port 80
check "--channels 0 is refused" "orrery-netbed-trainer: error: --channels: not an integer in range" \
	--peers 10.0.0.1 --channels 0
check "--channels above 16 is refused" "orrery-netbed-trainer: error: --channels: not an integer in range" \
	--peers 10.0.0.1 --channels 17
summary
[ "$FAIL" -eq 0 ]
