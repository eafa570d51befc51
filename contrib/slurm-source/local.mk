# contrib/slurm-source: filled in by its component
