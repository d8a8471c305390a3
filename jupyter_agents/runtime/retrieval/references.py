"""Search hits as numbered references for a model, within a token budget."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .store import Hit

__all__ = ["estimate_tokens", "format_references"]


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is: one per four characters (close for English)."""
    return math.ceil(len(text) / 4)


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
            block = block[: max(0, max_ref_token * 4 - 1)] + "…"
            cost = max_ref_token
        parts.append(block)
        used += cost
    return "\n\n".join(parts)
