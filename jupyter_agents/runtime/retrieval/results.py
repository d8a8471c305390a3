"""What searching and indexing a ``DocumentStore`` give back: hits with their
citations, a search's result with its warnings, and an indexing pass's report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from .text import printable

__all__ = ["Hit", "IndexReport", "SearchMode", "SearchResult"]

SearchMode: TypeAlias = Literal["hybrid", "keyword", "vector"]
"""``keyword`` (FTS5, BM25), ``vector`` (embeddings) or ``hybrid`` (both, fused)."""


@dataclass(frozen=True)
class Hit:
    """A chunk found by a search."""

    text: str
    source: str
    """The file, relative to the store's folder."""
    page: int | None
    section: str | None
    score: float
    chunk_id: int

    @property
    def citation(self) -> str:
        """Where it comes from: ``guide.pdf, page 3`` or ``install.md § Install > Linux``
        (printable: control characters escaped)."""
        if self.page is not None:
            return f"{printable(self.source)}, page {self.page}"
        source = printable(self.source)
        return f"{source} § {printable(self.section)}" if self.section else source


@dataclass(frozen=True)
class SearchResult:
    """What a search found, how, and what its reader should know."""

    hits: list[Hit]
    mode: SearchMode
    """The search that ran: ``keyword`` when embeddings were unavailable."""
    warnings: list[str] = field(default_factory=list)


@dataclass
class IndexReport:
    """What an indexing pass did."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    chunks: int = 0
    """Chunks written."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Files and folders not read (printable names), with why."""
    warnings: list[str] = field(default_factory=list)
    """Files read only in part, limits reached, embeddings unavailable."""
