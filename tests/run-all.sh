#!/bin/bash
# README's test command: every orrery test, from a clean clone, on Debian 12.
#
#   tests/run-all.sh [--skip-cluster] [--skip-2411 | --only-2411]
#
# 1. installs missing Debian packages (contrib/install-deps; needs root),
# 2. fetches and configures the Slurm source of the installed version
#    (select plugin headers; cached in _build/slurm-src),
# 3. builds with warnings as errors, runs the unit suites (make check) and
#    make distcheck,
# 4. runs the integration suites against real Slurm daemons that they start
#    and stop themselves (munge, MariaDB, slurmdbd, slurmctld, slurmd),
# 5. Slurm 24.11: builds a Debian 13 root with Debian's 24.11 packages
#    (contrib/slurm-root/build; cached in _build/trixie-root; in the
#    background from step 1 on, beside the 22.05 build), builds orrery
#    against 24.11.5 inside it and runs the integration, select, runtime,
#    channel, learn, discover and stress suites there against real 24.11
#    daemons
#    (--skip-2411 leaves it out, --only-2411 runs only this part;
#    ORRERY_2411_PORT_BASE moves its ports, default 21000: integration +0,
#    select +40, stress +60, runtime +100, channel +200, discover +300,
#    learn +400;
#    ORRERY_2411_STATE_PREFIX its state dirs, default /var/tmp/orrery).
# Each suite's header names the Slurm release it runs against, and each
# suite's result line its time.
# The CPU-bound steps run beside the cluster suites ("background steps").
# The last line is "N passed, M failed" over all suites.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/_build
skip_cluster=0
skip_2411=0
only_2411=0
for a in "$@"; do
	case $a in
	--skip-cluster) skip_cluster=1 ;;
	--skip-2411) skip_2411=1 ;;
	--only-2411) only_2411=1 ;;
	*) echo "run-all: unknown argument '$a' (accepted: --skip-cluster, --skip-2411, --only-2411)" >&2; exit 2 ;;
	esac
done

suites_passed=0
suites_failed=0
failed_names=()
step_t0=$SECONDS
step() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; step_t0=$SECONDS; }
record() {  # record NAME RC: the suite's result and time since its step
	printf -- '---- %s: %s in %d s\n' "$1" "$([ "$2" -eq 0 ] && echo passed || echo FAILED)" \
		$((SECONDS - step_t0))
	count "$1" "$2"
}
count() {  # count NAME RC
	if [ "$2" -eq 0 ]; then
		suites_passed=$((suites_passed + 1))
	else
		suites_failed=$((suites_failed + 1))
		failed_names+=("$1")
	fi
}

# ------------------------------------------------------- background steps
# The CPU-bound steps (a build and its unit tests, packages) run beside the
# cluster suites, which mostly wait on daemons and jobs: on the 2-core CI
# machine that saves about a sixth of the run.  They run at nice 19, so
# a daemon or a test that wants a CPU gets it first (the timing tests also
# raise themselves to SCHED_FIFO: tests/lib/rt.sh), in a subshell whose
# output goes to a file.  Their record lines also go, one "RC NAME" line
# each, to a results file of their own, which bg_join counts; it prints
# the output where it joins.  They are joined before the suites that time
# the scheduler, real traffic or live gates (stress, channel, netbed), so
# that no figure those print has a build beside it.
bg_pid=
bg_log=
bg_what=
bg_start() {  # bg_start LOG WHAT FUNCTION: FUNCTION's steps in the background
	bg_log=$1 bg_what=$2
	: >"$bg_log.results"
	(
		renice -n 19 -p "$BASHPID" >/dev/null 2>&1
		# This subshell's own count: the parent counts the file.
		count() { printf '%d %s\n' "$2" "$1" >>"$bg_log.results"; }
		"$3"
		echo "#### background steps ended"
	) >"$bg_log" 2>&1 &
	bg_pid=$!
	printf '\n#### in the background from %s: %s (log: %s; printed where joined)\n' \
		"$(date +%T)" "$bg_what" "$bg_log"
}
bg_join() {
	local t0=$SECONDS rc name
	[ -n "$bg_pid" ] || return 0
	wait "$bg_pid"
	bg_pid=
	printf '\n#### joined the background steps (%s; waited %d s for them here)\n' \
		"$bg_what" $((SECONDS - t0))
	cat "$bg_log"
	while read -r rc name; do
		count "$name" "$rc"
	done <"$bg_log.results"
	grep -q '^#### background steps ended' "$bg_log" ||
		{ echo "---- background steps ($bg_what): ended early"; count "background steps ($bg_what)" 1; }
}

# kill_tree PID: PID and every process under it (the background steps'
# builds and test daemons, the Debian 13 root's debootstrap), children
# first, when the run ends early.
kill_tree() {
	local c
	[ -n "$1" ] || return 0
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}
root_pid=
trap 'kill_tree "$bg_pid"; kill_tree "$root_pid"' EXIT

# failed_tests DIR: each test under DIR that automake's harness did not
# pass, with the end of its log, so that a failure in CI's output says
# which test failed and how (CI keeps no build tree).
failed_tests() {
	local trs res t
	for trs in $(find "$1" -name '*.trs' 2>/dev/null | sort); do
		res=$(sed -n 's/^:test-result: //p' "$trs" | grep -vxE 'PASS|SKIP|XFAIL' | head -n 1)
		[ -n "$res" ] || continue
		t=${trs#"$1"/}
		echo "---- $res: ${t%.trs} (the end of its log)"
		tail -n 40 "${trs%.trs}.log" | sed 's/^/    /'
	done
}

finish() {
	bg_join
	echo
	[ ${#failed_names[@]} -gt 0 ] && echo "failed suites: ${failed_names[*]}"
	echo "$suites_passed passed, $suites_failed failed"
	[ "$suites_failed" -eq 0 ]
	exit $?
}

step "dependencies"
"$top/contrib/install-deps" || { record install-deps 1; finish; }

# The Debian 13 root of the 24.11 suites is mostly downloading and
# unpacking: build it in the background while the 22.05 tree builds and
# its unit tests run, and wait for it where the 24.11 suites begin.
root=$build/trixie-root
if [ $skip_cluster -eq 0 ] && [ $skip_2411 -eq 0 ] && [ $only_2411 -eq 0 ]; then
	mkdir -p "$build"
	root_t0=$(date +%s)
	"$top/contrib/slurm-root/build" "$root" >"$build/trixie-root.log" 2>&1 &
	root_pid=$!
	echo "building the Debian 13 root for the 24.11 suites in the background (log: $build/trixie-root.log)"
fi

if [ $only_2411 -eq 0 ]; then

step "Slurm source tree (select plugin headers)"
slurm_src_opt=()
mkdir -p "$build"
if "$top/contrib/slurm-source/fetch" "$build/slurm-src" > "$build/slurm-src.log" 2>&1; then
	# The script's last line is the configure option to use.
	slurm_src_opt=("$(tail -n 1 "$build/slurm-src.log")")
	echo "using ${slurm_src_opt[0]}"
else
	echo "could not prepare the Slurm source tree (log: $build/slurm-src.log); the select plugin is not built"
	tail -n 20 "$build/slurm-src.log"
	record slurm-source 1
fi

step "build"
(
	set -e
	cd "$top"
	autoreconf -fi >/dev/null
	mkdir -p "$build/obj"
	cd "$build/obj"
	"$top/configure" --enable-werror --prefix="$build/install" \
		--with-slurm-plugindir="$build/install/lib/slurm" "${slurm_src_opt[@]}"
	make -j2
	make install >/dev/null
) || { record build 1; finish; }
record build 0

step "unit tests (make check)"
(cd "$build/obj" && make -j2 check)
rc=$?
# Print each suite's own summary lines (CMocka and the shell tests).
for log in $(cd "$build/obj" && find . -name '*.log' ! -name test-suite.log ! -name config.log | sort); do
	grep -hE '^\[  (PASSED|FAILED)  \]|^[0-9]+ passed, [0-9]+ failed' "$build/obj/$log" |
		sed "s|^|${log#./}: |"
done
grep -E '^# (TOTAL|PASS|FAIL|ERROR)' "$build/obj/test-suite.log" 2>/dev/null
[ $rc -eq 0 ] || failed_tests "$build/obj"
record "make check" $rc

step "fuzzers: libFuzzer + ASan/UBSan, 10^6 executions per target (at most ${ORRERY_FUZZ_SECONDS:-300} s)"
"$top/tests/fuzz/run.sh" --execs 1000000 --seconds "${ORRERY_FUZZ_SECONDS:-300}" --build "$build/fuzz"
record "fuzzers" $?

# The sanitizer build, make distcheck and the packages (about 12 minutes
# of both CPUs on their own), beside the cluster suites below.
cpu_steps_2205() {
	step "sanitizers: ASan + UBSan build of liborrery, plugins' testable parts, tools; make check"
	"$top/tests/sanitize/run.sh" --build "$build/sanitize"
	record "sanitizers (ASan+UBSan)" $?

	step "make distcheck"
	(cd "$build/obj" && make -j2 distcheck DISTCHECK_CONFIGURE_FLAGS="--enable-werror ${slurm_src_opt[*]}" >"$build/distcheck.log" 2>&1)
	rc=$?
	tail -n 4 "$build/distcheck.log"
	# A failed distcheck leaves its tree; its make check ran in _build/sub.
	[ $rc -eq 0 ] || failed_tests "$(echo "$build"/obj/orrery-*/_build/sub)"
	record distcheck $rc

	step "Debian packages (dpkg-buildpackage, contents, exact Slurm dependency)"
	if [ ${#slurm_src_opt[@]} -gt 0 ]; then
		"$top/tests/debian/build-debs.sh" "${slurm_src_opt[0]#--with-slurm-source=}"
		record "debian packages" $?
	else
		echo "no Slurm source tree: the packages cannot be built"
		record "debian packages" 1
	fi
}
if [ $skip_cluster -eq 0 ]; then
	bg_start "$build/background-22.05.log" "sanitizers, make distcheck, Debian packages" cpu_steps_2205
else
	cpu_steps_2205
fi

if [ $skip_cluster -eq 0 ]; then
	plugins=$build/install/lib/slurm
	# The release every suite below runs against (the host's: Debian 12).
	sv="Slurm $(slurmctld -V 2>/dev/null | awk '{print $2}')"
	step "integration ($sv): SPANK plugin, relay, srun/salloc, sacct (stand-in controller)"
	"$top/tests/integration/run.sh" --build-dir "$build/obj"
	record "integration (cons_tres, $sv)" $?
	step "runtime ($sv): srun --comm-gate=auto, fake-NCCL loop released on the job's slots"
	"$top/tests/runtime/cluster.sh" --build-dir "$build/obj"
	record "runtime (NCCL gate on a cluster, $sv)" $?
	if [ -f "$plugins/select_orrery_cons_tres.so" ]; then
		step "integration ($sv): the same suite under select/orrery_cons_tres"
		ORRERY_SELECT_PLUGIN_DIR=$plugins \
			"$top/tests/integration/run.sh" --build-dir "$build/obj" --select orrery
		record "integration (select/orrery, $sv)" $?
		step "select plugin ($sv): delegation, placement, shifts, restart, fail-open"
		"$top/tests/select/run.sh" "$plugins"
		record "select plugin ($sv)" $?
		step "placement fidelity ($sv): 56 jobs under cons_tres and select/orrery vs orrery-sim's default and orrery"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/fidelity/run.sh" --build-dir "$build/obj"
		record "placement fidelity ($sv)" $?
		step "Slurm options under a profile ($sv): the option table, cons_tres and select/orrery"
		"$top/tests/options/run.sh" "$plugins"
		record "options (select/orrery vs cons_tres, $sv)" $?
		# What follows times the scheduler (stress's burst, side by side
		# with cons_tres), real traffic and live gates: nothing beside it.
		bg_join
		step "stress ($sv): select plugin under faults, kill -9 restarts, bad state files and a 1000-job burst"
		"$top/tests/stress/run.sh" --jobs 1000 "$plugins"
		record "stress ($sv)" $?
		step "live channel ($sv): gates re-aligned in running jobs when a neighbour leaves, fails or is requeued, user tampering, kill -9 of slurmctld inside the saver gap"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/channel/cluster.sh" --build-dir "$build/obj"
		record "channel (live re-alignment, $sv)" $?
		step "learning the period ($sv): a job's measured iteration from its batch host to slurmctld, its group re-solved, the new gate on its ranks, sacct"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/learn/cluster.sh" --build-dir "$build/obj"
		record "learn (measured periods, $sv)" $?
		step "netbed ($sv): two TCP ring jobs through Slurm in a namespace fabric, cons_tres vs orrery's gate, drop-tail and fair-arbitrated uplinks (real packets)"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/netbed/run.sh" --build-dir "$build/obj"
		record "netbed (real packets, $sv)" $?
		step "netbed 3-tier ($sv): leaf, aggregation and spine namespaces with ECMP at each tier, traffic across the spines, nothing left behind"
		"$top/tests/netbed/clos3.sh" --build-dir "$build/obj"
		record "netbed 3-tier Clos ($sv)" $?
	else
		echo "select plugin not built: its cluster suites did not run"
		record "select plugin (not built, $sv)" 1
	fi
	bg_join
	step "discover ($sv): per-job congestion counters in sacct, NIC affinity, capacity check"
	ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/discover/cluster.sh" --build-dir "$build/obj"
	record "discover (cluster, $sv)" $?
fi

fi  # only_2411

# ---------------------------------------------------------------- Slurm 24.11
# The same suites against Debian 13's Slurm 24.11, in a chroot (its
# binaries need Debian 13's C library).  Reduced to fit CI's hour: no unit
# tests (they do not depend on Slurm; the build proves the SPANK plugin and
# the tools compile against 24.11), no options, fidelity or netbed suites
# (Slurm's option table, the simulator's agreement and real packets, which
# 22.05 covers), and the stress burst at 200 jobs instead of 1000.  The
# runtime, channel, learn and discover suites run: the gate, its statistics and
# counters in sacct, and the live channel go through the SPANK plugin,
# slurmd's prolog and epilog and AdminComment updates, which differ by
# release.
if [ $skip_cluster -eq 0 ] && [ $skip_2411 -eq 0 ]; then
	R() { "$top/contrib/slurm-root/run" "$root" "$@"; }
	p24=${ORRERY_2411_PORT_BASE:-21000}
	s24=${ORRERY_2411_STATE_PREFIX:-/var/tmp/orrery}
	[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null)
	step "Slurm 24.11: Debian 13 root (contrib/slurm-root/build; cached in _build/trixie-root)"
	if [ -n "$root_pid" ]; then
		wait "$root_pid"
		root_rc=$?
		root_pid=
		cat "$build/trixie-root.log"
		echo "(built in the background in $(( $(stat -c %Y "$build/trixie-root.log") - root_t0 )) s; waited for here $((SECONDS - step_t0)) s)"
	else
		"$top/contrib/slurm-root/build" "$root"
		root_rc=$?
	fi
	if [ $root_rc -eq 0 ]; then
		record "Debian 13 root" 0
		sv24="Slurm $(R slurmctld -V | awk '{print $2}')"
		step "build against $sv24 (source: contrib/slurm-source/fetch, in the root)"
		(
			set -e
			R "$top/contrib/slurm-source/fetch" "$build/slurm-src-24.11" \
				"${sv24#Slurm }" >"$build/slurm-src-24.11.log" 2>&1 ||
				{ tail -n 20 "$build/slurm-src-24.11.log"; exit 1; }
			opt=$(tail -n 1 "$build/slurm-src-24.11.log")
			mkdir -p "$build/obj-24.11"
			cd "$build/obj-24.11"
			R "$top/configure" --enable-werror --prefix="$build/install-24.11" \
				--with-slurm-plugindir="$build/install-24.11/lib/slurm" "$opt" \
				>"$build/obj-24.11/configure.out" 2>&1 ||
				{ tail -n 20 "$build/obj-24.11/configure.out"; exit 1; }
			sed -n '/^orrery .* configured/,/^$/p' "$build/obj-24.11/configure.out"
			R make -j2 >"$build/obj-24.11/make.out" 2>&1 ||
				{ grep -E 'error|warning:' "$build/obj-24.11/make.out" | head -n 20; exit 1; }
			R make install >/dev/null
			R make tests/runtime/nccl_train_loop >/dev/null	# the runtime suite's loop
		)
		rc=$?
		record "build ($sv24)" $rc
		plugins24=$build/install-24.11/lib/slurm
		if [ $rc -eq 0 ] && [ -f "$plugins24/select_orrery_cons_tres.so" ]; then
			cpu_steps_2411() {
				step "Debian packages ($sv24): dpkg-buildpackage in the root, contents, exact Slurm dependency"
				R "$top/tests/debian/build-debs.sh" "$(tail -n 1 "$build/slurm-src-24.11.log" | sed 's/^--with-slurm-source=//')"
				record "debian packages ($sv24)" $?
			}
			bg_start "$build/background-24.11.log" "Debian packages ($sv24)" cpu_steps_2411
			step "integration ($sv24): the integration suite under select/orrery_cons_tres, slurmdbd + MariaDB + sacct"
			R env ORRERY_SELECT_PLUGIN_DIR="$plugins24" \
				"$top/tests/integration/run.sh" --build-dir "$build/obj-24.11" \
				--state-dir "$s24-it-2411" --port-base "$p24" --select orrery
			record "integration (select/orrery, $sv24)" $?
			step "select plugin ($sv24): delegation, placement, shifts, restart, fail-open"
			R env ORRERY_SELECT_TEST_BASE="$s24-select-2411/cluster" \
				ORRERY_SELECT_TEST_PORT=$((p24 + 40)) "$top/tests/select/run.sh" "$plugins24"
			record "select plugin ($sv24)" $?
			step "runtime ($sv24): srun --comm-gate=auto, fake-NCCL loop on the job's slots, gate statistics in sacct"
			R "$top/tests/runtime/cluster.sh" --build-dir "$build/obj-24.11" \
				--state-dir "$s24-rt-2411" --port-base $((p24 + 100))
			record "runtime (NCCL gate on a cluster, $sv24)" $?
			step "discover ($sv24): per-job congestion counters in sacct, NIC affinity, capacity check"
			R env ORRERY_SELECT_PLUGIN_DIR="$plugins24" "$top/tests/discover/cluster.sh" \
				--build-dir "$build/obj-24.11" --state-dir "$s24-di-2411" --port-base $((p24 + 300))
			record "discover (cluster, $sv24)" $?
			bg_join
			step "stress ($sv24): faults, kill -9 restarts, bad state files and a 200-job burst"
			R env ORRERY_STRESS_BASE="$s24-st-2411" ORRERY_STRESS_PORT=$((p24 + 60)) \
				"$top/tests/stress/run.sh" --jobs 200 "$plugins24"
			record "stress ($sv24)" $?
			step "live channel ($sv24): gates re-aligned in running jobs, user tampering, kill -9 of slurmctld inside the saver gap"
			R env ORRERY_SELECT_PLUGIN_DIR="$plugins24" "$top/tests/channel/cluster.sh" \
				--build-dir "$build/obj-24.11" --state-dir "$s24-ch-2411" --port-base $((p24 + 200))
			record "channel (live re-alignment, $sv24)" $?
			step "learning the period ($sv24): a job's measured iteration from its batch host to slurmctld, its group re-solved, the new gate on its ranks"
			R env ORRERY_SELECT_PLUGIN_DIR="$plugins24" "$top/tests/learn/cluster.sh" \
				--build-dir "$build/obj-24.11" --state-dir "$s24-ln-2411" --port-base $((p24 + 400))
			record "learn (measured periods, $sv24)" $?
		else
			record "select plugin ($sv24, not built)" 1
		fi
	else
		record "Debian 13 root" 1
	fi
fi

finish
