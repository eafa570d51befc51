#!/usr/bin/env python3
"""Regenerate the recorded timelines used by tests/capture (deterministic).

Each job is described by its true pattern below; tests/capture asserts that
orrery-capture recovers these numbers (the hand-computed expectations are
written next to each job).  Jitter is uniform and seeded, so the files do
not change between runs.

    tests/data/timelines/generate.py tests/data/timelines
"""
import os
import random
import sys

T0 = 1764460800_000_000  # 2025-11-30 00:00:00 UTC, in µs


def write(path, host, rank, source, events):
    with open(path, "w") as f:
        f.write("# orrery-timeline 1\n")
        f.write(f"# host={host} pid={4000 + rank} rank={rank} source={source}\n")
        for s, e, b, comm, op in sorted(events, key=lambda x: x[0]):
            f.write(f"{s} {e} {b} {comm} {op}\n")


def dp_2bucket(rank, rng):
    """Data parallel, 2 ranks, period 150 ms, warm-up iteration first.

    Phase 0: one all-reduce of 25 MB, 12 ms          -> 25e6*8/12000 = 16667 Mbps
    Phase 1: two all-reduces of 20 MB back to back (200 us apart), 8 + 0.2
             + 9.8 = 18 ms from the first start to the second end, at 30 ms
                                                      -> 40e6*8/18000 = 17778 Mbps
    n = 2: the ring all-reduce factor 2(n-1)/n is 1.
    """
    ev = []
    t = T0 + 2_000_000 + 37 * rank  # rank 1's clock is 37 us ahead
    # Warm-up: DDP's first iteration all-reduces one bucket late and slowly.
    ev.append((t + 200_000, t + 260_000, 65_000_000, "0x5581a0", "AllReduce"))
    t += 450_000
    for _ in range(41):
        d0 = 12_000 + rng.randint(-200, 200)
        ev.append((t, t + d0, 25_000_000, "0x5581a0", "AllReduce"))
        s1 = t + 30_000 + rng.randint(-150, 150)
        d1 = 8_000 + rng.randint(-150, 150)
        s2 = s1 + d1 + 200
        d2 = 9_800 + rng.randint(-150, 150)
        ev.append((s1, s1 + d1, 20_000_000, "0x5581a0", "AllReduce"))
        ev.append((s2, s2 + d2, 20_000_000, "0x5581a0", "AllReduce"))
        t += 150_000 + rng.randint(-300, 300)
    return ev


def dp_straggler(rng):
    """One rank of an 8-rank job, period 100 ms with +-5 ms jitter.

    One all-reduce of 50 MB, 20 ms: factor 2*7/8 = 1.75 ->
    50e6*1.75*8/20000 = 35000 Mbps (with --ranks 8).
    A 3 s checkpoint pause after iteration 30 (one irregular iteration) and
    two iterations with an extra 8-byte metrics all-reduce at 30 ms (another
    shape).  59 complete iterations: 1 irregular, 1 warm-up, 2 of another
    shape -> 55 used.
    """
    ev = []
    t = T0 + 5_000_000
    for i in range(60):
        d = 20_000 + rng.randint(-500, 500)
        ev.append((t, t + d, 50_000_000, "0x7f00", "ncclAllReduce"))
        if i in (12, 44):
            ev.append((t + 30_000, t + 30_100, 8, "0x7f00", "ncclAllReduce"))
        t += 100_000 + rng.randint(-5_000, 5_000)
        if i == 30:
            t += 3_000_000
    return ev


def dp_split(rng):
    """Data parallel, 2 ranks, period 400 ms, its second bucket now and then
    late, and now and then a late iteration.

    Phase 0: one all-reduce of 25 MB, 12 ms         -> 16667 Mbps (n = 2)
    Phase 1: two all-reduces of 20 MB at 30 ms, 200 us apart: 8 + 0.2 + 9.8
             = 18 ms                                 -> 17778 Mbps
    In about one iteration in five the second all-reduce starts 2-6 ms
    after the first ends: a burst of its own at --gap 1ms (that iteration
    has three bursts and is left out for its shape).  In about one in ten
    the iteration runs 60-90 ms long and the next one as much shorter (a
    gated job back on its grid).  Counting bursts, capture found no
    iteration boundary in these (a lag of 5 periods won); the period is
    400 ms.
    """
    ev = []
    t = T0 + 2_000_000
    owed = 0
    for _ in range(60):
        d0 = 12_000 + rng.randint(-200, 200)
        ev.append((t, t + d0, 25_000_000, "0x7f31c0", "AllReduce"))
        s1 = t + 30_000 + rng.randint(-150, 150)
        gap = 200 if rng.random() > 0.2 else rng.randint(2_000, 6_000)
        s2 = s1 + 8_000 + gap
        ev.append((s1, s1 + 8_000, 20_000_000, "0x7f31c0", "AllReduce"))
        ev.append((s2, s2 + 9_800, 20_000_000, "0x7f31c0", "AllReduce"))
        step = 400_000 + rng.randint(-300, 300)
        if owed:
            step -= owed
            owed = 0
        elif rng.random() < 0.1:
            owed = rng.randint(60_000, 90_000)
            step += owed
        t += step
    return ev


def pipeline(rng):
    """One stage of a 4-rank pipeline + data-parallel job, period 450 ms.

    offset  duration  op         bytes   factor(n=4)  demand
    0       4 ms      send       8 MB    1            16000 Mbps
    60 ms   4 ms      send       8 MB    1            16000 Mbps
    120 ms  4 ms      recv       8 MB    1            16000 Mbps
    200 ms  12 ms     alltoall   48 MB   3/4          24000 Mbps /a2a
    280 ms  50 ms     allreduce  100 MB  3/2          24000 Mbps
    The longest gap (330 -> 450 ms) ends the iteration.
    """
    ev = []
    t = T0 + 9_000_000
    for _ in range(30):
        for off, dur, op, b, comm in ((0, 4_000, "Send", 8_000_000, "pp"),
                                      (60_000, 4_000, "Send", 8_000_000, "pp"),
                                      (120_000, 4_000, "Recv", 8_000_000, "pp"),
                                      (200_000, 12_000, "AllToAll", 48_000_000, "ep"),
                                      (280_000, 50_000, "AllReduce", 100_000_000, "dp")):
            j = rng.randint(-100, 100) if off else 0
            dj = rng.randint(-100, 100)
            ev.append((t + off + j, t + off + j + dur + dj, b, comm, op))
        t += 450_000 + rng.randint(-1_000, 1_000)
    return ev


def random_noise(rng):
    """No period: 120 collectives at random times over 30 s."""
    ev = []
    for _ in range(120):
        s = T0 + rng.randint(0, 30_000_000)
        ev.append((s, s + rng.randint(100, 20_000), rng.randint(1, 10**8),
                   "0x1", "AllReduce"))
    return ev


def bad_files(d):
    good = "# orrery-timeline 1\n# host=n1 pid=1 rank=0 source=fake\n"
    files = {
        "empty.timeline": "",
        "wrong-header.timeline": "# nccl-trace 1\n100 200 8 c AllReduce\n",
        "version2.timeline": "# orrery-timeline 2\n100 200 8 c AllReduce\n",
        # Out of order by a little is fine (completion order); 90 s back
        # is a clock step.
        "non-monotonic.timeline": good + "100001000 100002000 8 c AllReduce\n"
        "100003000 100004000 8 c AllReduce\n10000900 10000950 8 c AllReduce\n",
        "end-before-start.timeline": good + "1000 900 8 c AllReduce\n",
        "garbage.timeline": good + "1000 2000 8 c AllReduce\nhello world\n",
        "binary.timeline": good + "1000 2000 8 c\x00\x01 AllReduce\n",
        "no-events.timeline": good,
        "negative.timeline": good + "-5 2000 8 c AllReduce\n",
    }
    for name, text in files.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
    for r in (0, 1):
        write(os.path.join(d, f"dp-2bucket.rank{r}.timeline"), f"node0{r + 1}",
              r, "torch", dp_2bucket(r, random.Random(100 + r)))
    write(os.path.join(d, "dp-straggler.timeline"), "gpu17", 3, "nccl",
          dp_straggler(random.Random(7)))
    write(os.path.join(d, "dp-split.timeline"), "node03", 0, "torch",
          dp_split(random.Random(1)))
    write(os.path.join(d, "pipeline.timeline"), "gpu02", 1, "nccl",
          pipeline(random.Random(11)))
    write(os.path.join(d, "random.timeline"), "gpu05", 0, "nccl",
          random_noise(random.Random(3)))
    os.makedirs(os.path.join(d, "bad"), exist_ok=True)
    bad_files(os.path.join(d, "bad"))


if __name__ == "__main__":
    main()
