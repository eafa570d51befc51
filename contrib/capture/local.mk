# orrery-capture: recorded collective timelines -> comm profile
# (doc/orrery-capture.1).  Uses liborrery's own profile constructor,
# formatter and file writer, so what it prints is what sbatch accepts.
bin_PROGRAMS += contrib/capture/orrery-capture
contrib_capture_orrery_capture_SOURCES = contrib/capture/main.c \
	contrib/capture/timeline.c contrib/capture/timeline.h \
	contrib/capture/analyse.c contrib/capture/analyse.h
contrib_capture_orrery_capture_LDADD = lib/liborrery.la -lm

dist_man_MANS += doc/orrery-capture.1
TESTS += tests/capture/test_orrery_capture.sh
# Capture from a run of the training-loop driver over the stand-in libnccl
# under the NCCL interposer (contrib/runtime/local.mk builds them).
TESTS += tests/capture/test_capture_fake_nccl.sh
EXTRA_DIST += tests/capture/test_orrery_capture.sh \
	tests/capture/test_capture_fake_nccl.sh \
	tests/data/timelines

# The SPANK plugin's --comm-profile validation as a program, so the capture
# test checks that what orrery-capture writes is what sbatch accepts.
if HAVE_SLURM
check_PROGRAMS += tests/capture/spank_accepts
tests_capture_spank_accepts_SOURCES = tests/capture/spank_accepts.c \
	plugins/spank/args.c plugins/spank/option.c plugins/spank/gate.c
tests_capture_spank_accepts_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(SLURM_CPPFLAGS)
tests_capture_spank_accepts_LDADD = lib/liborrery.la
endif
