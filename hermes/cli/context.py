"""What every subcommand receives: the resolved profile home."""

from __future__ import annotations

from dataclasses import dataclass

import click

from hermes.home import Home


@dataclass(frozen=True)
class CliContext:
    home: Home


def get_context() -> CliContext:
    """The CliContext of the running command (set up by the root group)."""
    obj = click.get_current_context().find_object(CliContext)
    if obj is None:  # a subcommand invoked without the root group, e.g. from a test
        return CliContext(home=Home.for_profile(None))
    return obj
