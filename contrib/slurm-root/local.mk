# contrib/slurm-root: a Debian 13 root with Slurm 24.11 (daemons, clients,
# libslurm-dev) for building and testing orrery against 24.11 on Debian 12.
dist_noinst_SCRIPTS += contrib/slurm-root/build contrib/slurm-root/run
