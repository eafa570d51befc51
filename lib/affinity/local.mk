# affinity: consistent shifts across links (job-link affinity graph).
lib_liborrery_la_SOURCES += lib/affinity/affinity.hpp lib/affinity/affinity.cpp

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_affinity
TESTS += tests/unit/test_affinity
tests_unit_test_affinity_SOURCES = tests/unit/test_affinity.cpp \
	lib/affinity/affinity.cpp $(circle_internal_sources)
tests_unit_test_affinity_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_affinity_LDADD = $(CMOCKA_LIBS)
endif
