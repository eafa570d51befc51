# tests/integration: filled in by its component
