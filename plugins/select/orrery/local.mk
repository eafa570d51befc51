# plugins/select/orrery: select/orrery_cons_tres (needs the configured Slurm
# source tree: ../configure --with-slurm-source=DIR, see
# contrib/slurm-source/fetch) and the orrery.conf parser with its tests.

# Slurm's internal headers include "config.h" meaning Slurm's own; -iquote
# puts the Slurm tree ahead of orrery's config.h for quoted includes.
ORRERY_SELECT_CPPFLAGS = -iquote $(SLURM_SOURCE_DIR) $(SLURM_SRC_CPPFLAGS) \
	-I$(top_srcdir)/lib -I$(top_srcdir)/plugins/select/orrery

if HAVE_SLURM_SOURCE
orreryselectdir = $(slurm_plugindir)
orreryselect_LTLIBRARIES = plugins/select/orrery/select_orrery_cons_tres.la
plugins_select_orrery_select_orrery_cons_tres_la_SOURCES = \
	plugins/select/orrery/compat.h \
	plugins/select/orrery/compat_forward.h \
	plugins/select/orrery/orrery_ctld.c \
	plugins/select/orrery/orrery_ctld.h \
	plugins/select/orrery/ctld_state.c \
	plugins/select/orrery/ctld_state.h \
	plugins/select/orrery/ctld_conf.c \
	plugins/select/orrery/ctld_cluster.c \
	plugins/select/orrery/ctld_profile.c \
	plugins/select/orrery/ctld_job_test.c \
	plugins/select/orrery/ctld_job_begin.c \
	plugins/select/orrery/place_cache.c \
	plugins/select/orrery/place_cache.h \
	plugins/select/orrery/orrery_conf.c \
	plugins/select/orrery/orrery_conf.h \
	plugins/select/orrery/admin_record.c \
	plugins/select/orrery/admin_record.h \
	plugins/select/orrery/free_cpus.c \
	plugins/select/orrery/free_cpus.h \
	plugins/select/orrery/lib_syms.h \
	plugins/select/orrery/options.c \
	plugins/select/orrery/options.h \
	plugins/select/orrery/recover.c \
	plugins/select/orrery/recover_shift.c \
	plugins/select/orrery/recover.h \
	plugins/select/orrery/state_saver.c \
	plugins/select/orrery/state_saver.h \
	plugins/select/orrery/channel.c \
	plugins/select/orrery/channel.h \
	plugins/channel/channel_record.c \
	plugins/channel/channel_record.h \
	plugins/channel/measure_record.c \
	plugins/channel/measure_record.h \
	plugins/select/orrery/learn.c \
	plugins/select/orrery/learn.h \
	plugins/common/admin_comment.c \
	plugins/common/admin_comment.h
# The Slurm-facing side of the release configure found (compat.h).
if SLURM_2205
plugins_select_orrery_select_orrery_cons_tres_la_SOURCES += \
	plugins/select/orrery/compat_2205.c
endif
if SLURM_2411
plugins_select_orrery_select_orrery_cons_tres_la_SOURCES += \
	plugins/select/orrery/compat_2411.c
endif
plugins_select_orrery_select_orrery_cons_tres_la_CPPFLAGS = \
	$(ORRERY_SELECT_CPPFLAGS) -I$(top_srcdir)/plugins/channel $(GLIB_CFLAGS)
# Slurm's headers are not -Wextra clean.
plugins_select_orrery_select_orrery_cons_tres_la_CFLAGS = $(AM_CFLAGS) \
	-Wno-sign-compare -Wno-missing-field-initializers -fvisibility=default
plugins_select_orrery_select_orrery_cons_tres_la_LIBADD = lib/liborrery.la \
	$(GLIB_LIBS)
# -z now: a missing Slurm symbol fails the load, not a later call.
plugins_select_orrery_select_orrery_cons_tres_la_LDFLAGS = $(AM_LDFLAGS) \
	-module -avoid-version -shared -Wl,-z,now \
	-Wl,--version-script=$(top_srcdir)/plugins/select/orrery/select_orrery.map
EXTRA_plugins_select_orrery_select_orrery_cons_tres_la_DEPENDENCIES = \
	plugins/select/orrery/select_orrery.map
endif

# Every release's file ships in the tarball, whichever this build uses.
EXTRA_DIST += plugins/select/orrery/compat_2205.c \
	plugins/select/orrery/compat_2411.c

# orrery.conf parser: plain C + GLib, unit-tested without Slurm.
if HAVE_CMOCKA
check_PROGRAMS += tests/select/test_orrery_conf
TESTS += tests/select/test_orrery_conf
tests_select_test_orrery_conf_SOURCES = tests/select/test_orrery_conf.c \
	plugins/select/orrery/orrery_conf.c plugins/select/orrery/orrery_conf.h
tests_select_test_orrery_conf_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery $(GLIB_CFLAGS)
tests_select_test_orrery_conf_LDADD = $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_select_test_orrery_conf_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# AdminComment record: formatting and merging with other sites' records.
check_PROGRAMS += tests/select/test_admin_record
TESTS += tests/select/test_admin_record
tests_select_test_admin_record_SOURCES = tests/select/test_admin_record.c \
	plugins/select/orrery/admin_record.c plugins/select/orrery/admin_record.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
tests_select_test_admin_record_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery $(GLIB_CFLAGS)
tests_select_test_admin_record_LDADD = $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_select_test_admin_record_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# The live channel's record (ORRG1:, channel files): format, strict parse.
check_PROGRAMS += tests/select/test_channel_record
TESTS += tests/select/test_channel_record
tests_select_test_channel_record_SOURCES = tests/select/test_channel_record.c \
	plugins/channel/channel_record.c plugins/channel/channel_record.h \
	plugins/channel/measure_record.c plugins/channel/measure_record.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
tests_select_test_channel_record_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/channel
tests_select_test_channel_record_LDADD = $(CMOCKA_LIBS)
tests_select_test_channel_record_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# State rebuilt from ORR1: records: a shift moved onto another epoch.
check_PROGRAMS += tests/select/test_recover_shift
TESTS += tests/select/test_recover_shift
tests_select_test_recover_shift_SOURCES = tests/select/test_recover_shift.c \
	plugins/select/orrery/recover_shift.c plugins/select/orrery/recover.h
tests_select_test_recover_shift_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery -I$(top_srcdir)/lib
tests_select_test_recover_shift_LDADD = $(CMOCKA_LIBS)
tests_select_test_recover_shift_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

# Per-job cache of the plugin: reset on a new profile text, LRU bound,
# sweep of ended jobs, no leak (run under valgrind by hand).
check_PROGRAMS += tests/select/test_place_cache
TESTS += tests/select/test_place_cache
tests_select_test_place_cache_SOURCES = tests/select/test_place_cache.c \
	plugins/select/orrery/place_cache.c plugins/select/orrery/place_cache.h
tests_select_test_place_cache_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery $(GLIB_CFLAGS)
tests_select_test_place_cache_LDADD = $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_select_test_place_cache_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif

EXTRA_DIST += plugins/select/orrery/select_orrery.map tests/select/run.sh tests/options/run.sh tests/stress/run.sh tests/stress/leakcheck.sh \
	tests/stress/leak_report.py

# libtool relinks the module against the installed liborrery, so that must
# be installed first.  (Named through a variable so that automake adds a
# prerequisite instead of replacing its own install rule.)
orrery_select_install = install-orreryselectLTLIBRARIES
$(orrery_select_install): install-libLTLIBRARIES

dist_man_MANS += doc/orrery.conf.5 doc/select-orrery.8

# Capacity check: orrery.conf against topology.conf LinkSpeed, logged at
# start and reconfigure (capacity_check.c is Slurm-free and unit-tested).
if HAVE_SLURM_SOURCE
plugins_select_orrery_select_orrery_cons_tres_la_SOURCES += \
	plugins/select/orrery/capacity_check.c \
	plugins/select/orrery/capacity_check.h \
	plugins/select/orrery/capacity_check_ctld.c
endif
if HAVE_CMOCKA
check_PROGRAMS += tests/select/test_capacity_check
TESTS += tests/select/test_capacity_check
tests_select_test_capacity_check_SOURCES = tests/select/test_capacity_check.c \
	plugins/select/orrery/capacity_check.c plugins/select/orrery/capacity_check.h \
	plugins/select/orrery/orrery_conf.c plugins/select/orrery/orrery_conf.h
tests_select_test_capacity_check_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery $(GLIB_CFLAGS)
tests_select_test_capacity_check_LDADD = $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_select_test_capacity_check_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
endif
