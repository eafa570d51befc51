# contrib/cluster: filled in by its component
