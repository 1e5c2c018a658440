"""Security policy helpers.

:mod:`hermes.security.scan` is the threat scanner every prompt input passes.
"""
