# plugins/spank: the orrery SPANK plugin (--comm-profile).
if HAVE_SLURM
slurmplugindir = $(slurm_plugindir)
slurmplugin_LTLIBRARIES = plugins/spank/spank_orrery.la
plugins_spank_spank_orrery_la_SOURCES = \
	plugins/spank/orrery_spank.h \
	plugins/spank/spank_orrery.c \
	plugins/spank/args.c \
	plugins/spank/option.c \
	plugins/spank/job_env.c \
	plugins/spank/relay.c \
	plugins/spank/task.c \
	plugins/spank/gate.c \
	plugins/spank/counters_job.c \
	plugins/spank/gate_stats_job.c \
	plugins/spank/publish.c \
	plugins/spank/nic_affinity.c \
	plugins/spank/channel.c \
	plugins/spank/learn.c \
	plugins/channel/channel_record.c plugins/channel/channel_record.h \
	plugins/channel/measure_record.c plugins/channel/measure_record.h \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	contrib/inventory/gate_stats.c contrib/inventory/gate_stats.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
if HAVE_HWLOC
plugins_spank_spank_orrery_la_SOURCES += \
	contrib/inventory/locality.c contrib/inventory/locality.h
ORRERY_SPANK_HWLOC = -DORRERY_HAVE_HWLOC=1 $(HWLOC_CFLAGS)
endif
# The default gate_library: where contrib/runtime installs the interposer;
# the default counters_publisher: where contrib/inventory installs it.
plugins_spank_spank_orrery_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS) \
	-I$(top_srcdir)/contrib/inventory -I$(top_srcdir)/plugins/channel $(ORRERY_SPANK_HWLOC) \
	-DOSP_GATE_LIBRARY_DEFAULT='"$(pkglibdir)/liborrery-nccl.so"' \
	-DOSP_DEFAULT_PUBLISHER='"$(pkglibexecdir)/orrery-counters-publish"'
# Slurm defines slurm_error() etc. in the process that loads us.
plugins_spank_spank_orrery_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/plugins/spank/spank_orrery.map
plugins_spank_spank_orrery_la_LIBADD = lib/liborrery.la $(HWLOC_LIBS)
EXTRA_plugins_spank_spank_orrery_la_DEPENDENCIES = plugins/spank/spank_orrery.map

plugstackdir = $(sysconfdir)/slurm/plugstack.conf.d
dist_plugstack_DATA = plugins/spank/orrery.conf
endif
EXTRA_DIST += plugins/spank/spank_orrery.map plugins/spank/orrery.conf
dist_man_MANS += doc/spank-orrery.8

# The plugin's Slurm-free parts (arguments, validation, relay file), with
# Slurm's logging and option calls stubbed in the test.
if HAVE_SLURM
if HAVE_CMOCKA
check_PROGRAMS += tests/unit/test_spank
TESTS += tests/unit/test_spank
tests_unit_test_spank_SOURCES = tests/unit/test_spank.c \
	plugins/spank/args.c plugins/spank/option.c plugins/spank/relay.c \
	plugins/spank/gate.c
tests_unit_test_spank_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(SLURM_CPPFLAGS) \
	-DOSP_GATE_LIBRARY_DEFAULT='"/usr/lib/orrery/liborrery-nccl.so"'
tests_unit_test_spank_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_unit_test_spank_LDADD = lib/liborrery.la $(CMOCKA_LIBS)
endif
endif
