"""Text from an untrusted source (an MCP server), made safe to show and bounded in size; no
dependency on the ``mcp`` package, so the notebook's magics can use it without it. A server's
answer that is not valid MCP is summed up on one short line too."""

from __future__ import annotations

import re

from pydantic import ValidationError

__all__ = ["cap_text", "first_problem", "printable"]

_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)
"""Control characters (but tab and newline), and the marks that reorder or hide text (bidi
overrides and isolates, the byte-order mark)."""


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` without control characters and bidi marks (each becomes ``�``), so what a server
    names or describes cannot rewrite a terminal, hide words or reverse them on screen."""
    cleaned = _UNPRINTABLE.sub("\ufffd", text)
    if not keep_newlines:
        cleaned = cleaned.replace("\n", "\ufffd").replace("\t", " ")
    return cleaned


def cap_text(text: str, limit: int | None) -> str:
    """``text``, or its head and tail with a note of the characters cut between them."""
    if limit is None or len(text) <= limit:
        return text
    half = max(1, limit // 2)
    cut = len(text) - 2 * half
    return f"{text[:half]}\n… {cut:,} characters cut …\n{text[-half:]}"


def first_problem(error: ValidationError) -> str:
    """The first of a validation error's problems, on one short line."""
    problems = error.errors()
    if not problems:
        return "invalid"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()))[:80]
    more = f", and {len(problems) - 1} more" if len(problems) > 1 else ""
    return printable(f"{where}: {first.get('msg', '')}"[:160], keep_newlines=False) + more
