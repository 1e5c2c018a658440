"""Where Hermes keeps its data: ``HERMES_HOME`` (default ``~/.hermes``), one folder per profile.

``hermes -p NAME`` uses ``$HERMES_HOME/profiles/NAME``. Nothing else in Hermes builds these paths by
hand, so the layout described in docs/architecture.md is defined here once.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hermes.errors import HermesIOError, InvalidInputError

log = logging.getLogger("hermes.home")

_PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def hermes_home() -> Path:
    """The root data folder: ``$HERMES_HOME`` or ``~/.hermes``."""
    env = os.environ.get("HERMES_HOME")
    return Path(env).expanduser() if env else Path.home() / ".hermes"


@dataclass(frozen=True)
class Home:
    """The data folder of one profile and the well-known paths inside it."""

    root: Path

    @classmethod
    def for_profile(cls, profile: str | None = None) -> Home:
        base = hermes_home()
        if profile is None or profile == "default":
            return cls(base)
        if not _PROFILE_NAME.match(profile):
            raise InvalidInputError(
                f"invalid profile name {profile!r}",
                hint="use 1-64 lowercase letters, digits, '-' or '_', starting with a letter/digit",
            )
        return cls(base / "profiles" / profile)

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    def ensure(self) -> Home:
        """Create the folder (mode 0700) if needed, and make sure only its owner can enter it.

        It holds secrets (.env) and every conversation, so a folder that group or others may read
        (e.g. created by hand with the default umask) is tightened to 0700. For a profile, the
        HERMES_HOME above it is tightened too.
        """
        base = hermes_home()
        folders = [base, self.root] if self.root.is_relative_to(base) else [self.root]
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            mode = stat.S_IMODE(folder.stat().st_mode)
            if mode & 0o077:
                try:
                    folder.chmod(0o700)
                    log.info("tightened permissions of %s from %o to 700", folder, mode)
                except OSError as exc:
                    log.warning("cannot restrict permissions of %s: %s", folder, exc)
        return self


def atomic_write(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, never a mix.

    Writes a temporary file in the same folder, fsyncs it, renames it over ``path`` and fsyncs the
    folder, so the new content is durable once this returns. The file gets ``mode`` (private by
    default: what Hermes writes is usually conversation data).
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise HermesIOError(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="check that the folder exists, is writable and the disk is not full",
        ) from exc
