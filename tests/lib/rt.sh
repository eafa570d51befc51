# tests/lib/rt.sh - RTPRIO, a command prefix for the timing tests' own
# processes (nccl.sh, the fake-NCCL capture, the DDP job): `chrt -f 1'
# (SCHED_FIFO at the lowest real-time priority) where this user may set
# it (root, as in CI), empty elsewhere.  Why: these tests assert when
# orrery's gate releases a sleeping thread relative to its slot, and on a
# loaded 2-core machine an ordinary thread can wait tens of milliseconds
# for a CPU after its sleep ends; that measures the machine, not the gate.
# A real-time thread is woken at once; its own work still runs for as
# long as it takes.  The kernel's real-time throttling (95% of each
# second) keeps even a spinning test from starving the machine.
RTPRIO=
if chrt -f 1 true 2>/dev/null; then
	RTPRIO="chrt -f 1"
fi
