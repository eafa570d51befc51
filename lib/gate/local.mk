lib_liborrery_la_SOURCES += lib/gate/gate.h lib/gate/gate.c
dist_man_MANS += doc/orrery-runtime.7
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_gate
TESTS += tests/unit/test_gate
tests_unit_test_gate_SOURCES = tests/unit/test_gate.c
tests_unit_test_gate_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_gate_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
endif
