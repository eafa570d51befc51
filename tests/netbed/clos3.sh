#!/bin/bash
# tests/netbed/clos3.sh - orrery-netbed's 3-tier Clos (leaf, aggregation,
# spine; K parallel uplinks with ECMP at each tier): it builds, writes the
# topology.conf and orrery.conf of that shape, carries real TCP traffic
# between pods across the spines (two 2-rank ring trainers, each from a
# host of pod 0 to one of pod 1), and leaves no namespace behind after
# down, after `run' whose command fails, after a signal, and after a
# build that fails half-way.  No Slurm.  Root only (skipped otherwise).
#
# Usage: tests/netbed/clos3.sh [--build-dir DIR] [--state-dir DIR]
#                              [--port-base P] [--tag T]
# Defaults: ./build, /var/tmp/nb-clos3, 31700, tag c3.  Last line:
# "N passed, M failed".
set -u -o pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD=${ORRERY_BUILD_DIR:-$TOP/build}
STATE=/var/tmp/nb-clos3
PORT=31700
TAG=c3
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) BUILD=$2; shift ;;
	--state-dir) STATE=$2; shift ;;
	--port-base) PORT=$2; shift ;;
	--tag) TAG=$2; shift ;;
	*) echo "clos3: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
. "$HERE/../lib/tap.sh"
[ "$(id -u)" -eq 0 ] || { echo "# clos3: not root, skipped"; exit 77; }
NETBED=$TOP/contrib/netbed/orrery-netbed
TRAINER=$BUILD/contrib/netbed/orrery-netbed-trainer
[ -x "$TRAINER" ] || { echo "clos3: no $TRAINER (--build-dir)" >&2; exit 2; }
FAB=$STATE/fabric
left() { ip netns list | awk -v p="onb-$TAG-" 'index($1, p) == 1' | wc -l; }
cleanup() { "$NETBED" down --tag "$TAG" >/dev/null 2>&1; rm -rf "$STATE"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
cleanup
mkdir -p "$STATE"

# 2 pods of 2 leaves of 1 host, 2 aggregation routers per pod, 2 spines.
UP=(--state-dir "$FAB" --tag "$TAG" --pods 2 --leaves 4 --hosts-per-leaf 1 --uplinks 2
	--host-rate 200 --uplink-rate 100 --pod-uplink-rate 100 --mtu 9000 --queue-bytes 120000)
if "$NETBED" up "${UP[@]}" 2>"$STATE/up.err"; then
	ok "3-tier fabric up: $(left) namespaces (4 hosts, 4 leaves, 4 aggregation routers, 2 spines)"
else
	not_ok "3-tier fabric up" "$(cat "$STATE/up.err")"
fi
[ "$(left)" -eq 14 ] && ok "14 namespaces onb-$TAG-*" || not_ok "14 namespaces onb-$TAG-*" "$(left)"
want="SwitchName=leaf0 Nodes=node01 LinkSpeed=200
SwitchName=leaf1 Nodes=node02 LinkSpeed=200
SwitchName=leaf2 Nodes=node03 LinkSpeed=200
SwitchName=leaf3 Nodes=node04 LinkSpeed=200
SwitchName=pod0 Switches=leaf[0-1] LinkSpeed=400
SwitchName=pod1 Switches=leaf[2-3] LinkSpeed=400
SwitchName=spine Switches=pod[0-1]"
got=$(grep -v '^#' "$FAB/topology.conf" 2>/dev/null)
[ "$got" = "$want" ] && ok "topology.conf: leaves under pods under the spine, LinkSpeed the sum of each tier's uplinks" ||
	not_ok "topology.conf of the 3-tier fabric" "got: $got"
grep -q '^node_link=200Mbps$' "$FAB/orrery.conf" 2>/dev/null && grep -q '^linkspeed_unit=1Mbps$' "$FAB/orrery.conf" &&
	ok "orrery.conf: node_link and linkspeed_unit" || not_ok "orrery.conf" "$(cat "$FAB/orrery.conf" 2>/dev/null)"
[ "$(awk '$1 == "node03" { print $4, $5 }' "$FAB/hosts" 2>/dev/null)" = "leaf2 pod1" ] &&
	ok "hosts: node03 under leaf2 in pod1" || not_ok "hosts file names leaf and pod" "$(cat "$FAB/hosts")"

# Real traffic across the top tier: two rings, node01<->node03 and
# node02<->node04 (every packet crosses leaf, aggregation and spine).
spine_bytes() {
	local j t=0 b
	for j in 0 1; do
		b=$(ip netns exec "onb-$TAG-s$j" tc -s qdisc show | awk '/^qdisc bfifo/ { getline; s += $2 } END { print s + 0 }')
		t=$((t + b))
	done
	echo $t
}
b0=$(spine_bytes)
pids=()
for pair in "1 3 0" "2 4 1"; do
	read -r a b k <<<"$pair"
	peers=10.0.$a.2,10.0.$b.2
	for r in 0 1; do
		node=node0$([ $r -eq 0 ] && echo $a || echo $b)
		"$NETBED" exec "$node" --state-dir "$FAB" -- "$TRAINER" --peers "$peers" --rank $r \
			--port $((PORT + k)) --iters 4 --warmup 1 --compute-ms 10 --bytes 1048576 --cc bbr \
			>"$STATE/t$k.$r" 2>&1 &
		pids+=($!)
	done
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
b1=$(spine_bytes)
n_ok=$(grep -l '^summary: .*check=1 ' "$STATE"/t*.* 2>/dev/null | wc -l)
[ $rc -eq 0 ] && [ "$n_ok" -eq 4 ] && ok "two 2-rank rings between the pods completed (4 ranks, all-reduce checked)" ||
	not_ok "two 2-rank rings between the pods" "rc=$rc, $n_ok of 4 ranks summarised" "$(tail -n 2 "$STATE"/t*.*)"
# Each rank sends its 1 MiB buffer 4 times: at least 16 MiB over the spines.
[ $((b1 - b0)) -ge $((16 * 1048576)) ] && ok "the spines carried the rings' traffic ($(( (b1 - b0) / 1048576 )) MiB, at least 16)" ||
	not_ok "the spines carried the rings' traffic" "$((b1 - b0)) bytes"
st=$("$NETBED" stats --state-dir "$FAB" --tag "$TAG")
grep -q '^drops_p0a1_u1=' <<<"$st" && grep -q '^drops_s1_p1a0=' <<<"$st" &&
	ok "stats lists the aggregation routers' and spines' shaped queues" || not_ok "stats lists the aggregation routers' and spines' shaped queues" "$st"
"$NETBED" down --tag "$TAG"
[ "$(left)" -eq 0 ] && ok "down: no namespace onb-$TAG-* left" || not_ok "down leaves nothing" "$(left) left"

# --arbitration hosts: every link between switches, the aggregation
# routers' and spines' included, has one queue per source host (4 hosts
# and one for the rest, under the port's class), chosen by u32 on the
# source address; a ring still runs through it.
if "$NETBED" up "${UP[@]}" --arbitration hosts 2>"$STATE/up-hosts.err"; then
	nf=$(ip netns exec "onb-$TAG-s1" tc filter show dev p1a0 2>/dev/null | grep -c 'match 0a00..02/ffffffff')
	nc=$(ip netns exec "onb-$TAG-p0a1" tc class show dev u1 2>/dev/null | grep -c 'parent 1:1 ')
	nq=$(ip netns exec "onb-$TAG-l0" tc qdisc show dev u0 2>/dev/null | grep -c '^qdisc bfifo')
	[ "$nf" -eq 4 ] && [ "$nc" -eq 5 ] && [ "$nq" -eq 5 ] &&
		ok "--arbitration hosts: a queue per source host on the spine, aggregation and leaf ports (4 filters, 5 classes, 5 queues)" ||
		not_ok "--arbitration hosts: a queue per source host" "filters $nf (want 4), classes $nc (want 5), queues $nq (want 5)"
	for r in 0 1; do
		"$NETBED" exec "node0$([ $r -eq 0 ] && echo 1 || echo 3)" --state-dir "$FAB" -- "$TRAINER" \
			--peers 10.0.1.2,10.0.3.2 --rank $r --port $((PORT + 5)) --iters 3 --warmup 1 \
			--compute-ms 10 --bytes 1048576 --channels 2 --cc bbr >"$STATE/h.$r" 2>&1 &
		pids[$r]=$!
	done
	rc=0
	for r in 0 1; do wait "${pids[$r]}" || rc=1; done
	[ $rc -eq 0 ] && [ "$(grep -l '^summary: .*check=1 ' "$STATE"/h.* | wc -l)" -eq 2 ] &&
		ok "--arbitration hosts: a 2-rank ring of 2 channels across the spines completed (all-reduce checked)" ||
		not_ok "--arbitration hosts: a ring across the spines" "rc=$rc" "$(tail -n 2 "$STATE"/h.*)"
else
	not_ok "3-tier fabric up with --arbitration hosts" "$(cat "$STATE/up-hosts.err")"
fi
"$NETBED" down --tag "$TAG"
[ "$(left)" -eq 0 ] || not_ok "down after --arbitration hosts leaves nothing" "$(left) left"
msg=$("$NETBED" up "${UP[@]}" --arbitration wfq 2>&1)
[ $? -ne 0 ] && [ "$(left)" -eq 0 ] && grep -q "arbitration 'wfq': fifo or hosts" <<<"$msg" &&
	ok "--arbitration wfq is refused, naming what is accepted" || not_ok "--arbitration wfq refused" "$msg"

# run: torn down when the command fails, and on a signal.
"$NETBED" run "${UP[@]}" -- false 2>/dev/null
rc=$?
[ $rc -eq 1 ] && [ "$(left)" -eq 0 ] && ok "run -- false: exit 1, nothing left" ||
	not_ok "run -- false: exit 1, nothing left" "rc=$rc, $(left) left"
"$NETBED" run "${UP[@]}" -- sleep 60 2>/dev/null &
rp=$!
for _ in $(seq 100); do [ "$(left)" -eq 14 ] && [ -n "$(pgrep -P $rp sleep)" ] && break; sleep 0.2; done
kill -TERM $rp
wait $rp
rc=$?
[ $rc -eq 143 ] && [ "$(left)" -eq 0 ] && ok "run killed by SIGTERM: exit 143, nothing left" ||
	not_ok "run killed by SIGTERM: exit 143, nothing left" "rc=$rc, $(left) left"
pkill -P $rp sleep 2>/dev/null

# A build that fails half-way (tc refusing the second pod's aggregation
# router) is torn down.
mkdir -p "$STATE/bin"
cat >"$STATE/bin/tc" <<'TC'
#!/bin/sh
[ -n "$(ip netns identify $$ 2>/dev/null | grep -- '-p1a1$')" ] && { echo "tc: injected failure" >&2; exit 1; }
exec /usr/sbin/tc "$@"
TC
chmod +x "$STATE/bin/tc"
PATH=$STATE/bin:$PATH "$NETBED" up "${UP[@]}" 2>"$STATE/fail.err"
rc=$?
[ $rc -ne 0 ] && [ "$(left)" -eq 0 ] && grep -q "tearing down" "$STATE/fail.err" &&
	ok "a build failing half-way is torn down (nothing left)" ||
	not_ok "a build failing half-way is torn down" "rc=$rc, $(left) left" "$(cat "$STATE/fail.err")"
summary
[ "$FAIL" -eq 0 ]
