# circle: unified circle, compatibility score, rotation search, and the
# C API wrappers for them (orrery.h "Unified circle ..." section).
lib_liborrery_la_SOURCES += lib/circle/circle.hpp lib/circle/circle.cpp \
	lib/circle/score.hpp lib/circle/score.cpp \
	lib/circle/pinned_load.hpp lib/circle/pinned_load.cpp \
	lib/circle/ecmp.hpp lib/circle/ecmp.cpp \
	lib/api/link_api.cpp

# Tests of the internals compile the sources they exercise (liborrery
# exports only the C API).
circle_internal_sources = lib/circle/circle.cpp lib/circle/score.cpp \
	lib/circle/pinned_load.cpp \
	lib/circle/ecmp.cpp \
	lib/core/error.cpp lib/core/types.cpp lib/api/link_api.cpp \
	lib/writers/svg.cpp

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_circle
TESTS += tests/unit/test_circle
tests_unit_test_circle_SOURCES = tests/unit/test_circle.cpp \
	$(circle_internal_sources)
tests_unit_test_circle_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_circle_LDADD = $(CMOCKA_LIBS)
endif

# The newcomer's shift search against itself with shared or cut-short work.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_newcomer_search
TESTS += tests/unit/test_newcomer_search
tests_unit_test_newcomer_search_SOURCES = tests/unit/test_newcomer_search.cpp \
	$(circle_internal_sources)
tests_unit_test_newcomer_search_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_newcomer_search_LDADD = $(CMOCKA_LIBS)
endif

# Through the C API, the way the tools call it.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_score
TESTS += tests/unit/test_score
tests_unit_test_score_SOURCES = tests/unit/test_score.c
tests_unit_test_score_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
tests_unit_test_score_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif

dist_man_MANS += doc/orrery-score.7
