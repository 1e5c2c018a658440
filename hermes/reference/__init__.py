"""Slow pure-Python references of the native functions.

Used only by differential tests and benchmarks to check and measure ``hermes._native``; product code
never imports this package, and it is never a fallback.
"""
