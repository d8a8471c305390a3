"""One module per workload; each runs one runtime in its own process (see bench/README.md)."""
