"""Browser tests of what a page costs: bytes at load and read to the end, the first paint,
what a tap does (wall-clock vitals are measured by benchmarks/, not here)."""
