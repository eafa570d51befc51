# contrib/inventory: node discovery (orrery-inventory), the RDMA congestion
# counters the SPANK plugin records per job, and their publisher.
# counters.c and gate_stats.c are plain C: the SPANK plugin, the publisher
# and orrery-sacct compile them in.

ORRERY_INV_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/inventory

EXTRA_DIST += tests/data/sysfs

if HAVE_CMOCKA
check_PROGRAMS += tests/discover/test_counters
TESTS += tests/discover/test_counters
tests_discover_test_counters_SOURCES = tests/discover/test_counters.c \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
tests_discover_test_counters_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_discover_test_counters_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_discover_test_counters_LDADD = $(CMOCKA_LIBS)

check_PROGRAMS += tests/discover/test_gate_stats
TESTS += tests/discover/test_gate_stats
tests_discover_test_gate_stats_SOURCES = tests/discover/test_gate_stats.c \
	contrib/inventory/gate_stats.c contrib/inventory/gate_stats.h \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h
tests_discover_test_gate_stats_CPPFLAGS = $(ORRERY_INV_CPPFLAGS)
tests_discover_test_gate_stats_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_discover_test_gate_stats_LDADD = $(CMOCKA_LIBS)
endif

# The publisher the SPANK plugin's epilog starts (libslurmdb).
if HAVE_SLURM
pkglibexec_PROGRAMS = contrib/inventory/orrery-counters-publish
contrib_inventory_orrery_counters_publish_SOURCES = \
	contrib/inventory/orrery-counters-publish.c \
	contrib/inventory/counters.c contrib/inventory/counters.h \
	contrib/inventory/gate_stats.c contrib/inventory/gate_stats.h \
	plugins/common/admin_comment.c plugins/common/admin_comment.h \
	contrib/inventory/slurmdbd_compat.c
contrib_inventory_orrery_counters_publish_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) \
	$(SLURM_CPPFLAGS)
contrib_inventory_orrery_counters_publish_LDFLAGS = $(SLURM_LDFLAGS) \
	-Wl,--dynamic-list=$(top_srcdir)/contrib/inventory/slurmdbd_compat.dynlist
EXTRA_DIST += contrib/inventory/slurmdbd_compat.dynlist
contrib_inventory_orrery_counters_publish_LDADD = $(SLURM_LIBS)
endif

# orrery-inventory: needs hwloc for PCI locality.
if HAVE_HWLOC
bin_PROGRAMS += contrib/inventory/orrery-inventory
contrib_inventory_orrery_inventory_SOURCES = contrib/inventory/main.c \
	contrib/inventory/rdma.c contrib/inventory/rdma.h \
	contrib/inventory/rdma_verbs.c \
	contrib/inventory/locality.c contrib/inventory/locality.h
contrib_inventory_orrery_inventory_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) \
	$(GLIB_CFLAGS) $(HWLOC_CFLAGS) $(IBVERBS_CFLAGS) $(ORRERY_INV_VERBS)
contrib_inventory_orrery_inventory_LDADD = $(GLIB_LIBS) $(HWLOC_LIBS) $(IBVERBS_LIBS)

TESTS += tests/discover/test_inventory.sh
if HAVE_CMOCKA
check_PROGRAMS += tests/discover/test_locality
TESTS += tests/discover/test_locality
tests_discover_test_locality_SOURCES = tests/discover/test_locality.c \
	contrib/inventory/rdma.c contrib/inventory/rdma.h \
	contrib/inventory/locality.c contrib/inventory/locality.h
tests_discover_test_locality_CPPFLAGS = $(ORRERY_INV_CPPFLAGS) $(HWLOC_CFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_discover_test_locality_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS)
tests_discover_test_locality_LDADD = $(HWLOC_LIBS) $(CMOCKA_LIBS)
endif
endif
if HAVE_IBVERBS
ORRERY_INV_VERBS = -DHAVE_IBVERBS=1
endif
EXTRA_DIST += tests/discover/test_inventory.sh tests/discover/cluster.sh \
	tests/data/hwloc
dist_man_MANS += doc/orrery-counters.7 doc/orrery-inventory.8
