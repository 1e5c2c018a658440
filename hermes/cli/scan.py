"""``hermes scan``: threat-scan text before it enters a prompt. (Filled in by the scan work.)"""

from __future__ import annotations

import click


@click.command("scan")
def scan_command() -> None:
    """Scan text for prompt injection, exfiltration, persistence, secrets and hidden Unicode."""
