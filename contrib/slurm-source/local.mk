# contrib/slurm-source: fetch and configure the Slurm source of exactly the
# installed version (the select plugin builds against it).
dist_noinst_SCRIPTS += contrib/slurm-source/fetch
