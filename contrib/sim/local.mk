# orrery-sim: trace-driven fluid simulator of a cluster's network, comparing
# placement policies.  The engine (no liborrery dependency) is a
# convenience library so the validation tests can link it alone.
noinst_LTLIBRARIES += contrib/sim/libsimcore.la
contrib_sim_libsimcore_la_SOURCES = \
	contrib/sim/fabric.hpp contrib/sim/fabric.cpp \
	contrib/sim/network.hpp contrib/sim/network.cpp \
	contrib/sim/gate.hpp \
	contrib/sim/job.hpp \
	contrib/sim/engine.hpp contrib/sim/engine.cpp \
	contrib/sim/policies.hpp contrib/sim/policies.cpp

if HAVE_CMOCKA
check_PROGRAMS += tests/sim/test_sim_engine
TESTS += tests/sim/test_sim_engine
tests_sim_test_sim_engine_SOURCES = tests/sim/test_sim_engine.cpp
tests_sim_test_sim_engine_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/sim $(CMOCKA_CFLAGS)
tests_sim_test_sim_engine_LDADD = contrib/sim/libsimcore.la $(CMOCKA_LIBS)
endif
