# placement: node-set evaluation, candidate enumeration, ranking, shift solve
lib_liborrery_la_SOURCES += lib/placement/placement.hpp \
	lib/placement/evaluate.cpp lib/placement/candidates.cpp \
	lib/placement/rank.cpp lib/placement/cost.cpp lib/placement/solve.cpp \
	lib/api/placement_api.cpp

if HAVE_CMOCKA
# The enumerator is tested on its own, built from its sources (internal
# symbols are not exported by liborrery).
check_PROGRAMS += tests/unit/test_place_candidates
TESTS += tests/unit/test_place_candidates
tests_unit_test_place_candidates_SOURCES = tests/unit/test_place_candidates.cpp \
	lib/placement/candidates.cpp lib/topology/topology.cpp \
	lib/topology/link_map.cpp lib/core/error.cpp lib/core/types.cpp
tests_unit_test_place_candidates_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_place_candidates_LDADD = $(CMOCKA_LIBS)
endif

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_place
TESTS += tests/unit/test_place
tests_unit_test_place_SOURCES = tests/unit/test_place.c tests/unit/unit_helpers.h
tests_unit_test_place_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_place_LDADD = lib/liborrery.la $(CMOCKA_LIBS) -lm
endif

# One decision shares work across candidates (pinned loads per uplink);
# each candidate must evaluate exactly as it does on its own.
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_place_shared_load
TESTS += tests/unit/test_place_shared_load
tests_unit_test_place_shared_load_SOURCES = tests/unit/test_place_shared_load.c
tests_unit_test_place_shared_load_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_place_shared_load_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
endif
