"""Retrieval over a folder of documents: parsing, chunking, a SQLite index (keywords, vectors,
or both) and references for a model. See :class:`DocumentStore`."""

from __future__ import annotations

from .references import estimate_tokens, format_references
from .store import DocumentStore, Hit, IndexReport, SearchMode

__all__ = [
    "DocumentStore",
    "Hit",
    "IndexReport",
    "SearchMode",
    "estimate_tokens",
    "format_references",
]
