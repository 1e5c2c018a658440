"""Shared fixtures: no test touches the real home directory or the network."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HERMES_HOME at a fresh temporary directory for every test."""
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home
