"""What a run's model calls used, call by call, and what they cost (priced when asked).

The loop only appends a call's usage (cheap); prices are calculated the first time something
asks (``result.cost``, a budget, a recording trace), each call once.

A run started inside another (an agent tool's nested run, a batch row) links its spend to the
outer one (``Spend.link``): each call is then recorded in both, so the outer run's cost
and budget count it, and the budget checks every run of the chain (``_run/budget.py``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .._pricing import PriceRef, request_price
from ..cost import ModelCost, RunCost
from ..usage import InputTokensDetails, OutputTokensDetails, RequestUsage, Usage

if TYPE_CHECKING:
    from .state_schema import SavedSpentCall

__all__ = ["Spend", "SpentCall", "request_usage"]

_UNPRICED: Any = object()
_ZERO = Decimal(0)


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
    """One call's usage as a ``RequestUsage``."""
    return RequestUsage(
        usage.input_tokens,
        usage.output_tokens,
        usage.total_tokens,
        InputTokensDetails(
            usage.input_tokens_details.cached_tokens,
            usage.input_tokens_details.cache_write_tokens,
        ),
        OutputTokensDetails(usage.output_tokens_details.reasoning_tokens),
    )


class Spend:
    """The model calls of a run (a resumed run's included, and those of the runs nested in
    it), in order; while the run runs, also its budget, the spend of the run it is nested
    in, and the calls in flight that the budget counts."""

    __slots__ = (
        "_dearest",
        "_known",
        "_scanned",
        "_total",
        "_waiters",
        "blind",
        "budgeted",
        "calls",
        "held",
        "in_flight",
        "limit",
        "marks",
        "outer",
    )

    def __init__(self, calls: list[SpentCall] | None = None) -> None:
        self.calls: list[SpentCall] = calls if calls is not None else []
        """The calls, in order (the list only grows)."""
        self.marks: dict[str, tuple[int, int]] = {}
        """Per model, the last request's size in characters and its reported input plus
        output tokens (for a budget's next estimate; not saved: a resume estimates afresh)."""
        self.limit: Decimal | None = None
        """The run's budget (``RunConfig.max_cost_usd``; None: none). Not saved: a resumed
        run has the budget it is resumed with."""
        self.outer: Spend | None = None
        """The spend of the run this one is nested in (None: the outermost run)."""
        self.budgeted = False
        """Whether this run or one it is nested in has a budget (its calls are checked)."""
        self.held = _ZERO
        """What the model calls in flight (here or in nested runs) are expected to cost,
        counted by the budget until their usage is known."""
        self.in_flight = 0
        """Model calls in flight, here or in nested runs."""
        self.blind = 0
        """Those of them whose cost could not be projected (no call of their model had
        ended): no other call of the budget runs alongside them."""
        self._waiters: list[asyncio.Future[None]] | None = None  # made when a call waits
        self._scanned = 0  # calls priced so far, into the three below
        self._total = _ZERO
        self._known = True
        self._dearest: dict[str, Decimal] | None = None  # made when a call is priced

    def link(self, limit: Decimal | None, outer: Spend | None) -> None:
        """Give the running run its budget, and nest it in the run of ``outer`` (None: it is
        the outermost)."""
        self.limit, self.outer = limit, outer
        self.budgeted = limit is not None or (outer is not None and outer.budgeted)

    def chain(self) -> list[Spend]:
        """This spend and those of the runs it is nested in, innermost first."""
        chain, spend = [self], self.outer
        while spend is not None:
            chain.append(spend)
            spend = spend.outer
        return chain

    def add(self, name: str, ref: PriceRef | None, usage: Usage) -> SpentCall:
        """Record one call's usage (a response with several entries counts each), here and
        in the runs this one is nested in."""
        entries = usage.request_usage_entries or [request_usage(usage)]
        calls = [SpentCall(name, ref, entry) for entry in entries]
        self.calls.extend(calls)
        outer = self.outer
        while outer is not None:
            outer.calls.extend(calls)
            outer = outer.outer
        return calls[-1]

    def hold(self, usd: Decimal, blind: bool) -> None:
        """Count a call in flight, expected to cost ``usd``, here and in the outer runs."""
        for spend in self.chain():
            spend.held += usd
            spend.in_flight += 1
            spend.blind += blind

    def release(self, usd: Decimal, blind: bool) -> None:
        """The call ``hold`` counted is over: wake the calls waiting for it."""
        for spend in self.chain():
            spend.held -= usd
            spend.in_flight -= 1
            spend.blind -= blind
            waiters, spend._waiters = spend._waiters, None
            for waiter in waiters or ():
                if not waiter.done():
                    waiter.set_result(None)

    def changed(self) -> asyncio.Future[None]:
        """Resolved when a call in flight here ends."""
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        return waiter

    def dearest(self, name: str) -> Decimal | None:
        """The highest price of a call of model ``name`` so far (None: none has ended)."""
        self._scan()
        return self._dearest.get(name) if self._dearest is not None else None

    def copy(self) -> Spend:
        """A copy of the calls whose list can grow independently (the calls are shared: their
        prices are the same wherever they are asked); the copy has no budget and no outer
        run until it is linked."""
        spend = Spend(list(self.calls))
        spend.marks = dict(self.marks)
        return spend

    def priced(self) -> tuple[Decimal, bool]:
        """What the calls with a known price cost, and whether every call has one."""
        self._scan()
        return self._total, self._known

    def _scan(self) -> None:
        """Price the calls added since the last scan (each call is priced once, when first
        asked; a budget asks before every call, so this stays a step per call)."""
        calls = self.calls
        for index in range(self._scanned, len(calls)):
            call = calls[index]
            usd = call.usd()
            if usd is None:
                self._known = False
                continue
            self._total += usd
            dearest = self._dearest if self._dearest is not None else {}
            if usd > dearest.get(call.name, -1):
                dearest[call.name] = usd
            self._dearest = dearest
        self._scanned = len(calls)

    def cost(self) -> RunCost:
        """The run's cost, per model."""
        per_model: dict[tuple[str, str | None], list[SpentCall]] = {}
        for call in self.calls:
            provider = call.ref.provider_id if call.ref is not None else None
            per_model.setdefault((call.name, provider), []).append(call)
        models = tuple(_model_cost(n, p, calls) for (n, p), calls in per_model.items())
        priced, known = self.priced()
        return RunCost(priced if known else None, priced, known, models)

    def to_json(self) -> list[SavedSpentCall]:
        """The calls in their saved form (``RunState``'s ``spend``)."""
        return [
            {
                "model": c.name,
                "price_model": c.ref.model if c.ref is not None else None,
                "provider": c.ref.provider_id if c.ref is not None else None,
                "input_tokens": c.usage.input_tokens,
                "output_tokens": c.usage.output_tokens,
                "cached_tokens": c.usage.input_tokens_details.cached_tokens,
                "cache_write_tokens": c.usage.input_tokens_details.cache_write_tokens,
                "reasoning_tokens": c.usage.output_tokens_details.reasoning_tokens,
            }
            for c in self.calls
        ]

    @classmethod
    def from_json(cls, saved: list[SavedSpentCall]) -> Spend:
        """The calls saved by ``to_json`` (validated with the state first)."""
        calls = []
        for c in saved:
            price_model = c.get("price_model")
            ref = PriceRef(price_model, c.get("provider")) if price_model else None
            usage = RequestUsage(
                c["input_tokens"],
                c["output_tokens"],
                c["input_tokens"] + c["output_tokens"],
                InputTokensDetails(c.get("cached_tokens", 0), c.get("cache_write_tokens", 0)),
                OutputTokensDetails(c.get("reasoning_tokens", 0)),
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
