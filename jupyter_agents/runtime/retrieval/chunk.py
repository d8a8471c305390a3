"""Sections cut into overlapping chunks of about the same size, on paragraph and sentence
boundaries where there are some (``.``, ``!``, ``?`` and their CJK forms ``。！？``).

Chunks come lazily (``iter_chunks``), so a file's first passages cost the same however long
the file is, and a line of any length is cut in time linear in its length."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .parse import Section

__all__ = ["Chunk", "chunk_sections", "iter_chunks"]

_CJK_STOPS = "。！？"
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+|\n\s*\n|(?<=[" + _CJK_STOPS + r"])(?![" + _CJK_STOPS + r"」』）”’])\s*"
)


@dataclass(frozen=True)
class Chunk:
    """A piece of a section, with the section's place in its document."""

    text: str
    page: int | None = None
    heading: str | None = None


def _pieces(text: str, size: int) -> Iterator[str]:
    """``text`` in pieces no longer than ``size``: sentences and paragraphs, split further at
    spaces only when one is longer."""
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        start, end = 0, len(part)
        while end - start > size:  # cut by position: slicing off the rest each time is quadratic
            cut = part.rfind(" ", start, start + size)
            cut = cut if cut > start + size // 2 else start + size
            yield part[start:cut]
            start = cut
            while start < end and part[start].isspace():
                start += 1
        if start < end:
            yield part[start:]


def _join(before: str, piece: str) -> str:
    """Two pieces as one text: CJK sentences follow each other without a space."""
    return f"{before}{piece}" if before.endswith(tuple(_CJK_STOPS)) else f"{before} {piece}"


def iter_chunks(sections: list[Section], size: int = 1200, overlap: int = 200) -> Iterator[Chunk]:
    """Chunks of at most about ``size`` characters; each one after the first of a section
    starts with the last ``overlap`` characters of the one before (from a word start)."""
    for section in sections:
        current = ""
        carried = False  # the chunk so far is only the overlap from the one before
        for piece in _pieces(section.text, size):
            if current and len(current) + 1 + len(piece) > size and not carried:
                yield Chunk(current, section.page, section.heading)
                tail = current[-overlap:] if overlap else ""
                current = tail[tail.find(" ") + 1 :] if " " in tail else tail
                carried = bool(current)
            current = _join(current, piece) if current else piece
            carried = False
        if current.strip() and not carried:
            yield Chunk(current, section.page, section.heading)


def chunk_sections(
    sections: list[Section], size: int = 1200, overlap: int = 200, limit: int | None = None
) -> list[Chunk]:
    """``iter_chunks`` as a list, of at most ``limit`` chunks."""
    return list(itertools.islice(iter_chunks(sections, size, overlap), limit))
