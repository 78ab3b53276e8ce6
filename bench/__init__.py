"""Benchmarks, run as `python -m bench <name>` (bench/__main__.py sets Django up first)."""
