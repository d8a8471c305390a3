"""Retrieval over a folder of documents: parsing, chunking, a SQLite index (keywords, vectors,
or both) and references for a model. See ``DocumentStore``."""

from __future__ import annotations

from .limits import DocumentLimits
from .references import estimate_tokens, format_references
from .store import DocumentStore, Hit, IndexReport, SearchMode, SearchResult

__all__ = [
    "DocumentLimits",
    "DocumentStore",
    "Hit",
    "IndexReport",
    "SearchMode",
    "SearchResult",
    "estimate_tokens",
    "format_references",
]
