lib_LTLIBRARIES += lib/liborrery.la
include_HEADERS += lib/orrery.h
pkgconfig_DATA += lib/orrery.pc
lib_liborrery_la_SOURCES = lib/api/handles.hpp lib/api/guard.hpp
lib_liborrery_la_CPPFLAGS = $(AM_CPPFLAGS) $(GLIB_CFLAGS)
lib_liborrery_la_LIBADD = $(GLIB_LIBS)
# Export only the C API (libtool's -export-symbols-regex does not hide C++
# symbols on GNU ld; a version script does).
lib_liborrery_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(ORRERY_LT_VERSION) \
	-Wl,--version-script=$(top_srcdir)/lib/liborrery.map
EXTRA_DIST += lib/liborrery.map
lib_liborrery_la_DEPENDENCIES = $(top_srcdir)/lib/liborrery.map
