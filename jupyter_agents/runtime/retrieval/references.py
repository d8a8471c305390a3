"""Search hits as numbered references for a model, within a token budget."""

from __future__ import annotations

from collections.abc import Sequence

from .store import Hit
from .text import estimate_tokens

__all__ = ["estimate_tokens", "format_references"]


def format_references(hits: Sequence[Hit], max_ref_token: int = 4000) -> str:
    """``[1] citation`` then the text, for each hit in order, as many as fit in
    ``max_ref_token`` tokens. The first always appears (cut with "…" if it alone is too long);
    the others are left out whole rather than cut."""
    if not hits:
        return "No passages matched."
    parts: list[str] = []
    used = 0
    for number, hit in enumerate(hits, start=1):
        block = f"[{number}] {hit.citation}\n{hit.text.strip()}"
        cost = estimate_tokens(block) + 1
        if used + cost > max_ref_token:
            if parts:
                break
            block = _cut(block, max_ref_token - 1) + "…"
            cost = max_ref_token
        parts.append(block)
        used += cost
    return "\n\n".join(parts)


def _cut(text: str, tokens: int) -> str:
    """The start of ``text`` that is at most ``tokens`` tokens (CJK text is denser)."""
    end = min(len(text), max(0, tokens) * 4)
    while end and (used := estimate_tokens(text[:end])) > tokens:
        end = end * tokens // used
    return text[:end]
