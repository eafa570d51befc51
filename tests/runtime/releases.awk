# releases.awk - check when a training loop's collectives were released
# relative to the job's slots (slot_k = base + k * period).
#
#   awk -v period=P -v base=B -v tol=T [-v share=0.8] [-v gated=1] \
#       -f releases.awk LOOP_OUTPUT
#
# Input: nccl_train_loop's lines
#   thread iter index comm entered_us released_us returned_us captured
# With gated=1 (default), printing "problem: ..." for each failure:
#   - the first collective of every iteration (not captured into a CUDA
#     graph) is released after a slot and less than period/2 after it
#     (never early, never a slot late);
#   - iteration i+1 of a thread goes on a later slot than iteration i's
#     (one gate per iteration), normally the next one: skipping a slot
#     (an iteration that overran on a loaded machine) counts against
#     `share' like a late release;
#   - all threads release iteration i on the same slot (one gate per
#     process);
#   - every other collective, and every captured one, goes at once: held
#     less than period/2 (a wrongly gated call waits for the next slot,
#     most of a period);
#   - at least `share` of the gated releases are at most tol µs after
#     their slot, and at least `share` of the others are held at most tol.
# With gated=0: every collective must go at once (no gate).
# The tolerance is statistical because the test runs on shared CI
# machines, where waking from a sleep can take milliseconds.
# Last line: "releases: n=N within=W median=M p90=P max=X us after the slot".
function fdiv(a, b,   q) { q = int(a / b); if (q * b > a) q--; return q }
BEGIN { if (share == "") share = 0.8; if (gated == "") gated = 1 }
{
	th = $1; it = $2; idx = $3; ent = $5; rel = $6; cap = $8
	if (gated && idx == 0 && cap == 0) {
		k = fdiv(rel - base, period)
		off = rel - (base + k * period)
		if (off >= period / 2)
			printf "problem: thread %d iteration %d released %d us after slot %d (or %d us before the next)\n", th, it, off, k, period - off
		if ((th, it - 1) in slot && slot[th, it - 1] >= 0 && k <= slot[th, it - 1])
			printf "problem: thread %d iteration %d on slot %d, previous on slot %d\n", th, it, k, slot[th, it - 1]
		if ((th, it - 1) in slot && slot[th, it - 1] >= 0 && k > slot[th, it - 1] + 1)
			skipped++
		slot[th, it] = k
		if (th > 0 && (0, it) in slot && slot[0, it] != k)
			printf "problem: iteration %d: thread %d on slot %d, thread 0 on slot %d\n", it, th, k, slot[0, it]
		if (off <= tol)
			within++
		offs[n++] = off
	} else {
		if (idx == 0)
			slot[th, it] = -1
		held = rel - ent
		if (held >= period / 2)
			printf "problem: thread %d iteration %d collective %d%s held %d us (should pass at once)\n", th, it, idx, cap ? " (captured)" : "", held
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
	if (within - skipped < share * n)
		printf "problem: %d of %d iterations skipped a slot (and %d were late)\n", skipped, n, n - within
	for (i = 1; i < n; i++) { v = offs[i]; for (j = i - 1; j >= 0 && offs[j] > v; j--) offs[j + 1] = offs[j]; offs[j + 1] = v }
	printf "releases: n=%d within=%d skipped=%d median=%d p90=%d max=%d us after the slot\n", n, within + 0, skipped + 0, offs[int((n - 1) / 2)], offs[int(0.9 * (n - 1) + 0.5)], offs[n - 1]
}
