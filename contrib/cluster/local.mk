# contrib/cluster: a real Slurm cluster (munge, MariaDB, slurmdbd,
# slurmctld, N slurmd) on one machine, for development and integration tests.
dist_bin_SCRIPTS += contrib/cluster/orrery-cluster
dist_man_MANS += doc/orrery-cluster.8
