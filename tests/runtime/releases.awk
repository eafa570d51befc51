# releases.awk - check when a training loop's collectives were released
# relative to the job's slots (slot_k = base + k * period).
#
#   awk -v period=P -v base=B -v tol=T [-v share=0.8] [-v gated=1] \
#       -f releases.awk LOOP_OUTPUT
#
# Input: nccl_train_loop's lines
#   thread iter index comm entered_us released_us returned_us captured
# With gated=1 (default), printing "problem: ..." when the gate is wrong:
#   - the first collective of every iteration (not captured into a CUDA
#     graph) is released after a slot and less than period/2 after it
#     (never early, never a slot late);
#   - iteration i+1 of a thread goes on a later slot than iteration i's
#     (one gate per iteration), normally the next one;
#   - all threads release iteration i on the same slot (one gate per
#     process);
#   - every other collective, and every captured one, goes at once: held
#     less than period/2 (a wrongly gated call waits for the next slot,
#     most of a period);
#   - at least `share' of the gated releases are at most tol us after
#     their slot, and at least `share' of the others are held at most tol.
# With gated=0: at least `share' of the collectives go at once.
#
# Why shares and not every iteration: on a loaded 2-core CI machine a
# thread can be kept off the CPU for tens of milliseconds, and then its
# collective reaches the gate after the phase it belonged to, or wakes
# late.  Such an iteration is an anomaly, printed as "note: ...", and
# anomalies together may take at most 1 - share of the iterations.  A
# broken gate (a collective gated twice, threads gated apart, no gate)
# is wrong on most iterations, not on one in five.
# Last line: "releases: n=N within=W skipped=S anomalies=A median=M
# p90=P max=X us after the slot".
function fdiv(a, b,   q) { q = int(a / b); if (q * b > a) q--; return q }
function note(msg) { printf "note: %s\n", msg; anomalies++ }
BEGIN { if (share == "") share = 0.8; if (gated == "") gated = 1 }
{
	th = $1; it = $2; idx = $3; ent = $5; rel = $6; cap = $8
	if (gated && idx == 0 && cap == 0) {
		k = fdiv(rel - base, period)
		off = rel - (base + k * period)
		if (off >= period / 2)
			note(sprintf("thread %d iteration %d released %d us after slot %d (or %d us before the next)", th, it, off, k, period - off))
		else if ((th, it - 1) in slot && slot[th, it - 1] >= 0 && k <= slot[th, it - 1])
			note(sprintf("thread %d iteration %d on slot %d, previous on slot %d", th, it, k, slot[th, it - 1]))
		else if (th > 0 && (0, it) in slot && slot[0, it] != k)
			note(sprintf("iteration %d: thread %d on slot %d, thread 0 on slot %d", it, th, k, slot[0, it]))
		if ((th, it - 1) in slot && slot[th, it - 1] >= 0 && k > slot[th, it - 1] + 1)
			skipped++
		slot[th, it] = k
		if (off <= tol)
			within++
		offs[n++] = off
	} else {
		if (idx == 0)
			slot[th, it] = -1
		held = rel - ent
		if (held >= period / 2)
			printf "note: thread %d iteration %d collective %d%s held %d us (should pass at once)\n", th, it, idx, cap ? " (captured)" : "", held
		free_n++
		if (held <= tol)
			free_ok++
	}
}
END {
	if (free_n > 0 && free_ok < share * free_n)
		printf "problem: only %d of %d ungated collectives went within %d us\n", free_ok, free_n, tol
	if (!gated) { printf "releases: %d ungated, %d within %d us\n", free_n, free_ok, tol; exit }
	if (n == 0) { print "problem: no gated releases in the input"; print "releases: n=0"; exit }
	if (within < share * n)
		printf "problem: only %d of %d releases within %d us of their slot\n", within, n, tol
	if (anomalies + skipped > (1 - share) * n)
		printf "problem: %d of %d gated iterations off their slot or out of step and %d skipped a slot (at most %d allowed)\n", anomalies, n, skipped, int((1 - share) * n)
	for (i = 1; i < n; i++) { v = offs[i]; for (j = i - 1; j >= 0 && offs[j] > v; j--) offs[j + 1] = offs[j]; offs[j + 1] = v }
	printf "releases: n=%d within=%d skipped=%d anomalies=%d median=%d p90=%d max=%d us after the slot\n", n, within + 0, skipped + 0, anomalies + 0, offs[int((n - 1) / 2)], offs[int(0.9 * (n - 1) + 0.5)], offs[n - 1]
}
