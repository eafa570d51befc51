# tests/bad-input: one directory per bad input at each edge (sbatch option,
# environment, profile file, plugstack.conf, relay file, orrery.conf, state
# file, topology.conf), fed through the real parsing code; doc/bad-input.md.
if HAVE_SLURM
check_PROGRAMS += tests/bad-input/osp_harness tests/bad-input/conf_check
TESTS += tests/bad-input/run.sh
tests_bad_input_osp_harness_SOURCES = tests/bad-input/osp_harness.c \
	plugins/spank/args.c plugins/spank/option.c plugins/spank/job_env.c \
	plugins/spank/relay.c plugins/spank/gate.c plugins/spank/orrery_spank.h
tests_bad_input_osp_harness_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(SLURM_CPPFLAGS)
tests_bad_input_osp_harness_LDADD = lib/liborrery.la
tests_bad_input_conf_check_SOURCES = tests/bad-input/conf_check.c \
	plugins/select/orrery/orrery_conf.c plugins/select/orrery/orrery_conf.h
tests_bad_input_conf_check_CPPFLAGS = $(AM_CPPFLAGS) \
	-I$(top_srcdir)/plugins/select/orrery $(GLIB_CFLAGS)
tests_bad_input_conf_check_LDADD = lib/liborrery.la $(GLIB_LIBS)
endif
# The case directories by name, not tests/bad-input itself: that is also
# the harnesses' object directory in a VPATH build, and `make dist' would
# copy the build tree's objects into the tarball.
EXTRA_DIST += tests/bad-input/run.sh tests/bad-input/table.sh tests/bad-input/expected.sh \
	tests/bad-input/osp_harness.c tests/bad-input/conf_check.c \
	tests/bad-input/comm-profile-env tests/bad-input/comm-profile-option \
	tests/bad-input/orrery.conf tests/bad-input/plugstack \
	tests/bad-input/profile-file tests/bad-input/relay \
	tests/bad-input/state-file tests/bad-input/topology \
	doc/bad-input.md doc/security-review.md
