"""Where Hermes keeps its data: ``HERMES_HOME`` (default ``~/.hermes``), one folder per profile.

``hermes -p NAME`` uses ``$HERMES_HOME/profiles/NAME``. Nothing else in Hermes builds these paths by
hand, so the layout described in docs/architecture.md is defined here once.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from hermes.errors import InvalidInputError

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
                hint="use 1-64 lowercase letters, digits, '-' or '_', "
                "starting with a letter or digit",
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
