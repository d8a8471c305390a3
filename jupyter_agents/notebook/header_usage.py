"""The run header's usage facts: the tokens and what they cost (kept out of ``view.py``)."""

from __future__ import annotations

from ..runtime.usage import Usage
from .widget_state import Header, Tokens

__all__ = ["set_header_usage"]


def set_header_usage(header: Header, usage: Usage, cost: str | None) -> bool:
    """Put ``usage`` (and ``cost``, as shown: ``"$0.0123"`` or ``"price unknown"``) in
    ``header``; whether anything changed."""
    tokens: Tokens = {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "total": usage.total_tokens,
    }
    changed = tokens != header["tokens"]
    header["tokens"] = tokens
    if cost is not None and cost != header.get("cost"):
        header["cost"] = cost
        changed = True
    return changed
