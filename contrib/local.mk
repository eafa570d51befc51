include contrib/query/local.mk
include contrib/bench/local.mk
include contrib/cluster/local.mk
include contrib/sim/local.mk
include contrib/slurm-source/local.mk
include contrib/slurm-root/local.mk
include tests/integration/local.mk
include contrib/sacct/local.mk
include contrib/runtime/local.mk
include contrib/netbed/local.mk
include contrib/capture/local.mk
include contrib/python/local.mk
dist_noinst_SCRIPTS += contrib/quickstart contrib/install-deps tests/run-all.sh
include contrib/inventory/local.mk
include tests/bad-input/local.mk
include tests/fuzz/local.mk
