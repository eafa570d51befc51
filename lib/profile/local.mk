# profile: the --comm-profile grammar, profile files, model catalogue.
lib_liborrery_la_SOURCES += lib/profile/profile.hpp \
	lib/profile/internal.hpp \
	lib/profile/units.hpp lib/profile/units.cpp \
	lib/profile/pattern.cpp lib/profile/spec.cpp \
	lib/profile/catalogue.cpp lib/profile/file.cpp \
	lib/api/profile_api.cpp

dist_man_MANS += doc/orrery-profile.7

EXTRA_DIST += tests/data/profiles

if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_profile
TESTS += tests/unit/test_profile
tests_unit_test_profile_SOURCES = tests/unit/test_profile.c
tests_unit_test_profile_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
tests_unit_test_profile_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif
