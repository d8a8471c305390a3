"""What a run cost: ``RunCost`` (``result.cost``) and its parts per model.

Prices come from ``genai-prices`` (see ``_pricing.py``). A call whose model has no known price
is never counted as $0: the cost says "price unknown".
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from decimal import Decimal

from ._pricing import warm_up

__all__ = ["ModelCost", "RunCost", "format_usd", "warm_up_prices"]


def warm_up_prices() -> None:
    """Import genai-prices and price one call now (about 0.7 s, the first time), so the first
    real price is fast. Run it on a thread; a failure is left for that first price to report."""
    with contextlib.suppress(Exception):
        warm_up()


def format_usd(usd: Decimal) -> str:
    """``usd`` as people read it: ``"$1.23"`` from a dollar up, ``"$0.0123"`` below, and
    ``"<$0.0001"`` for a tiny amount that is not zero."""
    if usd >= 1:
        return f"${usd:,.2f}"
    if usd == 0:
        return "$0.00"
    if usd < Decimal("0.0001"):
        return "<$0.0001"
    digits = f"{usd:.4f}".rstrip("0")
    return "$" + (digits if len(digits.partition(".")[2]) >= 2 else f"{usd:.2f}")


@dataclass(frozen=True)
class ModelCost:
    """The calls of one model in a run, and what they cost."""

    model: str
    """The model's name, as priced."""

    provider: str | None
    """genai-prices' provider id it was priced with (None: found from the name)."""

    requests: int
    """Model calls."""

    input_tokens: int
    """Input tokens of those calls (cached ones included)."""

    output_tokens: int
    """Output tokens of those calls (reasoning ones included)."""

    usd: Decimal | None
    """Their price in US dollars; None when genai-prices knows no price for the model."""

    def __str__(self) -> str:
        price = format_usd(self.usd) if self.usd is not None else "price unknown"
        return f"{self.model}: {self.requests} calls, {price}"


@dataclass(frozen=True)
class RunCost:
    """What a run's model calls cost (``result.cost``). ``str()`` reads ``"$0.0123"``, or
    ``"price unknown"`` when a model's price is not known (never ``$0``)."""

    usd: Decimal | None
    """The total in US dollars; None when some call's price is unknown."""

    priced_usd: Decimal
    """What the calls with a known price cost (the total when ``known``)."""

    known: bool
    """Whether every call was priced."""

    models: tuple[ModelCost, ...] = ()
    """The calls per model, in the order the models were first called."""

    @property
    def requests(self) -> int:
        """Model calls in the run."""
        return sum(m.requests for m in self.models)

    def __str__(self) -> str:
        if self.known:
            return format_usd(self.priced_usd)
        if self.priced_usd > 0:
            return f"{format_usd(self.priced_usd)} + price unknown"
        return "price unknown"
