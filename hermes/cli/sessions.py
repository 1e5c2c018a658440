"""``hermes sessions``: list, show, search, export, delete, reindex. (State work.)"""

from __future__ import annotations

import click


@click.group("sessions")
def sessions_group() -> None:
    """Browse, search and manage stored sessions."""
