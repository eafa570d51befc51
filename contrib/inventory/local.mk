# contrib/inventory: node discovery (orrery-inventory), the RDMA congestion
# counters the SPANK plugin records per job, and their publisher.
# counters.c is plain C: the SPANK plugin, the publisher and orrery-sacct
# compile it in.

ORRERY_INV_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/inventory

EXTRA_DIST += tests/data/sysfs

if HAVE_CMOCKA
check_PROGRAMS += tests/discover/test_counters
TESTS += tests/discover/test_counters
tests_discover_test_counters_SOURCES = tests/discover/test_counters.c \
	contrib/inventory/counters.c contrib/inventory/counters.h
tests_discover_test_counters_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_discover_test_counters_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_discover_test_counters_LDADD = $(CMOCKA_LIBS)
endif

# The publisher the SPANK plugin's epilog starts (libslurmdb).
if HAVE_SLURM
pkglibexec_PROGRAMS = contrib/inventory/orrery-counters-publish
contrib_inventory_orrery_counters_publish_SOURCES = \
	contrib/inventory/orrery-counters-publish.c \
	contrib/inventory/counters.c contrib/inventory/counters.h
contrib_inventory_orrery_counters_publish_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) \
	$(SLURM_CPPFLAGS)
contrib_inventory_orrery_counters_publish_LDFLAGS = $(SLURM_LDFLAGS)
contrib_inventory_orrery_counters_publish_LDADD = $(SLURM_LIBS)
endif
