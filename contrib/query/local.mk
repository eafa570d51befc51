# orrery-query: offline queries (profile, score, topology, place, solve).
# Reads hostlists through libslurm when available (hostlist_slurm.c).
bin_PROGRAMS += contrib/query/orrery-query
contrib_query_orrery_query_SOURCES = contrib/query/main.c contrib/query/options.c \
	contrib/query/query.h contrib/query/units.c contrib/query/topo_load.c \
	contrib/query/cmd_topology.c contrib/query/cmd_profile.c \
	contrib/query/cmd_score.c contrib/query/cmd_place.c \
	contrib/query/cmd_solve.c contrib/query/division.c contrib/query/cluster_load.c \
	contrib/query/jobs_file.c contrib/query/links.c \
	contrib/query/hostlist_slurm.c contrib/query/hostlist_slurm.h
contrib_query_orrery_query_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
contrib_query_orrery_query_LDFLAGS = $(AM_LDFLAGS) $(SLURM_LDFLAGS)
contrib_query_orrery_query_LDADD = lib/liborrery.la $(SLURM_LIBS) -lm

EXTRA_DIST += examples/two-tier-32.conf examples/running-jobs.txt
dist_man_MANS += doc/orrery-query.1
TESTS += tests/query/test_orrery_query.sh
EXTRA_DIST += tests/query/test_orrery_query.sh
