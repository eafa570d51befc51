# orrery-sacct: orrery's per-job records (AdminComment ORR1:) as sacct columns.
# It decodes with the select plugin's own admin_record.c.
bin_PROGRAMS += contrib/sacct/orrery-sacct
contrib_sacct_orrery_sacct_SOURCES = contrib/sacct/orrery-sacct.c \
	plugins/select/orrery/admin_record.c plugins/select/orrery/admin_record.h \
	plugins/channel/channel_record.c plugins/channel/channel_record.h \
	plugins/channel/measure_record.c plugins/channel/measure_record.h \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	contrib/inventory/gate_stats.c contrib/inventory/gate_stats.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h \
	contrib/query/hostlist_slurm.c contrib/query/hostlist_slurm.h
# NodeList expands through libslurm's hostlist calls (hostlist_slurm.c).
contrib_sacct_orrery_sacct_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery -I$(top_srcdir)/plugins/channel \
	-I$(top_srcdir)/contrib/inventory \
	-I$(top_srcdir)/contrib/query $(GLIB_CFLAGS) $(SLURM_CPPFLAGS)
contrib_sacct_orrery_sacct_LDFLAGS = $(AM_LDFLAGS) $(SLURM_LDFLAGS)
# liborrery: the profile's period (ProfileOff).
contrib_sacct_orrery_sacct_LDADD = lib/liborrery.la $(GLIB_LIBS) $(SLURM_LIBS)
dist_man_MANS += doc/orrery-sacct.1

TESTS += tests/sacct/test_orrery_sacct.sh
EXTRA_DIST += tests/sacct/test_orrery_sacct.sh tests/sacct/fake-sacct
