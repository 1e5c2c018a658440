"""``hermes sessions`` as a user runs it (click's CliRunner, real state.db and index)."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hermes.cli.main import cli
from hermes.cli.sessions import parse_time
from hermes.errors import InvalidInputError
from hermes.home import Home
from hermes.state import StateStore


def run(*args: str, input: str | None = None, columns: int = 200) -> Result:
    runner = CliRunner(env={"COLUMNS": str(columns)})
    return runner.invoke(cli, ["sessions", *args], input=input)


@pytest.fixture
def ids() -> dict[str, str]:
    with StateStore.open(home=Home.for_profile(None)) as store:
        a = store.create_session(source="cli", title="Deploy [bold]notes[/bold]", model="gpt-4o")
        b = store.create_session(source="telegram", title="Dinner")
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "terminal", "arguments": '{"cmd": "kubectl get pods"}'},
        }
        store.append_messages(
            a.id,
            [
                {"role": "user", "content": "deploy the kubernetes cluster please"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "name": "terminal",
                    "content": "pod-1 Running",
                },
                {"role": "assistant", "content": "All pods run. [red]not markup[/red]"},
            ],
        )
        store.append_message(b.id, {"role": "user", "content": "kubernetes fans dinner at 8"})
        store.end_session(b.id, "user_exit")
    return {"a": a.id, "b": b.id}


def test_list(ids: dict[str, str]) -> None:
    result = run("list")
    assert result.exit_code == 0, result.output
    assert ids["a"] in result.output and ids["b"] in result.output
    assert result.output.index(ids["b"]) < result.output.index(ids["a"])  # newest first
    assert "Deploy [bold]notes[/bold]" in result.output  # titles are literal text
    assert "user_exit" in result.output and "active" in result.output
    only = run("list", "--source", "telegram")
    assert ids["b"] in only.output and ids["a"] not in only.output
    data = json.loads(run("list", "--json", "--limit", "1").output)
    assert [d["id"] for d in data] == [ids["b"]]


def test_list_fits_a_narrow_terminal(ids: dict[str, str]) -> None:
    out = run("list", columns=80).output
    assert ids["a"] in out and "Dinner" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_list_empty() -> None:
    result = run("list")
    assert result.exit_code == 0
    assert "No sessions stored yet." in result.output


def test_show_prints_a_readable_transcript(ids: dict[str, str]) -> None:
    result = run("show", ids["a"])
    assert result.exit_code == 0, result.output
    out = result.output
    for text in (
        "Deploy [bold]notes[/bold]",
        "deploy the kubernetes cluster please",
        'terminal({"cmd": "kubectl get pods"})',
        "pod-1 Running",
        "All pods run. [red]not markup[/red]",
        "model gpt-4o",
    ):
        assert text in out
    assert out.index("deploy the kubernetes") < out.index("pod-1 Running") < out.index("All pods")


@pytest.mark.parametrize("command", ["show", "export", "delete"])
def test_unknown_id_is_a_clear_error(command: str) -> None:
    result = run(command, "20250101_000000_deadbeef", "--yes" if command == "delete" else "--")
    assert result.exit_code == 1
    assert "no session with id '20250101_000000_deadbeef'" in result.output
    assert "hermes sessions list" in result.output


def test_search(ids: dict[str, str]) -> None:
    result = run("search", "kubernetes")
    assert result.exit_code == 0, result.output
    assert "Deploy [bold]notes[/bold]" in result.output and "Dinner" in result.output
    hits = json.loads(run("search", "kubernetes", "--json").output)
    assert {h["session_id"] for h in hits} == {ids["a"], ids["b"]}
    assert all({"snippet", "highlights", "role", "session_title"} <= h.keys() for h in hits)
    only = json.loads(run("search", "kubernetes", "--json", "--source", "telegram").output)
    assert [h["session_id"] for h in only] == [ids["b"]]
    tool = json.loads(run("search", "kubectl", "--json", "--role", "assistant").output)
    assert [h["session_id"] for h in tool] == [ids["a"]]
    scoped = json.loads(run("search", "kubernetes", "--json", "--session", ids["a"]).output)
    assert [h["session_id"] for h in scoped] == [ids["a"]]
    assert json.loads(run("search", "kubernetes", "--json", "--since", "1d").output)
    assert json.loads(run("search", "kubernetes", "--json", "--until", "2000-01-01").output) == []
    assert "No messages match." in run("search", "nothinglikethis").output


def test_search_errors(ids: dict[str, str]) -> None:
    bad_time = run("search", "kubernetes", "--since", "last tuesday")
    assert bad_time.exit_code == 1
    assert "cannot read 'last tuesday' as a time" in bad_time.output
    assert "2025-01-31" in bad_time.output
    unknown = run("search", "kubernetes", "--session", "nope")
    assert unknown.exit_code == 1 and "hermes sessions list" in unknown.output
    assert run("search", "x", "--role", "robot").exit_code == 2


@pytest.mark.parametrize("fmt", ["json", "jsonl", "markdown"])
def test_export(ids: dict[str, str], tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"export.{fmt}"
    result = run("export", ids["a"], "--format", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    text = out.read_text()
    assert text == run("export", ids["a"], "-f", fmt).output  # stdout gives the same bytes
    if fmt == "json":
        doc = json.loads(text)
        assert doc["format"] == "hermes.session.v1"
        assert doc["session"]["id"] == ids["a"]
        assert [m["role"] for m in doc["messages"]] == ["user", "assistant", "tool", "assistant"]
    elif fmt == "jsonl":
        messages = [json.loads(line) for line in text.splitlines()]
        assert messages[2] == {
            "role": "tool",
            "content": "pod-1 Running",
            "tool_call_id": "c1",
            "name": "terminal",
        }
    else:
        assert text.startswith("# Deploy [bold]notes[/bold]\n")
        assert "**Tool call** `terminal`" in text and '"cmd": "kubectl get pods"' in text


def test_export_overwrites_atomically(ids: dict[str, str], tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    out = folder / "x.json"
    out.write_text("old")
    assert run("export", ids["b"], "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text())["session"]["id"] == ids["b"]
    assert [p.name for p in folder.iterdir()] == ["x.json"]  # no temp file left behind


def test_delete_asks_first(ids: dict[str, str]) -> None:
    declined = run("delete", ids["a"], input="n\n")
    assert declined.exit_code == 1 and "Aborted" in declined.output
    assert "and its 4 messages?" in declined.output
    assert ids["a"] in run("list").output
    accepted = run("delete", ids["a"], input="y\n")
    assert accepted.exit_code == 0, accepted.output
    assert "Deleted session" in accepted.output and "4 messages" in accepted.output
    assert ids["a"] not in run("list").output
    hits = json.loads(run("search", "kubernetes", "--json").output)
    assert [h["session_id"] for h in hits] == [ids["b"]]


def test_delete_yes(ids: dict[str, str]) -> None:
    assert run("delete", "--yes", ids["b"]).exit_code == 0
    assert ids["b"] not in run("list").output


def test_reindex(ids: dict[str, str], hermes_home: Path) -> None:
    result = run("reindex")
    assert result.exit_code == 0, result.output
    assert "Indexed 5 messages" in result.output
    assert (hermes_home / "index" / "meta.json").exists()
    assert len(json.loads(run("search", "kubernetes", "--json").output)) == 2


def test_profiles_are_separate(ids: dict[str, str], hermes_home: Path) -> None:
    result = CliRunner().invoke(cli, ["-p", "work", "sessions", "list"])
    assert result.exit_code == 0
    assert "No sessions stored yet." in result.output
    assert (hermes_home / "profiles" / "work" / "state.db").exists()


def test_corrupt_state_db_is_reported(hermes_home: Path) -> None:
    (hermes_home / "state.db").write_bytes(b"garbage" * 1000)
    result = run("list")
    assert result.exit_code == 1
    assert "is corrupt" in result.output and ".recover" in result.output
    assert (hermes_home / "state.db").read_bytes() == b"garbage" * 1000


def test_parse_time() -> None:
    now = time.time()
    assert abs(parse_time("2h") - (now - 7200)) < 5
    assert abs(parse_time("1w") - (now - 7 * 86400)) < 5
    day_end = parse_time("2025-01-31", end_of_day=True)
    assert day_end - parse_time("2025-01-31") == pytest.approx(86400, abs=0.01)
    assert parse_time("2025-01-31T14:30") > parse_time("2025-01-31")
    with pytest.raises(InvalidInputError):
        parse_time("yesterday-ish")
