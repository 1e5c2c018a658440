"""state.db on disk: private modes, durable settings, corruption refused untouched, migrations."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

from hermes.errors import MigrationError, StateCorruptError
from hermes.home import Home
from hermes.state import StateStore
from hermes.state.migrations import LATEST_VERSION, MIGRATIONS


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def fingerprint(p: Path) -> tuple[str, int, float]:
    st = p.stat()
    return hashlib.sha256(p.read_bytes()).hexdigest(), st.st_size, st.st_mtime


def sidecars(p: Path) -> list[Path]:
    return [p.with_name(p.name + s) for s in ("-wal", "-shm", "-journal")]


def filled_db(path: Path, sessions: int = 30) -> None:
    with StateStore.open(path) as store:
        for i in range(sessions):
            s = store.create_session(title=f"session {i}")
            store.append_messages(s.id, [{"role": "user", "content": "x" * 2000}] * 5)


def test_files_are_private(hermes_home: Path) -> None:
    os.chmod(hermes_home, 0o755)  # e.g. created by hand with the default umask
    with StateStore.open(home=Home.for_profile(None)) as store:
        s = store.create_session()
        store.append_message(s.id, {"role": "user", "content": "secret"})
        db = store.path
        assert mode(hermes_home) == 0o700
        assert mode(db) == 0o600
        for side in sidecars(db)[:2]:
            assert side.exists() and mode(side) == 0o600


def test_existing_loose_file_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    filled_db(db, 1)
    os.chmod(db, 0o644)
    with StateStore.open(db):
        assert mode(db) == 0o600


def test_durability_settings(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        conn = store._conn
        assert conn.pragma("journal_mode") == "wal"
        assert conn.pragma("synchronous") == 2  # FULL
        assert conn.pragma("foreign_keys") == 1
        assert conn.pragma("busy_timeout") >= 1000


def test_stdlib_sqlite3_is_never_imported() -> None:
    code = (
        "import sys, hermes.state.store, hermes.state.search, hermes.cli.sessions; "
        "sys.exit('sqlite3' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def _garbage(p: Path) -> None:
    p.write_bytes(os.urandom(8192))


def _text(p: Path) -> None:
    p.write_text("these are my notes, not a database\n" * 200)


def _short(p: Path) -> None:
    p.write_bytes(b"SQLite format 3\x00abc")


def _truncated(p: Path) -> None:
    filled_db(p)
    with p.open("r+b") as f:
        f.truncate(p.stat().st_size // 2)


def _truncated_odd(p: Path) -> None:
    filled_db(p)
    with p.open("r+b") as f:
        f.truncate(p.stat().st_size - 1000)


def _bad_page_size(p: Path) -> None:
    filled_db(p, 1)
    data = bytearray(p.read_bytes())
    data[16:18] = (1000).to_bytes(2, "big")
    p.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("damage", "what"),
    [
        (_garbage, "not a database"),
        (_text, "not a database"),
        (_short, "not a database"),
        (_truncated, "truncated"),
        (_truncated_odd, "not a multiple of the page size"),
        (_bad_page_size, "invalid page size"),
    ],
)
def test_corrupt_file_is_reported_and_never_touched(tmp_path: Path, damage, what: str) -> None:
    db = tmp_path / "state.db"
    damage(db)
    for side in sidecars(db):
        side.unlink(missing_ok=True)
    before = fingerprint(db)
    with pytest.raises(StateCorruptError, match=what) as exc:
        StateStore.open(db)
    assert str(db) in exc.value.message
    assert ".recover" in (exc.value.hint or "") and "backup" in (exc.value.hint or "")
    assert fingerprint(db) == before
    assert not any(side.exists() for side in sidecars(db))


def test_damage_found_later_is_reported_and_stops_writes(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    filled_db(db, 60)
    # Overwrite the pages after the first few with garbage; the header stays intact.
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page * 4 :] = os.urandom(len(data) - page * 4)
    db.write_bytes(bytes(data))
    before = fingerprint(db)[:2]
    with pytest.raises(StateCorruptError) as exc:
        store = StateStore.open(db)
        try:
            for s in store.list_sessions(limit=1000):
                store.get_messages(s.id)
            store.integrity_check()
            pytest.fail("damage was not noticed")
        finally:
            with pytest.raises(StateCorruptError):
                store.create_session()  # once seen, the store refuses further writes
            store.close()
    assert str(db) in str(exc.value)
    assert fingerprint(db)[:2] == before


def test_migrations_are_numbered_and_recorded(tmp_path: Path) -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    db = tmp_path / "state.db"
    StateStore.open(db).close()
    StateStore.open(db).close()  # reopening applies nothing twice
    conn = apsw.Connection(str(db))
    rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
    assert [r[0] for r in rows] == [m.version for m in MIGRATIONS]
    assert conn.pragma("user_version") == LATEST_VERSION


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    filled_db(db, 1)
    conn = apsw.Connection(str(db))
    conn.execute(
        "INSERT INTO schema_migrations VALUES (?, 'from the future', 0)", (LATEST_VERSION + 1,)
    )
    conn.close()
    before = fingerprint(db)
    with pytest.raises(MigrationError, match=f"only knows versions up to {LATEST_VERSION}") as e:
        StateStore.open(db)
    assert "upgrade Hermes" in (e.value.hint or "")
    assert fingerprint(db) == before


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    conn = apsw.Connection(str(db))
    conn.execute("CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL)")
    conn.close()
    with pytest.raises(MigrationError, match="not a Hermes state store"):
        StateStore.open(db)


def test_empty_file_becomes_a_database(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    db.touch()
    with StateStore.open(db) as store:
        assert store.list_sessions() == []
