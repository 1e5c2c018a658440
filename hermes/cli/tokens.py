"""``hermes tokens``: exact token counts, as OpenAI's tokenizers produce them."""

from __future__ import annotations

from typing import get_args

import click

from hermes import tokens


def _read_utf8(source: str) -> str:
    """The text of FILE, or of stdin for ``-``; invalid UTF-8 is an error naming the byte offset."""
    name = "<stdin>" if source == "-" else source
    try:
        with click.open_file(source, "rb") as f:
            data: bytes = f.read()
    except OSError as exc:
        raise click.FileError(source, hint=exc.strerror or str(exc)) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(
            f"{name} is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} "
            f"({exc.reason}). Convert it first, e.g. `iconv -f latin1 -t utf-8 {name}`."
        ) from exc


@click.group("tokens")
def tokens_group() -> None:
    """Count tokens exactly, as OpenAI models do."""


@tokens_group.command("count")
@click.option(
    "-e",
    "--encoding",
    type=click.Choice(get_args(tokens.Encoding)),
    default=tokens.DEFAULT_ENCODING,
    show_default=True,
    help="Tokenizer: o200k_base (GPT-4o and later) or cl100k_base (GPT-4, GPT-3.5).",
)
@click.argument(
    "file",
    default="-",
    type=click.Path(exists=True, dir_okay=False, allow_dash=True),
)
def count_command(encoding: tokens.Encoding, file: str) -> None:
    """Print the number of tokens in FILE (UTF-8 text; stdin when FILE is - or omitted).

    Special tokens such as <|endoftext|> count as the plain text they are.
    """
    click.echo(tokens.count(_read_utf8(file), encoding))
