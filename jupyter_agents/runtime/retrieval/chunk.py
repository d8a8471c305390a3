"""Sections cut into overlapping chunks of about the same size, on paragraph and sentence
boundaries where there are some."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .parse import Section

__all__ = ["Chunk", "chunk_sections"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    """A piece of a section, with the section's place in its document."""

    text: str
    page: int | None = None
    heading: str | None = None


def _pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces no longer than ``size``: sentences and paragraphs, split further at
    spaces only when one is longer."""
    pieces: list[str] = []
    for part in _SENTENCE_END.split(text):
        part = part.strip()
        while len(part) > size:
            cut = part.rfind(" ", 0, size)
            cut = cut if cut > size // 2 else size
            pieces.append(part[:cut])
            part = part[cut:].strip()
        if part:
            pieces.append(part)
    return pieces


def chunk_sections(sections: list[Section], size: int = 1200, overlap: int = 200) -> list[Chunk]:
    """Chunks of at most about ``size`` characters; each one after the first of a section
    starts with the last ``overlap`` characters of the one before (from a word start)."""
    chunks: list[Chunk] = []
    for section in sections:
        current = ""
        carried = False  # the chunk so far is only the overlap from the one before
        for piece in _pieces(section.text, size):
            if current and len(current) + 1 + len(piece) > size and not carried:
                chunks.append(Chunk(current, section.page, section.heading))
                tail = current[-overlap:] if overlap else ""
                current = tail[tail.find(" ") + 1 :] if " " in tail else tail
                carried = bool(current)
            current = f"{current} {piece}" if current else piece
            carried = False
        if current.strip() and not carried:
            chunks.append(Chunk(current, section.page, section.heading))
    return chunks
