"""Finding a block of lines in a file's lines, in linear time, at four levels of leniency.

A patch names the lines it changes by their context; the editor looks for that block of lines,
first exactly, then ignoring trailing whitespace, then ignoring surrounding whitespace, then also
reading typographic dashes, quotes and spaces as their ASCII forms (as Codex's
``seek_sequence`` does). Comparing the block at every position costs lines × block length per
level: minutes for a 12 KB patch on a 1M-line file. Instead each level joins the file's
(normalised) lines into one text once, and a block is found with one substring search for its
lines joined the same way, with line breaks on both sides so that it matches whole lines only.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence

__all__ = ["EXACT", "LEVELS", "STRIP", "LineIndex", "normalise"]

EXACT, RSTRIP, STRIP, UNICODE = 0, 1, 2, 3
LEVELS = (EXACT, RSTRIP, STRIP, UNICODE)
"""From strictest to most lenient."""

_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)


def _unicode(line: str) -> str:
    return line.strip().translate(_ASCII)


_NORMS: dict[int, Callable[[str], str]] = {
    RSTRIP: str.rstrip,
    STRIP: str.strip,
    UNICODE: _unicode,
}


def normalise(line: str, level: int) -> str:
    """``line`` as it is compared at ``level``."""
    return line if level == EXACT else _NORMS[level](line)


class LineIndex:
    """The lines of one file, searchable for blocks of lines."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._cache: dict[int, tuple[str, list[int]]] = {}

    def _level(self, level: int) -> tuple[str, list[int]]:
        """The lines normalised for ``level`` and joined (with a line break on each side),
        and where the line break before each line is in that text."""
        cached = self._cache.get(level)
        if cached is None:
            lines = self.lines if level == EXACT else list(map(_NORMS[level], self.lines))
            text = "\n" + "\n".join(lines) + "\n"
            breaks = [0, *itertools.accumulate(map((1).__add__, map(len, lines)))]
            cached = self._cache[level] = (text, breaks)
        return cached

    def find(self, block: Sequence[str], start: int, level: int) -> int:
        """The first index ``i >= start`` where ``block`` is ``lines[i:i + len(block)]`` at
        ``level`` (-1: nowhere). An empty block is found at ``start``."""
        if not block:
            return start
        if start < 0 or start + len(block) > len(self.lines):
            return -1
        needle = "\n" + "\n".join(normalise(b, level) for b in block) + "\n"
        text, breaks = self._level(level)
        found = text.find(needle, breaks[start])
        if found < 0:
            return -1
        # Every "\n" of the text ends a line, so a match starts at the break before a line.
        return bisect.bisect_left(breaks, found)

    def at(self, block: Sequence[str], index: int, level: int) -> bool:
        """Whether ``block`` is at ``index`` (compared at ``level``)."""
        if index < 0 or index + len(block) > len(self.lines):
            return False
        return all(
            normalise(a, level) == normalise(b, level)
            for a, b in zip(self.lines[index : index + len(block)], block, strict=True)
        )

    def seek(self, block: Sequence[str], start: int, levels: Sequence[int] = LEVELS) -> int:
        """The first match of ``block`` at or after ``start``, trying each level in turn."""
        for level in levels:
            found = self.find(block, start, level)
            if found >= 0:
                return found
        return -1
