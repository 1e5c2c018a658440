"""One exception hierarchy for all of Hermes, rooted at :class:`HermesError`.

Every error says what was wrong and, through ``hint``, what to do about it. The Rust core raises
these classes too: ``hermes_native/src/py/errors.rs`` looks them up here by name, so renaming a
class here means renaming it there.
"""

from __future__ import annotations


class HermesError(Exception):
    """Base class of every error Hermes raises on purpose."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message}\nHint: {self.hint}"
        return self.message


class InvalidInputError(HermesError, ValueError):
    """Input that cannot be processed as given: wrong type, invalid text, oversized payload."""


class UnknownEncodingError(InvalidInputError):
    """A tokenizer encoding name that Hermes does not ship."""


class QueryError(InvalidInputError):
    """A search query that cannot be run, not even as a literal search."""


class HermesIOError(HermesError, OSError):
    """A filesystem operation failed."""


class SearchIndexError(HermesError):
    """The full-text index failed; it is derived data and can be rebuilt from state.db."""


class IndexCorruptError(SearchIndexError):
    """The on-disk index cannot be read; ``hermes sessions reindex`` rebuilds it."""


class StateError(HermesError):
    """The SQLite state store failed."""


class StateCorruptError(StateError):
    """state.db is not a readable database; it is never overwritten automatically."""


class MigrationError(StateError):
    """A schema migration could not be applied, or the database is newer than this Hermes."""


class NotFoundError(HermesError, LookupError):
    """A session, message or other named object does not exist."""
