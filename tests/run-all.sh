#!/bin/bash
# README's test command: every orrery test, from a clean clone, on Debian 12.
#
#   tests/run-all.sh [--skip-cluster] [--keep-build]
#
# 1. installs missing Debian packages (contrib/install-deps; needs root),
# 2. fetches and configures the Slurm source of the installed version
#    (select plugin headers; cached in _build/slurm-src),
# 3. builds with warnings as errors, runs the unit suites (make check) and
#    make distcheck,
# 4. runs the integration suites against real Slurm daemons that they start
#    and stop themselves (munge, MariaDB, slurmdbd, slurmctld, slurmd).
# The last line is "N passed, M failed" over all suites.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/_build
skip_cluster=0
for a in "$@"; do
	case $a in
	--skip-cluster) skip_cluster=1 ;;
	*) echo "run-all: unknown argument '$a' (accepted: --skip-cluster)" >&2; exit 2 ;;
	esac
done

suites_passed=0
suites_failed=0
failed_names=()
step() { printf '\n==== %s (%s)\n' "$1" "$(date +%T)"; }
record() {  # record NAME RC
	if [ "$2" -eq 0 ]; then
		suites_passed=$((suites_passed + 1))
	else
		suites_failed=$((suites_failed + 1))
		failed_names+=("$1")
	fi
}
finish() {
	echo
	[ ${#failed_names[@]} -gt 0 ] && echo "failed suites: ${failed_names[*]}"
	echo "$suites_passed passed, $suites_failed failed"
	[ "$suites_failed" -eq 0 ]
	exit $?
}

step "dependencies"
"$top/contrib/install-deps" || { record install-deps 1; finish; }

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
record "make check" $rc

step "sanitizers: ASan + UBSan build of liborrery, plugins' testable parts, tools; make check"
"$top/tests/sanitize/run.sh" --build "$build/sanitize"
record "sanitizers (ASan+UBSan)" $?

step "fuzzers: libFuzzer + ASan/UBSan, 10^6 executions per target (at most ${ORRERY_FUZZ_SECONDS:-300} s)"
"$top/tests/fuzz/run.sh" --execs 1000000 --seconds "${ORRERY_FUZZ_SECONDS:-300}" --build "$build/fuzz"
record "fuzzers" $?

step "make distcheck"
(cd "$build/obj" && make -j2 distcheck DISTCHECK_CONFIGURE_FLAGS="--enable-werror ${slurm_src_opt[*]}" >"$build/distcheck.log" 2>&1)
rc=$?
tail -n 4 "$build/distcheck.log"
record distcheck $rc

step "Debian packages (dpkg-buildpackage, contents, exact Slurm dependency)"
if [ ${#slurm_src_opt[@]} -gt 0 ]; then
	"$top/tests/debian/build-debs.sh" "${slurm_src_opt[0]#--with-slurm-source=}"
	record "debian packages" $?
else
	echo "no Slurm source tree: the packages cannot be built"
	record "debian packages" 1
fi

if [ $skip_cluster -eq 0 ]; then
	plugins=$build/install/lib/slurm
	step "integration: SPANK plugin, relay, srun/salloc, sacct (stand-in controller)"
	"$top/tests/integration/run.sh" --build-dir "$build/obj"
	record "integration (cons_tres)" $?
	step "runtime: srun --comm-gate=auto, fake-NCCL loop released on the job's slots"
	"$top/tests/runtime/cluster.sh" --build-dir "$build/obj"
	record "runtime (NCCL gate on a cluster)" $?
	if [ -f "$plugins/select_orrery_cons_tres.so" ]; then
		step "integration: the same suite under select/orrery_cons_tres"
		ORRERY_SELECT_PLUGIN_DIR=$plugins \
			"$top/tests/integration/run.sh" --build-dir "$build/obj" --select orrery
		record "integration (select/orrery)" $?
		step "select plugin: delegation, placement, shifts, restart, fail-open"
		"$top/tests/select/run.sh" "$plugins"
		record "select plugin" $?
		step "placement fidelity: 56 jobs under cons_tres and select/orrery vs orrery-sim's default and orrery"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/fidelity/run.sh" --build-dir "$build/obj"
		record "placement fidelity" $?
		step "Slurm options under a profile: the option table, cons_tres and select/orrery"
		"$top/tests/options/run.sh" "$plugins"
		record "options (select/orrery vs cons_tres)" $?
		step "select plugin under faults, kill -9 restarts, bad state files and a job burst"
		"$top/tests/stress/run.sh" --jobs 1000 "$plugins"
		record "stress" $?
		step "live channel: gates re-aligned in running jobs when a neighbour leaves, user tampering, kill -9 of slurmctld"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/channel/cluster.sh" --build-dir "$build/obj"
		record "channel (live re-alignment)" $?
		step "netbed: two TCP ring jobs through Slurm in a namespace fabric, cons_tres vs orrery's gate (real packets)"
		ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/netbed/run.sh" --build-dir "$build/obj"
		record "netbed (real packets)" $?
	else
		echo "select plugin not built: its cluster suites did not run"
		record "select plugin (not built)" 1
	fi
	step "discover: per-job congestion counters in sacct, NIC affinity, capacity check"
	ORRERY_SELECT_PLUGIN_DIR=$plugins "$top/tests/discover/cluster.sh" --build-dir "$build/obj"
	record "discover (cluster)" $?
fi

finish
