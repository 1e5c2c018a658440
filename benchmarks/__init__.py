"""Benchmarks: each module runs a named anchor and Hermes side by side and prints the ratio."""
