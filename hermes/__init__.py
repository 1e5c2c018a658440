"""Hermes: a self-hosted, self-improving AI agent appliance."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hermes")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
