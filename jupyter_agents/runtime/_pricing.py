"""Prices of model calls, from ``genai-prices`` (pydantic's maintained price data and
calculator); no price is written by hand here.

Importing genai-prices takes about 300 ms and its first calculation about 400 ms, so nothing
imports it until a price is asked for (a budget, ``result.cost``, a recording trace);
``warm_up`` does both ahead of time (the notebook layer runs it on a daemon thread when the
first agent cell runs).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .usage import RequestUsage

__all__ = ["PriceRef", "price_ref_of", "request_price", "warm_up"]


@dataclass(frozen=True, slots=True)
class PriceRef:
    """What a model's calls are priced as: genai-prices' model reference and provider id."""

    model: str
    """The model name, matched by genai-prices (``"gpt-4o-mini"``, ``"claude-sonnet-4"``)."""

    provider_id: str | None = None
    """genai-prices' provider id (``"openai"``, ``"anthropic"``, ``"google"``); None: the
    provider genai-prices finds for the model name."""


def price_ref_of(model: Any) -> PriceRef | None:
    """What ``model``'s calls are priced as: its ``price_provider`` attribute (if any) and its
    name (``model.model``, else ``model.name``), seen through a replaying wrapper; None when it
    has no name."""
    inner = getattr(model, "inner", None)
    if inner is not None:
        return price_ref_of(inner)
    name = getattr(model, "model", None)
    if not isinstance(name, str):
        name = getattr(model, "name", None)
    if not isinstance(name, str) or not name:
        return None
    provider = getattr(model, "price_provider", None)
    return PriceRef(name, provider if isinstance(provider, str) else None)


_lock = threading.Lock()
_calc: Callable[..., Any] | None = None
_usage_type: Any = None


def _calculator() -> tuple[Callable[..., Any], Any]:
    """genai-prices' ``calc_price`` and ``Usage``, imported once (the slow part)."""
    global _calc, _usage_type
    if _calc is None:
        with _lock:
            if _calc is None:
                from genai_prices import Usage, calc_price

                _usage_type = Usage
                _calc = calc_price
    return _calc, _usage_type


def request_price(ref: PriceRef, usage: RequestUsage) -> Decimal | None:
    """The price in US dollars of one call with ``usage``, as genai-prices calculates it
    (input tokens read from the prompt cache at the cache-read price, those written to it at
    the cache-write price, reasoning tokens as output or at their own price where the model
    has one); None when genai-prices knows no price for the model."""
    details = usage.input_tokens_details
    cached = min(details.cached_tokens, usage.input_tokens)
    written = min(details.cache_write_tokens, usage.input_tokens - cached)
    reasoning = min(usage.output_tokens_details.reasoning_tokens, usage.output_tokens)
    return _price(ref, usage.input_tokens, cached, written, usage.output_tokens, reasoning)


@functools.lru_cache(maxsize=4096)  # batches repeat the same usage; a price takes ~0.7 ms
def _price(
    ref: PriceRef, input_tokens: int, cached: int, written: int, output_tokens: int, reasoning: int
) -> Decimal | None:
    calc, usage_type = _calculator()
    # genai-prices counts cache reads and writes inside input_tokens, as OpenAI and LiteLLM do.
    priced = usage_type(
        input_tokens=input_tokens,
        cache_read_tokens=cached,
        cache_write_tokens=written,
        output_tokens=output_tokens,
        output_reasoning_tokens=reasoning,
    )
    try:
        result = calc(priced, model_ref=ref.model, provider_id=ref.provider_id)
    except LookupError:
        return None
    total: Decimal = result.total_price
    return total


def warm_up() -> None:
    """Import genai-prices and make one calculation, so the first real one is fast."""
    request_price(PriceRef("gpt-4o-mini", "openai"), RequestUsage(1, 1, 2))
