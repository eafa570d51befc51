# contrib/bench: filled in by its component

# bench_place: one placement decision at 1,024 and ~10,000 nodes.
noinst_PROGRAMS += contrib/bench/bench_place
contrib_bench_bench_place_SOURCES = contrib/bench/bench_place.c
contrib_bench_bench_place_LDADD = lib/liborrery.la
