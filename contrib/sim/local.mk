# orrery-sim: trace-driven fluid simulator of a cluster's network, comparing
# placement policies on liborrery's own code.  The engine is a convenience
# library so the validation tests can link it without the CLI.
noinst_LTLIBRARIES += contrib/sim/libsimcore.la
contrib_sim_libsimcore_la_SOURCES = \
	contrib/sim/fabric.hpp contrib/sim/fabric.cpp \
	contrib/sim/network.hpp contrib/sim/network.cpp \
	contrib/sim/job.hpp \
	contrib/sim/engine.hpp contrib/sim/engine.cpp \
	contrib/sim/queue.hpp contrib/sim/queue.cpp \
	contrib/sim/cruise.hpp contrib/sim/cruise.cpp \
	contrib/sim/policies.hpp contrib/sim/policies.cpp \
	contrib/sim/bridge.hpp contrib/sim/bridge.cpp \
	contrib/sim/orrery_policy.cpp \
	contrib/sim/workload.hpp contrib/sim/workload.cpp \
	contrib/sim/metrics.hpp contrib/sim/metrics.cpp
contrib_sim_libsimcore_la_LIBADD = lib/liborrery.la

bin_PROGRAMS += contrib/sim/orrery-sim
# The what-if inputs are read with the select plugin's own orrery.conf and
# ORR1: record parsers and orrery-query's libslurm hostlist adapter.
contrib_sim_orrery_sim_SOURCES = contrib/sim/main.cpp \
	contrib/sim/whatif.hpp contrib/sim/whatif.cpp \
	plugins/select/orrery/orrery_conf.c plugins/select/orrery/admin_record.c \
	plugins/common/admin_comment.c plugins/common/admin_comment.h \
	contrib/query/hostlist_slurm.c
contrib_sim_orrery_sim_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery -I$(top_srcdir)/contrib/query \
	$(GLIB_CFLAGS) $(SLURM_CPPFLAGS)
contrib_sim_orrery_sim_CXXFLAGS = $(AM_CXXFLAGS) -pthread
contrib_sim_orrery_sim_LDFLAGS = $(AM_LDFLAGS) $(SLURM_LDFLAGS)
contrib_sim_orrery_sim_LDADD = contrib/sim/libsimcore.la $(GLIB_LIBS) \
	$(SLURM_LIBS) -lpthread
dist_man_MANS += doc/orrery-sim.1
dist_noinst_SCRIPTS += contrib/sim/run-report contrib/sim/gap-closed \
	contrib/sim/bench-whatif

if HAVE_CMOCKA
check_PROGRAMS += tests/sim/test_sim_engine
TESTS += tests/sim/test_sim_engine
tests_sim_test_sim_engine_SOURCES = tests/sim/test_sim_engine.cpp tests/sim/fixtures.hpp
tests_sim_test_sim_engine_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/sim $(CMOCKA_CFLAGS)
tests_sim_test_sim_engine_LDADD = contrib/sim/libsimcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/sim/test_sim_queue
TESTS += tests/sim/test_sim_queue
tests_sim_test_sim_queue_SOURCES = tests/sim/test_sim_queue.cpp tests/sim/fixtures.hpp
tests_sim_test_sim_queue_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/sim $(CMOCKA_CFLAGS)
tests_sim_test_sim_queue_LDADD = contrib/sim/libsimcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/sim/test_sim_trace
TESTS += tests/sim/test_sim_trace
tests_sim_test_sim_trace_SOURCES = tests/sim/test_sim_trace.cpp
tests_sim_test_sim_trace_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/sim $(CMOCKA_CFLAGS)
tests_sim_test_sim_trace_LDADD = contrib/sim/libsimcore.la $(CMOCKA_LIBS)
check_PROGRAMS += tests/sim/test_sim_orrery
TESTS += tests/sim/test_sim_orrery
tests_sim_test_sim_orrery_SOURCES = tests/sim/test_sim_orrery.cpp
tests_sim_test_sim_orrery_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/sim $(CMOCKA_CFLAGS)
tests_sim_test_sim_orrery_LDADD = contrib/sim/libsimcore.la $(CMOCKA_LIBS)
endif

TESTS += tests/sim/cli-trace.sh
EXTRA_DIST += tests/sim/cli-trace.sh
TESTS += tests/sim/cli-whatif.sh
# The placement fidelity replay needs a cluster: tests/run-all.sh runs it.
EXTRA_DIST += tests/fidelity/run.sh
EXTRA_DIST += tests/sim/cli-whatif.sh tests/data/whatif/topology.conf \
	tests/data/whatif/orrery.conf tests/data/whatif/sacct-good.txt \
	tests/data/whatif/sacct-bad-time.txt tests/data/whatif/sacct-bad-fields.txt \
	tests/data/whatif/sacct-bad-nnodes.txt tests/data/whatif/sacct-no-header.txt \
	tests/data/whatif/topology-unknown-switch.conf \
	tests/data/whatif/orrery-unknown-switch.conf \
	tests/data/whatif/sacct-queue.txt tests/data/whatif/sacct-bad-timelimit.txt \
	tests/data/whatif/sacct-bad-priority.txt tests/data/whatif/slurm.conf \
	tests/data/whatif/slurm-bad-bf.conf tests/data/whatif/sacct-slurm2205.txt \
	tests/data/whatif/topology-slurm2205.conf

# Cross-check against SimGrid (libsimgrid-dev, test time only; skipped
# when absent).  The script compiles the checker against libsimcore.
TESTS += tests/sim/simgrid-crosscheck.sh
EXTRA_DIST += tests/sim/simgrid-crosscheck.sh tests/sim/simgrid_crosscheck.cpp
CLEANFILES += tests/sim/simgrid_crosscheck

# The benchmark report and its plots (contrib/sim/run-report regenerates
# the numbers).
EXTRA_DIST += doc/benchmark-report.md doc/benchmark/testbed-jct-cdf.svg \
	doc/benchmark/testbed-slowdown-cdf.svg \
	doc/benchmark/testbed-batch4-jct-cdf.svg \
	doc/benchmark/large-jct-cdf.svg doc/benchmark/large-slowdown-cdf.svg \
	doc/benchmark/large-oversub-jct-cdf.svg
