#!/bin/bash
# orrery-sacct against a fake sacct: decoding, columns, options passed on,
# and failures reported.  Ends with "N passed, M failed".
set -u
srcdir=${srcdir:-$(dirname "$0")/../..}
tool=${ORRERY_SACCT_BIN:-./contrib/sacct/orrery-sacct}
fake=$srcdir/tests/sacct/fake-sacct
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {  # check NAME COMMAND...
	local name=$1; shift
	if "$@"; then pass=$((pass + 1)); echo "ok - $name"
	else fail=$((fail + 1)); echo "not ok - $name"; fi
}

out=$(FAKE_SACCT_ARGS=$tmp/args "$tool" --sacct "$fake" -j 11,12 -S 2026-11-01 -E now -a)
rc=$?
check "exit 0" test $rc -eq 0
check "sacct got allocations, parsable2, fixed format" \
	grep -qx -- '--format=JobID,JobName,State,NodeList,End,AdminComment' "$tmp/args"
check "-j -S -E -a passed on as separate arguments" \
	bash -c "tr '\n' ' ' < $tmp/args | grep -q -- '-j 11,12 -S 2026-11-01 -E now -a'"
check "header (no request or fallback in these records: those columns hidden)" bash -c "head -n 1 <<<'$out' | grep -Eq '^JobID +JobName +State +NodeList +GatePeriod +Shift +ScoreMin +ScoreMean +Links +CtrNodes +CtrMissing +TxBytes +RxBytes +XmitWait +EcnMarked +CnpHandled +CnpSent +Pattern *$'"
check "job 11 decoded: period, shift, scores, links, profile" \
	grep -Eq '^11 +heavy-a +COMPLETED +node\[001-004\] +100\.000ms +50\.000ms +1\.000 +1\.000 +2 +- +- +- +- +- +- +- +- +period=100ms;up=0s\+50ms@80Gbps$' <<<"$out"
check "job 12 without a record shows dashes" \
	grep -Eq '^12 +plain +COMPLETED +node005 +- +- +- +- +- +- +- +- +- +- +- +- +- +-$' <<<"$out"
check "malformed record is named, not guessed" \
	grep -Eq '^13 .*\(malformed ORR1: record\)$' <<<"$out"
check "a '|' inside AdminComment does not shift columns" \
	grep -Eq '^14 +pipe +COMPLETED +node007 +200\.000ms +0\.000ms +0\.500 +0\.750 +1 +- +- +- +- +- +- +- +- +-$' <<<"$out"

out=$("$tool" --sacct "$fake" --parsable --noheader --orrery-only)
check "--parsable --noheader --orrery-only" \
	test "$(printf '%s\n' "$out" | cut -d'|' -f1 | tr '\n' ' ')" = "11 14 19 20 15 16 "
check "parsable fields (every column, fixed positions)" \
	grep -qx '11|heavy-a|COMPLETED|node\[001-004\]|100.000ms|50.000ms|1.000|1.000|2|-|-|-|-|-|-|-|period=100ms;up=0s+50ms@80Gbps|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-' <<<"$out"
check "congestion counters summed over nodes; ECN/CNP only where recorded" \
	grep -qx '15|congested|COMPLETED|node\[008-009\]|100.000ms|0.000ms|0.250|0.500|1|2|5000|10000|1000|12|7|5|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-' <<<"$out"
check "counters without ORR1:, a malformed node record flagged, not summed" \
	grep -qx '16|measured|COMPLETED|node010|-|-|-|-|-|1+bad|64|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-' <<<"$out"
check "a node without its counter record is named: lost long after the end" \
	grep -qx '19|partial|COMPLETED|node\[020-022\]|-|-|-|-|-|2|30|-|-|-|-|-|-|-|-|node021(lost)|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-' <<<"$out"
check "... and pending right after the end" \
	grep -qx '20|fresh|COMPLETED|node\[023-024\]|-|-|-|-|-|1|5|-|-|-|-|-|-|-|-|node023(pending)|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-|-' <<<"$out"

# The gate's own statistics (ORRS1:, one per node, spank-orrery(8)
# gate_stats=1): summed over the nodes' tasks.
out=$(FAKE_SACCT_SET=gatestats "$tool" --sacct "$fake")
check "gate statistics: their columns after LastGate's place, before ScoreMin" \
	bash -c "head -n 1 <<<'$out' | grep -Eq '^JobID +JobName +State +NodeList +GatePeriod +Shift +GateNodes +GateTasks +GatePhases +OnSlot +GateMissed +GateWait +Rearmed +GateOff +StatsMissing +Iteration +ProfileOff +IterRange +ScoreMin'"
check "gate statistics: two nodes summed (7 of 8 tasks gated, 58 on slot of the 66 phases not passed through, wait summed, one gate ended off)" \
	grep -Eq '^27 +gated +COMPLETED +node\[001-002\] +100\.000ms +50\.000ms +2 +7/8 +70 +87\.9% +6 +1\.650s +1 +1 ' <<<"$out"
check "gate statistics: a refused file and a malformed record are flagged, the rest still summed" \
	grep -Eq '^28 +forged +COMPLETED +node\[003-004\] +- +- +1\+bad +0/0\+bad +- +- ' <<<"$out"
out=$(FAKE_SACCT_SET=gatestats "$tool" --sacct "$fake" --parsable --noheader -o jobid,gatenodes,gatetasks,gatephases,onslot,gatemissed,gatewait,rearmed,gateoff,statsmissing)
check "gate statistics: -o picks them by name" \
	grep -qx '27|2|7/8|70|87.9%|6|1.650s|1|1|-' <<<"$out"
check "gate statistics: a node whose record never came is named (lost long after the end); a node where no task used the runtime has its record (tasks=0)" \
	grep -qx '29|2|2/2|10|100.0%|0|0.000s|0|0|node007(lost)' <<<"$out"
check "... and pending right after the end" \
	grep -qx '30|1|0/0|-|-|-|-|-|-|node010(pending)' <<<"$out"
out=$(FAKE_SACCT_SET=gatestats "$tool" --sacct "$fake" --parsable --noheader -o jobid,iteration,profileoff,iterrange,pattern)
check "measured iteration: the slowest node's, against the profile's period (+5.2 %); its range, the most irregular node's over that iteration (3.156 of 105.2 ms)" \
	grep -qx '27|105.200ms|+5.2%|3.0%|period=100ms;up=50ms+50ms@100Gbps' <<<"$out"
check "... no profile recorded (no ORR1:): the iteration alone; a record without range_us (before it): no IterRange; none measured: neither" \
	bash -c "grep -qx '29|98.000ms|-|-|-' <<<'$out' && grep -qx '30|-|-|-|-' <<<'$out'"

# The live channel's record: re-alignments and the last gate.
out=$(FAKE_SACCT_SET=channel "$tool" --sacct "$fake")
check "channel: Realigned and LastGate columns after Shift" \
	bash -c "head -n 1 <<<'$out' | grep -Eq '^JobID +JobName +State +NodeList +GatePeriod +Shift +Realigned +LastGate +Reported +ScoreMin'"
check "channel: re-aligned twice, gate off at the end (last neighbour left)" \
	grep -Eq '^21 +moved +COMPLETED +node\[001-002\] +100\.000ms +50\.000ms +2 +off\(alone\) ' <<<"$out"
check "channel: re-aligned once onto a common period (time division)" \
	grep -Eq '^23 +moved2 +COMPLETED +node\[003-004\] +100\.000ms +0\.000ms +1 +150\.000ms\+50\.000ms\(divide\) ' <<<"$out"
check "channel: a malformed record says bad" \
	grep -Eq '^22 +tampered +COMPLETED +node005 +- +- +bad ' <<<"$out"
check "learning the period: job 23's batch host reported 3 times, the newest window 90.8 ms" \
	grep -Eq '^23 +moved2 +COMPLETED +node\[003-004\] +100\.000ms +0\.000ms +1 +150\.000ms\+50\.000ms\(divide\) +90\.800ms\(3\) ' <<<"$out"
check "learning the period: none reported (job 21): a dash; a malformed report (job 31): bad" \
	bash -c "grep -Eq '^21 +moved .*off\(alone\) +- ' <<<'$out' && grep -Eq '^31 +misreported .* +bad ' <<<'$out'"
out=$(FAKE_SACCT_SET=channel "$tool" --sacct "$fake" --parsable --noheader)
check "learning the period: Reported is parsable field 36" \
	bash -c "grep -q '^23|' <<<'$out' && test \"\$(grep '^23|' <<<'$out' | cut -d'|' -f36)\" = '90.800ms(3)'"

# Admission: how long a job was held before it started.
out=$(FAKE_SACCT_SET=held "$tool" --sacct "$fake")
check "held: the Held column after Fallback's place, before GatePeriod" \
	bash -c "head -n 1 <<<'$out' | grep -Eq '^JobID +JobName +State +NodeList +Held +GatePeriod +Shift '"
check "held: job 24 waited 95 s" \
	grep -Eq '^24 +waited +COMPLETED +node\[001-002\] +95s +100\.000ms ' <<<"$out"
check "held: job 25 never held: a dash" \
	grep -Eq '^25 +straight +COMPLETED +node\[003-004\] +- +100\.000ms ' <<<"$out"
check "held: a negative held_s makes the record malformed" \
	grep -Eq '^26 .*\(malformed ORR1: record\)$' <<<"$out"
out=$(FAKE_SACCT_SET=held "$tool" --sacct "$fake" --parsable --noheader -o jobid,held)
check "held: --parsable -o jobid,held" \
	test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "24|95s 25|- 26|- "

# Records with the request and the fallback reason, no counters anywhere.
out=$(FAKE_SACCT_SET=nocounters "$tool" --sacct "$fake")
check "default view hides the counter columns no job has" \
	bash -c "head -n 1 <<<'$out' | grep -Eq '^JobID +JobName +State +NodeList +Requested +Fallback +GatePeriod +Shift +ScoreMin +ScoreMean +Links +Pattern *$'"
check "a job started while orrery.conf was broken: request kept, fallback=conf_error" \
	grep -Eq '^17 +asked +COMPLETED +node001 +gpt2:batch=16,precision=bf16 +conf_error +- +- +- +- +- +-$' <<<"$out"
check "a job left to cons_tres for an option: request (site default), reason, shift" \
	grep -Eq '^18 +contig +COMPLETED +node\[002-004\] +resnet50 \(default_profile\) +option:contiguous +48\.000ms +12\.000ms +1\.000 +1\.000 +0 +period=100ms;up=0s\+50ms@80Gbps$' <<<"$out"
out=$(FAKE_SACCT_SET=nocounters "$tool" --sacct "$fake" -o jobid,requested,pattern --parsable --noheader)
check "-o picks the requested profile and the resolved pattern" \
	test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "17|gpt2:batch=16,precision=bf16|- 18|resnet50 (default_profile)|period=100ms;up=0s+50ms@80Gbps 12|-|- "
out=$(FAKE_SACCT_SET=nocounters "$tool" --sacct "$fake" -o Fallback,JobID)
check "-o order kept, header included" \
	test "$(printf '%s\n' "$out" | head -n 2 | tr -s ' ' | tr '\n' '/')" = "Fallback JobID/conf_error 17/"
err=$("$tool" --sacct "$fake" -o jobid,colour 2>&1); rc=$?
check "-o with an unknown column: exit 2, names it and the known ones" \
	bash -c "[ $rc -eq 2 ] && grep -q \"unknown column 'colour' (known: JobID,JobName\" <<<\"\$1\"" _ "$err"

err=$(FAKE_SACCT_FAIL=1 "$tool" --sacct "$fake" 2>&1 >/dev/null); rc=$?
check "sacct failure: exit 1 with sacct's message" \
	bash -c "[ $rc -eq 1 ] && grep -q 'Connection refused' <<<\"$err\""
err=$("$tool" --bogus 2>&1); rc=$?
check "unknown option: exit 2 and says so" \
	bash -c "[ $rc -eq 2 ] && grep -q 'Unknown option --bogus' <<<\"$err\""

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
