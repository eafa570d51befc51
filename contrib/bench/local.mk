# contrib/bench: filled in by its component
