"""The names MCP tools go by: ``mcp__<server>__<tool>``, as Codex names them.

A function name the API accepts matches ``^[a-zA-Z0-9_-]{1,64}$``, and servers name their
tools freely (dots, spaces, any length), so names are sanitised and cut; a cut name, and names
that would otherwise be the same for different tools, end with a short SHA-1 of the original
server and tool names, so every tool keeps a unique, stable name.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable

__all__ = ["MAX_TOOL_NAME_LENGTH", "qualified_tool_names"]

MAX_TOOL_NAME_LENGTH = 64
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_SUFFIX_LENGTH = 8


def qualified_tool_names(pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The model's name for each ``(server, tool)``: unique, valid and independent of the
    order the pairs come in."""
    unique = sorted(set(pairs))
    by_plain: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for pair in unique:
        by_plain[_UNSAFE.sub("_", f"mcp__{pair[0]}__{pair[1]}")].append(pair)
    names: dict[tuple[str, str], str] = {}
    for plain, owners in by_plain.items():
        for pair in owners:
            clash = len(owners) > 1 or len(plain) > MAX_TOOL_NAME_LENGTH
            names[pair] = _with_suffix(plain, pair) if clash else plain
    # A suffixed name could equal another tool's plain name: give that one a suffix too.
    taken: dict[str, tuple[str, str]] = {}
    for pair in unique:
        other = taken.setdefault(names[pair], pair)
        if other is not pair:
            for owner in (other, pair):
                names[owner] = _with_suffix(names[owner], owner, longer=True)
    return names


def _with_suffix(plain: str, pair: tuple[str, str], longer: bool = False) -> str:
    digest = hashlib.sha1(f"{pair[0]}\0{pair[1]}".encode()).hexdigest()
    suffix = "_" + digest[: _SUFFIX_LENGTH * (2 if longer else 1)]
    return plain[: MAX_TOOL_NAME_LENGTH - len(suffix)] + suffix
