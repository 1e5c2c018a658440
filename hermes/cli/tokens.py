"""``hermes tokens``: exact token counts. (Filled in by the tokens work.)"""

from __future__ import annotations

import click


@click.group("tokens")
def tokens_group() -> None:
    """Count tokens exactly, as OpenAI models do."""
