# contrib/sim: filled in by its component
