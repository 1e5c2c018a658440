"""The state store: sessions and messages in SQLite (the source of truth) and the search over them.

Typical use::

    from hermes.state import StateStore

    with StateStore.open() as store:
        session = store.create_session(source="cli", model="gpt-4o")
        store.append_messages(session.id, [{"role": "user", "content": "hi"}, ...])

Search lives in :mod:`hermes.state.search` (it needs the native index).
"""

from hermes.state.models import Message, SearchHit, Session, StoredMessage, Usage
from hermes.state.store import StateStore, StoreListener, new_session_id

__all__ = [
    "Message",
    "SearchHit",
    "Session",
    "StateStore",
    "StoreListener",
    "StoredMessage",
    "Usage",
    "new_session_id",
]
