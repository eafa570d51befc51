# contrib/netbed: a real-packet Clos fabric on one machine (network
# namespaces, htb-shaped veth links, ECMP) and a synthetic TCP ring
# all-reduce trainer gated by liborrery-runtime.  Test-only; see
# orrery-netbed(8).
dist_bin_SCRIPTS += contrib/netbed/orrery-netbed
bin_PROGRAMS += contrib/netbed/orrery-netbed-trainer
contrib_netbed_orrery_netbed_trainer_SOURCES = contrib/netbed/trainer.c
contrib_netbed_orrery_netbed_trainer_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/contrib/runtime
contrib_netbed_orrery_netbed_trainer_LDADD = contrib/runtime/liborrery-runtime.la
dist_man_MANS += doc/orrery-netbed.8
EXTRA_DIST += tests/netbed/run.sh
