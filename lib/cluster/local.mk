# cluster: running jobs, their shifts, the state file (doc/orrery-state.5)
lib_liborrery_la_SOURCES += lib/cluster/cluster.hpp lib/cluster/cluster.cpp \
	lib/cluster/state_file.cpp lib/api/cluster_api.cpp
dist_man_MANS += doc/orrery-state.5

STATE_TEST_FILES = tests/data/state/good.state tests/data/state/empty.state \
	tests/data/state/garbage.state tests/data/state/truncated.state \
	tests/data/state/flipped-byte.state \
	tests/data/state/foreign-version.state \
	tests/data/state/bad-line.state tests/data/state/bad-profile.state \
	tests/data/state/count-mismatch.state \
	tests/data/state/renamed-node.state
EXTRA_DIST += $(STATE_TEST_FILES)

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_cluster
TESTS += tests/unit/test_cluster
tests_unit_test_cluster_SOURCES = tests/unit/test_cluster.c tests/unit/unit_helpers.h
tests_unit_test_cluster_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSTATE_DATA_DIR='"$(abs_top_srcdir)/tests/data/state"'
tests_unit_test_cluster_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_cluster_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
endif
