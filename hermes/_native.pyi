"""Type stubs for ``hermes._native``, the Rust core.

Product code imports the façades (``hermes.tokens``, ``hermes.security.scan``,
``hermes.agent.digest``, ``hermes.state.search``), never this module directly. Every function
takes and returns plain data; the heavy ones release the GIL. Errors are raised as
``hermes.errors`` classes.
Checked against the compiled module by ``python -m mypy.stubtest hermes._native`` in ``make lint``.
"""

from typing import Self, TypeAlias, final

__version__: str
__all__ = [
    "SearchIndex",
    "__version__",
    "analyze_text",
    "count_chat_tokens",
    "count_tokens",
    "count_tokens_batch",
    "decode_bytes",
    "digest",
    "encode",
    "encodings",
    "scan",
    "scan_batch",
    "scan_rules",
]

# --- tokens --------------------------------------------------------------------------------------
# Exact token counts for the OpenAI encodings "cl100k_base" and "o200k_base". The vocabularies are
# compiled into the extension; nothing is downloaded. Special tokens are counted as ordinary text.

def encodings() -> list[str]: ...
def count_tokens(text: str, encoding: str) -> int: ...
def count_tokens_batch(texts: list[str], encoding: str) -> list[int]: ...
def encode(text: str, encoding: str) -> list[int]: ...
def decode_bytes(tokens: list[int], encoding: str) -> bytes: ...
def count_chat_tokens(messages: list[dict[str, str]], encoding: str) -> int: ...

# --- scan ----------------------------------------------------------------------------------------
# Threat scanning of text that enters a prompt. A finding is
# (category, rule_id, start, end, excerpt) with start/end as code-point offsets into the input
# and excerpt == text[start:end]; findings are sorted by (start, end, rule_id). The verdict is
# "safe" (no finding), "caution" or "dangerous". A str holding lone surrogates raises
# InvalidInputError (the façade hermes.security.scan replaces and reports them). scan_batch
# releases the GIL for the whole batch. scan_rules() lists (rule_id, category, severity,
# description).

def scan(text: str) -> tuple[str, list[tuple[str, str, int, int, str]]]: ...
def scan_batch(texts: list[str]) -> list[tuple[str, list[tuple[str, str, int, int, str]]]]: ...
def scan_rules() -> list[tuple[str, str, str, str]]: ...

# --- digest ---------------------------------------------------------------------------------------
# Context-compression digest of a transcript. Input messages are (role, content, tool_names).
# Returns (digest_text, keep_from, total_tokens, digest_tokens, condensed_turns, omitted_turns):
# messages[keep_from:] are kept verbatim; total_tokens (digest + kept messages) <= budget.
# A message costs 3 + tokens(role) + tokens(content) + sum(tokens(tool name)); the digest, when not
# empty, 3 + tokens("system") + tokens(text). budget must be >= 32; 0 <= recent_share <= 1.

def digest(
    messages: list[tuple[str, str, list[str]]],
    budget: int,
    encoding: str,
    recent_share: float = 0.5,
) -> tuple[str, int, int, int, int, int]: ...

# --- index ---------------------------------------------------------------------------------------
# The tantivy index of messages. A document is (rowid, session_id, role, source, timestamp,
# content); a hit is (rowid, session_id, role, source, timestamp, score, snippet, highlights) where
# highlights are (start, end) code-point spans inside the snippet, which is a verbatim substring of
# the message. Query language and analyzer: hermes_native/src/index/{query,tokenizer}.rs.

_SearchHit: TypeAlias = tuple[int, str, str, str, float, float, str, list[tuple[int, int]]]

@final
class SearchIndex:
    def __new__(cls, path: str) -> Self: ...
    def add(self, docs: list[tuple[int, str, str, str, float, str]]) -> None: ...
    def delete_session(self, session_id: str) -> None: ...
    def commit(self, last_rowid: int) -> None: ...
    def last_rowid(self) -> int: ...
    def num_docs(self) -> int: ...
    def search(
        self,
        query: str,
        limit: int = 10,
        *,
        role: str | None = None,
        source: str | None = None,
        session_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        snippet_chars: int = 160,
    ) -> list[_SearchHit]: ...
    def close(self) -> None: ...

def analyze_text(text: str, *, query: bool = False) -> list[tuple[str, int, int, int]]: ...
