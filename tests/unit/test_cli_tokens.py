"""``hermes tokens count`` as a user runs it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from hermes import tokens
from hermes.cli.main import cli


def run(*args: str, input: bytes | str | None = None):
    return CliRunner().invoke(cli, ["tokens", "count", *args], input=input)


def test_counts_a_file(tmp_path: Path) -> None:
    text = "Hello, wörld! 你好 😀\n" * 50
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert result.output == f"{tokens.count(text)}\n"
    result = run("--encoding", "cl100k_base", str(path))
    assert result.output == f"{tokens.count(text, 'cl100k_base')}\n"


def test_reads_stdin_when_file_is_dash_or_omitted() -> None:
    assert run(input="hello world").output == "2\n"
    assert run("-", input="hello world").output == "2\n"
    assert run("-e", "cl100k_base", "-", input="").output == "0\n"


def test_invalid_utf8_names_the_file_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\u00e9 ok".encode("latin-1"))
    result = run(str(path))
    assert result.exit_code == 1
    assert str(path) in result.output
    assert "not valid UTF-8" in result.output
    assert "byte 0xe9 at offset 3" in result.output
    result = run(input=b"ok\xff")
    assert "<stdin> is not valid UTF-8: byte 0xff at offset 2" in result.output


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    result = run("--encoding", "gpt2", input="x")
    assert result.exit_code == 2
    assert "o200k_base" in result.output
    result = run(str(tmp_path / "missing.txt"))
    assert result.exit_code == 2
    assert "does not exist" in result.output
    assert run(str(tmp_path)).exit_code == 2  # a directory
