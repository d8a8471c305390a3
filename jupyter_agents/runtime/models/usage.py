"""Reading token usage out of provider responses.

Providers name the details differently: OpenAI's Responses API ``input_tokens_details``
(``cached_tokens``, ``cache_write_tokens``) and ``output_tokens_details.reasoning_tokens``;
Chat Completions ``prompt_tokens_details`` and ``completion_tokens_details`` with the same
names; LiteLLM the same, with Anthropic's ``cache_creation_input_tokens`` and
``cache_read_input_tokens`` also at the top (its ``prompt_tokens`` already counts them);
DeepSeek ``prompt_cache_hit_tokens`` beside ``prompt_tokens_details``. All become one
``Usage`` with the OpenAI Agents SDK's field names.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..usage import InputTokensDetails, OutputTokensDetails, RequestUsage, Usage

__all__ = ["raw_usage_snapshot", "usage_from_openai"]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _first(*values: Any) -> int:
    """The first of ``values`` that is a count (a provider may leave a detail ``None``)."""
    return next((value for value in map(_int, values) if value), 0)


def usage_from_openai(usage: Any) -> Usage:
    """A ``Usage`` for one request from a Responses or Chat Completions usage object
    (the ``openai`` package's or LiteLLM's).

    Its ``request_usage_entries`` holds the request's own entry, so whatever records the call
    (the run's spend, its price) sees every detail, cache writes included; a request that
    reported no tokens has none, as in the SDK. A count the provider leaves ``None`` is 0
    (the total too: it is not made up from the others).
    """
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
    total = getattr(usage, "total_tokens", 0)
    entry = RequestUsage(
        _int(input_tokens),
        _int(output_tokens),
        _int(total),
        InputTokensDetails(
            cached_tokens=_first(
                getattr(in_details, "cached_tokens", 0),
                getattr(usage, "cache_read_input_tokens", 0),
                getattr(usage, "prompt_cache_hit_tokens", 0),
            ),
            cache_write_tokens=_first(
                getattr(in_details, "cache_write_tokens", 0),
                getattr(in_details, "cache_creation_tokens", 0),
                getattr(usage, "cache_creation_input_tokens", 0),
            ),
        ),
        OutputTokensDetails(_int(getattr(out_details, "reasoning_tokens", 0))),
    )
    return Usage(
        requests=1,
        input_tokens=entry.input_tokens,
        output_tokens=entry.output_tokens,
        total_tokens=entry.total_tokens,
        input_tokens_details=InputTokensDetails(
            entry.input_tokens_details.cached_tokens, entry.input_tokens_details.cache_write_tokens
        ),
        output_tokens_details=OutputTokensDetails(entry.output_tokens_details.reasoning_tokens),
        request_usage_entries=[entry]
        if entry.input_tokens or entry.output_tokens or entry.total_tokens
        else [],
    )


def raw_usage_snapshot(usage: Any) -> dict[str, Any] | None:
    """The provider's usage payload as it came, as JSON data (``ModelSettings.preserve_raw_usage``):
    only the fields the provider sent; None when there was none or it is not JSON."""
    if usage is None:
        return None
    try:
        if isinstance(usage, Mapping):
            data: Any = dict(usage)
        else:
            dump = getattr(usage, "model_dump", None)
            if not callable(dump):
                return None
            data = dump(mode="json", by_alias=True, exclude_unset=True)
        if not isinstance(data, dict) or not all(isinstance(key, str) for key in data):
            return None
        snapshot: dict[str, Any] = json.loads(json.dumps(data, allow_nan=False))
        return snapshot
    except (TypeError, ValueError):  # not JSON: a diagnostic must not fail the call
        return None
