"""DuckDB helpers: connections, atomic table swaps, quarantine, manifests, snapshots."""
