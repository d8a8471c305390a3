"""The tokens a run's task span and turn spans report: what the run's usage grew by between
two marks (a resumed run reports its own part, not the usage it was resumed with)."""

from __future__ import annotations

from typing import TypeAlias

from ..usage import Usage

__all__ = ["UsageMark", "task_usage", "turn_usage", "usage_mark"]

UsageMark: TypeAlias = tuple[int, int, int, int, int, int, int]
"""A usage's counts at one moment: requests, input, output and total tokens, cached and
cache-written input tokens, reasoning tokens."""


def usage_mark(usage: Usage) -> UsageMark:
    """``usage``'s counts now (a tuple: the run's usage keeps growing in place)."""
    details = usage.input_tokens_details
    return (
        usage.requests,
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        details.cached_tokens or 0,
        details.cache_write_tokens or 0,
        usage.output_tokens_details.reasoning_tokens or 0,
    )


def _delta(start: UsageMark, end: UsageMark) -> UsageMark | None:
    """What grew between two marks; None when nothing did (the span then reports none)."""
    delta = tuple(e - s for e, s in zip(end, start, strict=True))
    return delta if any(delta) else None  # type: ignore[return-value]


def turn_usage(start: UsageMark, end: UsageMark) -> dict[str, int] | None:
    """A turn span's ``usage``: the tokens used between the marks (None: none used)."""
    delta = _delta(start, end)
    if delta is None:
        return None
    return {
        "input_tokens": delta[1],
        "output_tokens": delta[2],
        "cached_input_tokens": delta[4],
        "cache_write_input_tokens": delta[5],
    }


def task_usage(start: UsageMark, end: UsageMark) -> dict[str, int] | None:
    """A task span's ``usage``: a turn's counts plus requests and total tokens."""
    usage = turn_usage(start, end)
    if usage is None:
        return None
    usage["requests"] = end[0] - start[0]
    usage["total_tokens"] = end[3] - start[3]
    return usage
