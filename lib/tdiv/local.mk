# tdiv: link groups, time division (common period, one slot per job) and
# the fluid model that predicts iteration times under each mode.
lib_liborrery_la_SOURCES += lib/tdiv/tdiv.hpp lib/tdiv/fluid.cpp \
	lib/tdiv/pack.cpp lib/tdiv/groups.cpp lib/api/division_api.cpp

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_tdiv
TESTS += tests/unit/test_tdiv
tests_unit_test_tdiv_SOURCES = tests/unit/test_tdiv.c tests/unit/unit_helpers.h
tests_unit_test_tdiv_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_tdiv_LDADD = lib/liborrery.la $(CMOCKA_LIBS) -lm
endif
