#!/usr/bin/env python3
"""Write the recorded hwloc 2 XML topologies used by tests/discover.

They follow what hwloc 2.9 exports (lstopo --of xml) on the two machine
types, trimmed to 4 cores per package so the files stay small:
  dgx8.xml  2 x Xeon 8480 class, 8 x H100 SXM (10de:2330) each behind its
            own PCIe switch (Broadcom PEX, 1000:c030) shared with one
            ConnectX-7 NDR InfiniBand HCA (15b3:1021, mlx5_0..7, ibp*),
            plus a ConnectX-7 in Ethernet mode on package 1 (mlx5_8,
            storage RoCE) and a second port that is down (mlx5_9).
  gpu4.xml  2 x EPYC class, 4 x A100 PCIe (10de:20b5); GPUs 0-1 on
            package 0 (GPU 1 shares a PCIe switch with the only RDMA NIC,
            a ConnectX-6 Dx, 15b3:101d, mlx5_0 / ens1f0np0), GPUs 2-3 on
            package 1.  A 25G Broadcom NIC (14e4:16d7, eno1) on package 0.
GPUs carry the DRM OS devices (osdev_type 1, "cardN") that hwloc reports
without the NVML/CUDA plugins; RDMA devices are OpenFabrics OS devices
(osdev_type 3), netdevs osdev_type 2.  Run: gen-xml.py DIR
"""
import sys

gp = [100]


def nxt():
    gp[0] += 1
    return gp[0]


def mask(bits):
    v = 0
    for b in bits:
        v |= 1 << b
    return "0x%08x" % v


def osdev(name, t, infos=()):
    s = '<object type="OSDev" gp_index="%d" name="%s" osdev_type="%d"' % (nxt(), name, t)
    if not infos:
        return s + "/>"
    return s + ">" + "".join('<info name="%s" value="%s"/>' % kv for kv in infos) + "</object>"


def pcidev(busid, cls, ven, dev, sub, speed, children=()):
    s = ('<object type="PCIDev" gp_index="%d" pci_busid="%s" pci_type="%s [%s:%s] [%s] 00" '
         'pci_link_speed="%s"' % (nxt(), busid, cls, ven, dev, sub, speed))
    if not children:
        return s + "/>"
    return s + ">" + "".join(children) + "</object>"


def bridge(busid, sec, sub, children, depth=1):
    return ('<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="%d" bridge_pci="0000:[%02x-%02x]" '
            'pci_busid="%s" pci_type="0604 [1000:c030] [1000:a064] b0" pci_link_speed="63.015385">'
            % (nxt(), depth, sec, sub, busid) + "".join(children) + "</object>")


def hostbridge(bus, sub, children):
    return ('<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" bridge_pci="0000:[%02x-%02x]">'
            % (nxt(), bus, sub) + "".join(children) + "</object>")


def ib_nic(busid, name, netdev, guid, eth=False, state="4"):
    infos = (("NodeGUID", guid), ("SysImageGUID", guid), ("Port1State", state),
             ("Port1LID", "0x0" if eth else "0x%x" % (int(busid[5:7], 16) + 1)),
             ("Port1LMC", "0"), ("Port1GID0", "fe80:0000:0000:0000:" + guid))
    return pcidev(busid, "0200" if eth else "0207", "15b3", "1021", "15b3:0023", "63.015385",
                  [osdev(netdev, 2, (("Address", "00:00:10:49:fe:80:00:00:00:00:00:00:" + guid[:14]),)),
                   osdev(name, 3, infos)])


def gpu(busid, dev, card):
    return pcidev(busid, "0302", "10de", dev, "10de:16c1", "63.015385",
                  [osdev("card%d" % card, 1), osdev("renderD%d" % (127 + card), 1)])


def package(idx, cores, io):
    pus = list(range(idx * cores, (idx + 1) * cores))
    cs = mask(pus)
    ns = mask([idx])
    out = ['<object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">'
           % (idx, cs, cs, ns, ns, nxt()),
           '<info name="CPUVendor" value="GenuineIntel"/>',
           '<object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" local_memory="1081145163776"/>'
           % (idx, cs, cs, ns, ns, nxt())]
    for p in pus:
        m = mask([p])
        out.append('<object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">'
                   '<object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"/></object>'
                   % (p, m, m, ns, ns, nxt(), p, m, m, ns, ns, nxt()))
    out += io
    out.append("</object>")
    return "".join(out)


def topology(host, packages, cores):
    allpus = list(range(len(packages) * cores))
    cs = mask(allpus)
    ns = mask(range(len(packages)))
    body = "".join(package(i, cores, io) for i, io in enumerate(packages))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
            '<topology version="2.0">\n'
            '<object type="Machine" os_index="0" cpuset="%s" complete_cpuset="%s" allowed_cpuset="%s" '
            'nodeset="%s" complete_nodeset="%s" allowed_nodeset="%s" gp_index="1">'
            '<info name="Backend" value="Linux"/><info name="OSName" value="Linux"/>'
            '<info name="HostName" value="%s"/><info name="Architecture" value="x86_64"/>'
            '<info name="hwlocVersion" value="2.9.0"/>%s</object>\n</topology>\n'
            % (cs, cs, cs, ns, ns, ns, host, body)).replace("><", ">\n<")


def dgx8():
    # Bus numbers of the 8 GPU/NIC pairs (as on a DGX H100).
    pairs = [(0x18, 0x1a, 0x1b), (0x2a, 0x2c, 0x2d), (0x3a, 0x3c, 0x3d), (0x5c, 0x5e, 0x5f),
             (0x9a, 0x9c, 0x9d), (0xab, 0xad, 0xae), (0xba, 0xbc, 0xbd), (0xdb, 0xdd, 0xde)]
    pk = [[], []]
    for i, (root, g, n) in enumerate(pairs):
        sw = bridge("0000:%02x:00.0" % (root + 1), root + 2, root + 6, [
            bridge("0000:%02x:00.0" % (root + 2), g, g, [gpu("0000:%02x:00.0" % g, "2330", i + 1)], 2),
            bridge("0000:%02x:01.0" % (root + 2), n, n, [ib_nic("0000:%02x:00.0" % n, "mlx5_%d" % i,
                                                                "ibp%ds0" % n, "946d:ae03:00%02x:%04x" % (i, n))], 2),
        ])
        pk[i // 4].append(hostbridge(root, root + 6, [sw]))
    pk[1].append(hostbridge(0xa8, 0xaa, [
        ib_nic("0000:aa:00.0", "mlx5_8", "enp170s0f0np0", "0a6d:aeff:fe03:0001", eth=True),
        ib_nic("0000:aa:00.1", "mlx5_9", "enp170s0f1np1", "0a6d:aeff:fe03:0002", eth=True, state="1")]))
    pk[0].append(hostbridge(0x00, 0x03, [pcidev("0000:03:00.0", "0200", "8086", "1533", "15d9:1533", "0.250000",
                                               [osdev("eno1", 2)])]))
    return topology("dgx8", pk, 4)


def gpu4():
    pk = [[], []]
    pk[0].append(hostbridge(0x01, 0x02, [bridge("0000:01:00.0", 0x02, 0x02,
                                                [gpu("0000:02:00.0", "20b5", 1)])]))
    pk[0].append(hostbridge(0x40, 0x44, [bridge("0000:41:00.0", 0x42, 0x44, [
        bridge("0000:42:00.0", 0x43, 0x43, [gpu("0000:43:00.0", "20b5", 2)], 2),
        bridge("0000:42:01.0", 0x44, 0x44, [pcidev("0000:44:00.0", "0200", "15b3", "101d", "15b3:0016", "15.753846",
                                                   [osdev("ens1f0np0", 2), osdev("mlx5_0", 3, (("NodeGUID", "1070:fd03:00a1:b2c4"), ("Port1State", "4")))])], 2),
    ])]))
    pk[0].append(hostbridge(0x60, 0x61, [pcidev("0000:61:00.0", "0200", "14e4", "16d7", "14e4:1402", "7.876923",
                                               [osdev("eno1", 2)])]))
    pk[1].append(hostbridge(0x81, 0x82, [bridge("0000:81:00.0", 0x82, 0x82, [gpu("0000:82:00.0", "20b5", 3)])]))
    pk[1].append(hostbridge(0xc1, 0xc2, [bridge("0000:c1:00.0", 0xc2, 0xc2, [gpu("0000:c2:00.0", "20b5", 4)])]))
    return topology("gpu4", pk, 4)


if __name__ == "__main__":
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, f in (("dgx8", dgx8), ("gpu4", gpu4)):
        gp[0] = 100
        with open("%s/%s.xml" % (d, name), "w") as out:
            out.write(f())
