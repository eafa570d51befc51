# contrib/query: filled in by its component
