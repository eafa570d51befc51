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
	lib/gate/gate.h lib/gate/gate.c
contrib_runtime_liborrery_runtime_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime
contrib_runtime_liborrery_runtime_la_CFLAGS = $(AM_CFLAGS) -pthread
contrib_runtime_liborrery_runtime_la_LIBADD = -lpthread
contrib_runtime_liborrery_runtime_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 \
	-Wl,--version-script=$(top_srcdir)/contrib/runtime/liborrery-runtime.map
EXTRA_contrib_runtime_liborrery_runtime_la_DEPENDENCIES = contrib/runtime/liborrery-runtime.map
EXTRA_DIST += contrib/runtime/liborrery-runtime.map

if HAVE_CMOCKA
check_PROGRAMS += tests/runtime/test_runtime
TESTS += tests/runtime/test_runtime
tests_runtime_test_runtime_SOURCES = tests/runtime/test_runtime.c
tests_runtime_test_runtime_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime
tests_runtime_test_runtime_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) -pthread
tests_runtime_test_runtime_LDADD = contrib/runtime/liborrery-runtime.la $(CMOCKA_LIBS) -lpthread
endif
