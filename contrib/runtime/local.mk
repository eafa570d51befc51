# contrib/runtime: liborrery-runtime, the job-side gate (plain C: the gate
# policy lib/gate/gate.c is compiled in; no liborrery, no libstdc++ in a
# training process).  See orrery-runtime(7), orrery-env(7).
lib_LTLIBRARIES += contrib/runtime/liborrery-runtime.la
include_HEADERS += contrib/runtime/orrery_runtime.h
contrib_runtime_liborrery_runtime_la_SOURCES = \
	contrib/runtime/orrery_runtime.h \
	contrib/runtime/runtime_internal.h \
	contrib/runtime/runtime.c \
	contrib/runtime/record.c \
	contrib/runtime/writer.c \
	contrib/runtime/channel.c \
	plugins/channel/channel_record.c plugins/channel/channel_record.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h \
	lib/gate/gate.h lib/gate/gate.c
contrib_runtime_liborrery_runtime_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime \
	-I$(top_srcdir)/plugins/channel
contrib_runtime_liborrery_runtime_la_CFLAGS = $(AM_CFLAGS) -pthread
contrib_runtime_liborrery_runtime_la_LIBADD = -lpthread
contrib_runtime_liborrery_runtime_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,--version-script=$(top_srcdir)/contrib/runtime/liborrery-runtime.map
EXTRA_contrib_runtime_liborrery_runtime_la_DEPENDENCIES = contrib/runtime/liborrery-runtime.map
EXTRA_DIST += contrib/runtime/liborrery-runtime.map

if HAVE_CMOCKA
check_PROGRAMS += tests/runtime/test_runtime
TESTS += tests/runtime/test_runtime
# gate_stats.c: the job's copy of the statistics is read as the SPANK
# plugin's epilog reads it.
tests_runtime_test_runtime_SOURCES = tests/runtime/test_runtime.c \
	contrib/inventory/gate_stats.c contrib/inventory/gate_stats.h \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
tests_runtime_test_runtime_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime \
	-I$(top_srcdir)/plugins/channel -I$(top_srcdir)/contrib/inventory
tests_runtime_test_runtime_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_runtime_test_runtime_LDADD = contrib/runtime/liborrery-runtime.la $(CMOCKA_LIBS) -lpthread

# The interposer's phase rule on made-up times.
check_PROGRAMS += tests/runtime/test_phase_rule
TESTS += tests/runtime/test_phase_rule
tests_runtime_test_phase_rule_SOURCES = tests/runtime/test_phase_rule.c \
	contrib/runtime/nccl/phase_rule.c contrib/runtime/nccl/phase_rule.h
tests_runtime_test_phase_rule_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime/nccl
tests_runtime_test_phase_rule_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_runtime_test_phase_rule_LDADD = $(CMOCKA_LIBS)
endif

# The NCCL interposer (LD_PRELOAD; the SPANK plugin's gate_library).  Built
# against the CUDA toolkit's nccl.h with --with-cuda, else against the
# declarations of contrib/runtime/nccl/nccl_abi.h.  Installed beside the
# package's other private files, not on the linker's path.
orrerylibdir = $(pkglibdir)
orrerylib_LTLIBRARIES = contrib/runtime/nccl/liborrery-nccl.la
contrib_runtime_nccl_liborrery_nccl_la_SOURCES = \
	contrib/runtime/nccl/interposer.c contrib/runtime/nccl/nccl_abi.h \
	contrib/runtime/nccl/phase_rule.c contrib/runtime/nccl/phase_rule.h
contrib_runtime_nccl_liborrery_nccl_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/contrib/runtime -I$(top_srcdir)/contrib/runtime/nccl \
	-I$(top_srcdir)/plugins/channel $(CUDA_CPPFLAGS)
contrib_runtime_nccl_liborrery_nccl_la_CFLAGS = $(AM_CFLAGS) -pthread
contrib_runtime_nccl_liborrery_nccl_la_LIBADD = contrib/runtime/liborrery-runtime.la -ldl -lpthread
contrib_runtime_nccl_liborrery_nccl_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/contrib/runtime/nccl/liborrery-nccl.map
EXTRA_contrib_runtime_nccl_liborrery_nccl_la_DEPENDENCIES = contrib/runtime/nccl/liborrery-nccl.map
EXTRA_DIST += contrib/runtime/nccl/liborrery-nccl.map

# Tests without GPUs: a stand-in libnccl.so.2 and a training-like loop.
check_LTLIBRARIES += tests/runtime/fake-nccl/libnccl.la
tests_runtime_fake_nccl_libnccl_la_SOURCES = tests/runtime/fake-nccl/fake_nccl.c
tests_runtime_fake_nccl_libnccl_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
# -rpath makes libtool build a shared library (soname libnccl.so.2).
tests_runtime_fake_nccl_libnccl_la_LDFLAGS = $(AM_LDFLAGS) -version-info 2:0:0 \
	-rpath $(abs_builddir)/tests/runtime/fake-nccl
check_PROGRAMS += tests/runtime/nccl_train_loop
tests_runtime_nccl_train_loop_SOURCES = tests/runtime/nccl_train_loop.c
tests_runtime_nccl_train_loop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
tests_runtime_nccl_train_loop_CFLAGS = $(AM_CFLAGS) -pthread
tests_runtime_nccl_train_loop_LDADD = tests/runtime/fake-nccl/libnccl.la -lpthread
# A real binary with the build tree's rpath (no libtool wrapper script):
# the tests run it under LD_PRELOAD.
tests_runtime_nccl_train_loop_LDFLAGS = $(AM_LDFLAGS) -no-install
TESTS += tests/runtime/nccl.sh
EXTRA_DIST += tests/runtime/nccl.sh tests/runtime/releases.awk tests/runtime/cluster.sh \
	tests/channel/cluster.sh tests/learn/cluster.sh

# The GPU machine check (a real NCCL program under the interposer; plain
# gcc, run by hand where a GPU is lent) and the man pages.
EXTRA_DIST += contrib/runtime/gpu-check contrib/runtime/gpu_allreduce_loop.c
dist_man_MANS += doc/orrery-env.7 doc/orrery-timeline.5
