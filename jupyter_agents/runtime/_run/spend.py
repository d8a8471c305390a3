"""What a run's model calls used, call by call, and what they cost (priced when asked).

The loop only appends a call's usage (cheap); prices are calculated the first time something
asks (``result.cost``, a budget, a recording trace), each call once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .._pricing import PriceRef, request_price
from ..cost import ModelCost, RunCost
from ..usage import InputTokensDetails, OutputTokensDetails, RequestUsage, Usage

if TYPE_CHECKING:
    from .progress import RunProgress

__all__ = ["Spend", "SpentCall", "request_usage", "trace_metadata"]

_UNPRICED: Any = object()


@dataclass(slots=True)
class SpentCall:
    """One model call: which model (as priced) and the tokens it used."""

    name: str
    """The model's name (what the cost lists)."""
    ref: PriceRef | None
    """What it is priced as (None: a model without a name, never priced)."""
    usage: RequestUsage
    _usd: Any = field(default=_UNPRICED, repr=False)

    def usd(self) -> Decimal | None:
        """Its price (None: unknown), calculated once."""
        if self._usd is _UNPRICED:
            self._usd = request_price(self.ref, self.usage) if self.ref is not None else None
        return self._usd  # type: ignore[no-any-return]


def request_usage(usage: Usage) -> RequestUsage:
    """One call's usage as a :class:`RequestUsage`."""
    return RequestUsage(
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        InputTokensDetails(usage.input_tokens_details.cached_tokens),
        OutputTokensDetails(usage.output_tokens_details.reasoning_tokens),
    )


class Spend:
    """The model calls of a run (a resumed run's included), in order."""

    __slots__ = ("calls", "marks")

    def __init__(self, calls: list[SpentCall] | None = None) -> None:
        self.calls: list[SpentCall] = calls if calls is not None else []
        self.marks: dict[str, tuple[int, int]] = {}
        """Per model, the last request's size in characters and its reported input plus
        output tokens (for a budget's next estimate; not saved: a resume estimates afresh)."""

    def add(self, name: str, ref: PriceRef | None, usage: Usage) -> SpentCall:
        """Record one call's usage (a response with several entries counts each)."""
        entries = usage.request_usage_entries or [request_usage(usage)]
        calls = [SpentCall(name, ref, entry) for entry in entries]
        self.calls.extend(calls)
        return calls[-1]

    def copy(self) -> Spend:
        """A copy whose list can grow independently (the calls are shared: their prices are
        the same wherever they are asked)."""
        spend = Spend(list(self.calls))
        spend.marks = dict(self.marks)
        return spend

    def priced(self) -> tuple[Decimal, bool]:
        """What the calls with a known price cost, and whether every call has one."""
        total, known = Decimal(0), True
        for call in self.calls:
            usd = call.usd()
            if usd is None:
                known = False
            else:
                total += usd
        return total, known

    def cost(self) -> RunCost:
        """The run's cost, per model."""
        per_model: dict[tuple[str, str | None], list[SpentCall]] = {}
        for call in self.calls:
            provider = call.ref.provider_id if call.ref is not None else None
            per_model.setdefault((call.name, provider), []).append(call)
        models = tuple(_model_cost(n, p, calls) for (n, p), calls in per_model.items())
        priced, known = self.priced()
        return RunCost(priced if known else None, priced, known, models)

    def to_json(self) -> list[dict[str, Any]]:
        """The calls as JSON-compatible dicts (for ``RunState``)."""
        return [
            {
                "model": c.name,
                "price_model": c.ref.model if c.ref is not None else None,
                "provider": c.ref.provider_id if c.ref is not None else None,
                "input_tokens": c.usage.input_tokens,
                "output_tokens": c.usage.output_tokens,
                "cached_tokens": c.usage.input_tokens_details.cached_tokens,
                "reasoning_tokens": c.usage.output_tokens_details.reasoning_tokens,
            }
            for c in self.calls
        ]

    @classmethod
    def from_json(cls, saved: list[dict[str, Any]]) -> Spend:
        """The calls saved by :meth:`to_json` (checked by the state's schema first)."""
        calls = []
        for c in saved:
            ref = PriceRef(c["price_model"], c["provider"]) if c["price_model"] else None
            usage = RequestUsage(
                c["input_tokens"],
                c["output_tokens"],
                c["input_tokens"] + c["output_tokens"],
                InputTokensDetails(c["cached_tokens"]),
                OutputTokensDetails(c["reasoning_tokens"]),
            )
            calls.append(SpentCall(c["model"], ref, usage))
        return cls(calls)


def _model_cost(name: str, provider: str | None, calls: list[SpentCall]) -> ModelCost:
    prices = [c.usd() for c in calls]
    known = [p for p in prices if p is not None]
    return ModelCost(
        model=name,
        provider=provider,
        requests=len(calls),
        input_tokens=sum(c.usage.input_tokens for c in calls),
        output_tokens=sum(c.usage.output_tokens for c in calls),
        usd=sum(known, Decimal(0)) if len(known) == len(prices) else None,
    )


def trace_metadata(metadata: dict[str, Any] | None, progress: RunProgress) -> dict[str, Any]:
    """The trace's metadata with the run's usage and cost added (a copy: the caller's dict
    stays as it was)."""
    usage = progress.context_wrapper.usage
    cost = progress.spend.cost()
    return {
        **(metadata or {}),
        "usage": {
            "requests": usage.requests,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cached_tokens": usage.input_tokens_details.cached_tokens,
            "reasoning_tokens": usage.output_tokens_details.reasoning_tokens,
        },
        "cost_usd": str(cost.usd) if cost.usd is not None else None,
    }
