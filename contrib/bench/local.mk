# contrib/bench: benchmark programs (not installed).  `make bench` runs
# them; each prints a table with a baseline measured in the same run.

# bench_link: orrery_link_score for 2..8 jobs on one link (C API).
noinst_PROGRAMS += contrib/bench/bench_link
contrib_bench_bench_link_SOURCES = contrib/bench/bench_link.c
contrib_bench_bench_link_LDADD = lib/liborrery.la

# bench_newcomer: best_newcomer_shift across 4 links (internals, so the
# sources are compiled in; liborrery exports only the C API).
noinst_PROGRAMS += contrib/bench/bench_newcomer
contrib_bench_bench_newcomer_SOURCES = contrib/bench/bench_newcomer.cpp \
	lib/circle/circle.cpp lib/circle/score.cpp lib/circle/ecmp.cpp \
	lib/circle/pinned_load.cpp \
	lib/core/error.cpp lib/core/types.cpp
contrib_bench_bench_newcomer_CPPFLAGS = $(AM_CPPFLAGS)

bench: bench-link
bench-link: contrib/bench/bench_link$(EXEEXT) contrib/bench/bench_newcomer$(EXEEXT)
	contrib/bench/bench_link
	contrib/bench/bench_newcomer
.PHONY: bench bench-link

# bench_place: one placement decision at 1,024 and ~10,000 nodes.
noinst_PROGRAMS += contrib/bench/bench_place
contrib_bench_bench_place_SOURCES = contrib/bench/bench_place.c
contrib_bench_bench_place_LDADD = lib/liborrery.la

bench: bench-place
bench-place: contrib/bench/bench_place$(EXEEXT)
	contrib/bench/bench_place
.PHONY: bench-place

# bench_runtime_write: what the runtime's periodic statistics write costs
# the phase that comes due (the writer thread, orrery-runtime(7)).
noinst_PROGRAMS += contrib/bench/bench_runtime_write
contrib_bench_bench_runtime_write_SOURCES = contrib/bench/bench_runtime_write.c
contrib_bench_bench_runtime_write_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime
contrib_bench_bench_runtime_write_LDADD = contrib/runtime/liborrery-runtime.la

bench: bench-runtime-write
bench-runtime-write: contrib/bench/bench_runtime_write$(EXEEXT)
	contrib/bench/bench_runtime_write
.PHONY: bench-runtime-write

# select-job-test: job_test of select/orrery_cons_tres vs cons_tres in a
# real slurmctld with 16/64/256 emulated nodes (root; not run by `make bench`).
EXTRA_DIST += contrib/bench/select-job-test

# channel_poll_load + channel-load: the live channel's poll load on a real
# slurmctld with 1,000 running jobs (root; not run by `make bench`).
if HAVE_SLURM
noinst_PROGRAMS += contrib/bench/channel_poll_load
contrib_bench_channel_poll_load_SOURCES = contrib/bench/channel_poll_load.c
contrib_bench_channel_poll_load_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)
contrib_bench_channel_poll_load_CFLAGS = $(AM_CFLAGS) -pthread
contrib_bench_channel_poll_load_LDFLAGS = $(AM_LDFLAGS) $(SLURM_LDFLAGS)
contrib_bench_channel_poll_load_LDADD = $(SLURM_LIBS) -lpthread
endif
EXTRA_DIST += contrib/bench/channel-load
