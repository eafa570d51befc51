lib_liborrery_la_SOURCES += lib/topology/topology.hpp \
	lib/topology/topology.cpp lib/topology/link_map.cpp \
	lib/topology/slurm_conf.hpp lib/topology/slurm_reader.cpp \
	lib/topology/slurm_writer.cpp lib/topology/generator.cpp \
	lib/api/topology_api.cpp

# Tests: reader/writer need libslurm's hostlist expansion (the adapter the
# tools use); the generator and the crossing rule do not.
EXTRA_DIST += tests/data/topology
if HAVE_CMOCKA
TOPO_TEST_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) \
	-DTOPO_DATA_DIR='"$(abs_top_srcdir)/tests/data/topology"'
check_PROGRAMS += tests/unit/test_topology_generate \
	tests/unit/test_topology_crossing
TESTS += tests/unit/test_topology_generate tests/unit/test_topology_crossing
tests_unit_test_topology_generate_SOURCES = tests/unit/test_topology_generate.c
tests_unit_test_topology_generate_CPPFLAGS = $(TOPO_TEST_CPPFLAGS)
tests_unit_test_topology_generate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_topology_generate_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
tests_unit_test_topology_crossing_SOURCES = tests/unit/test_topology_crossing.cpp
tests_unit_test_topology_crossing_CPPFLAGS = $(TOPO_TEST_CPPFLAGS) $(GLIB_CFLAGS)
tests_unit_test_topology_crossing_CXXFLAGS = $(AM_CXXFLAGS) $(CMOCKA_CFLAGS)
# Internals (crossings, pattern_on_link) are not exported: compile them in.
tests_unit_test_topology_crossing_SOURCES += lib/topology/link_map.cpp \
	lib/topology/topology.cpp lib/core/error.cpp lib/core/types.cpp
tests_unit_test_topology_crossing_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
if HAVE_SLURM
check_PROGRAMS += tests/unit/test_topology_read
TESTS += tests/unit/test_topology_read
tests_unit_test_topology_read_SOURCES = tests/unit/test_topology_read.c \
	contrib/query/hostlist_slurm.c contrib/query/hostlist_slurm.h
tests_unit_test_topology_read_CPPFLAGS = $(TOPO_TEST_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_unit_test_topology_read_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_topology_read_LDFLAGS = $(AM_LDFLAGS) $(SLURM_LDFLAGS)
tests_unit_test_topology_read_LDADD = lib/liborrery.la $(CMOCKA_LIBS) $(SLURM_LIBS)
endif
endif
