"""Reading token usage out of provider responses."""

from __future__ import annotations

from typing import Any

from ..usage import InputTokensDetails, OutputTokensDetails, Usage

__all__ = ["usage_from_openai"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def usage_from_openai(usage: Any) -> Usage:
    """A :class:`Usage` for one request from a Responses or Chat Completions usage object."""
    if usage is None:
        return Usage(requests=1)
    input_tokens = getattr(usage, "input_tokens", None)
    if input_tokens is None:  # Chat Completions names
        input_tokens = getattr(usage, "prompt_tokens", 0)
        output_tokens = getattr(usage, "completion_tokens", 0)
        in_details = getattr(usage, "prompt_tokens_details", None)
        out_details = getattr(usage, "completion_tokens_details", None)
    else:
        output_tokens = getattr(usage, "output_tokens", 0)
        in_details = getattr(usage, "input_tokens_details", None)
        out_details = getattr(usage, "output_tokens_details", None)
    total = getattr(usage, "total_tokens", None)
    return Usage(
        requests=1,
        input_tokens=_int(input_tokens),
        output_tokens=_int(output_tokens),
        total_tokens=_int(total) if total is not None else _int(input_tokens) + _int(output_tokens),
        input_tokens_details=InputTokensDetails(_int(getattr(in_details, "cached_tokens", 0))),
        output_tokens_details=OutputTokensDetails(
            _int(getattr(out_details, "reasoning_tokens", 0))
        ),
    )
