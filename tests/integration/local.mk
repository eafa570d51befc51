# tests/integration: orrery against a real Slurm cluster on this machine
# (contrib/cluster/orrery-cluster).  Needs root and the Slurm daemons, so it
# is not part of `make check':  make check-integration  (as root).
EXTRA_DIST += tests/integration/run.sh tests/lib/tap.sh tests/lib/rt.sh tests/lib/cluster-suite.sh \
	tests/lib/slurm-private.sh

check-integration: all
	$(top_srcdir)/tests/integration/run.sh --build-dir $(abs_top_builddir)
.PHONY: check-integration
