#!/bin/bash
# orrery-inventory on recorded nodes (hwloc XML + sysfs tree): the table,
# the orrery.conf and gres.conf snippets, and its errors.
# Ends with "N passed, M failed".
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
tool=${ORRERY_INVENTORY_BIN:-./contrib/inventory/orrery-inventory}
data=$srcdir/tests/data
pass=0 fail=0
check() {  # check NAME COMMAND...
	local name=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}
inv() {  # inv NODE ARGS...
	local node=$1; shift
	"$tool" --hwloc-xml "$data/hwloc/$node.xml" --sysfs-root "$data/sysfs/$node" \
		--hostname "$node" "$@"
}

out=$(inv dgx8); rc=$?
check "dgx8 table: exit 0" test $rc -eq 0
check "dgx8: mlx5_0 NDR 400Gbps InfiniBand, ibp27s0, PIX to GPU 0" \
	grep -Eq '^mlx5_0 +1 +InfiniBand +ACTIVE +400Gbps +ibp27s0 +0000:1b:00.0 +0 +0\(PIX\)$' <<<"$out"
check "dgx8: mlx5_7 on NUMA 1, PIX to GPU 7" \
	grep -Eq '^mlx5_7 +1 +InfiniBand +ACTIVE +400Gbps +ibp222s0 +0000:de:00.0 +1 +7\(PIX\)$' <<<"$out"
check "dgx8: storage RoCE NIC 200Gbps near no GPU" \
	grep -Eq '^mlx5_8 +1 +Ethernet +ACTIVE +200Gbps +enp170s0f0np0 .* -$' <<<"$out"
check "dgx8: second storage port down, no rate" \
	grep -Eq '^mlx5_9 +1 +Ethernet +DOWN +- ' <<<"$out"
check "dgx8: Ethernet rate from sysfs" grep -Eq '^enp170s0f0np0 +up +200Gbps$' <<<"$out"
check "dgx8: a down link shows -" grep -Eq '^eno1 +down +-$' <<<"$out"
check "dgx8: GPU 3 (H100) nearest NIC mlx5_3 over a PCIe switch" \
	grep -Eq '^3 +0000:5e:00.0 +10de:2330 +0 +0-3 +mlx5_3\(PIX\)$' <<<"$out"

out=$(inv dgx8 --format orrery-conf)
check "dgx8 orrery.conf: [orrery] group" grep -qx '\[orrery\]' <<<"$out"
check "dgx8 orrery.conf: node_link = 8 x 400G compute HCAs" \
	grep -qx 'node_link=3200Gbps' <<<"$out"
check "dgx8 orrery.conf: storage NIC named and not counted" \
	grep -q 'mlx5_8 port 1: Ethernet 200Gbps (not near a GPU: not counted)' <<<"$out"
out=$(inv dgx8 --format gres-conf)
check "dgx8 gres.conf: 8 H100 lines" \
	test "$(grep -c '^NodeName=dgx8 Name=gpu Type=h100 File=/dev/nvidia[0-7] Cores=' <<<"$out")" -eq 8
check "dgx8 gres.conf: GPU 5 in PCI order on package 1's cores" \
	grep -q '^NodeName=dgx8 Name=gpu Type=h100 File=/dev/nvidia5 Cores=4-7  # 0000:ad:00.0$' <<<"$out"

out=$(inv gpu4)
check "gpu4: one RoCE NIC at 100Gbps, PIX to GPU 1 only" \
	grep -Eq '^mlx5_0 +1 +Ethernet +ACTIVE +100Gbps +ens1f0np0 +0000:44:00.0 +0 +1\(PIX\)$' <<<"$out"
check "gpu4: GPU 0 reaches it within its NUMA node" \
	grep -Eq '^0 +0000:02:00.0 .* mlx5_0\(NODE\)$' <<<"$out"
check "gpu4: GPU 2 reaches it across sockets" \
	grep -Eq '^2 +0000:82:00.0 .* mlx5_0\(SYS\)$' <<<"$out"
check "gpu4: 25G management Ethernet" grep -Eq '^eno1 +up +25Gbps$' <<<"$out"
out=$(inv gpu4 --format orrery-conf)
check "gpu4 orrery.conf: node_link=100Gbps" grep -qx 'node_link=100Gbps' <<<"$out"

err=$(inv gpu4 --format yaml 2>&1); rc=$?
check "bad --format: exit 2, names the accepted ones" \
	bash -c "[ $rc -eq 2 ] && grep -q 'accepted are table, orrery-conf, gres-conf' <<<\"$err\""
err=$("$tool" --hwloc-xml /nonexistent.xml --sysfs-root "$data/sysfs/gpu4" 2>&1); rc=$?
check "unreadable XML: exit 1, names the file" \
	bash -c "[ $rc -eq 1 ] && grep -q '/nonexistent.xml' <<<\"$err\""
err=$("$tool" --sysfs-root /nonexistent 2>&1); rc=$?
check "no sysfs tree: exit 1 with a message" \
	bash -c "[ $rc -eq 1 ] && grep -q 'cannot list RDMA devices' <<<\"$err\""

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
