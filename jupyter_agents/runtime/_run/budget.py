"""A run's budget (``RunConfig.max_cost_usd``): before each model call, estimate what it will
cost and stop the run cleanly, before the call, when it would go over.

The estimate counts input tokens only (what a call will produce is unknown before it is made):

- the first call of a model in the run: the characters of the whole request (instructions, the
  tools' schemas, every input item as JSON) divided by 4;
- a later call: the previous call's input plus output tokens (what the provider reported),
  plus the characters the request gained since, divided by 4.

So a run never spends more than its budget plus what its last call produced beyond the
estimate: a call is made only while ``spent + estimate <= budget``.

One budget for the whole run: a run nested in another (an agent tool's run, a batch row) is
linked to it (``Spend.link``), its calls are added to the outer run's spend, and each of
its calls is checked against every budget of the chain. Calls of one budget can be in flight
together (parallel agent tools, concurrent batch rows); what a call will produce is unknown
until it ends, so a call starts alongside others only when its cost can be projected (a call
of its model has ended: the dearest such call, or its estimate if more) and none of those in
flight is blind (without a projection), and ``spent + projected in flight + its own <=
budget``; otherwise it waits for them to end, and is refused once ``spent + estimate`` would
go over. So the whole run goes over its budget by at most what its calls in flight produced
beyond their projections: with a model of unknown cost, one call.

A nested run stopped by a budget that is not its own does not fail its agent tool: the call
waits, and the run calling it stops with ``BudgetExceeded`` too
(``stop_with_nested``), its ``run_state`` holding the nested run's, so a resume with a
larger budget goes on inside the nested run where it stopped. A nested run is not started at
all when a budget of its chain is already spent (``refuse_if_spent``). A nested run's own
budget (``as_tool(run_config=...)``) is the tool's: its stop fails the tool, which the model
is told, as for any tool error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NoReturn

from .._pricing import PriceRef, request_price
from ..cost import format_usd
from ..errors import BudgetExceeded, UserError
from ..run_state import RunState
from ..usage import RequestUsage

if TYPE_CHECKING:
    from ..handoffs import Handoff
    from ..items import TResponseInputItem
    from ..tools.capabilities import ToolCapabilities
    from .progress import RunProgress
    from .spend import Spend

__all__ = [
    "Held",
    "budget_stop",
    "estimated_tokens",
    "outer_stop",
    "refuse_if_spent",
    "request_chars",
    "reserve",
    "stop_with_nested",
]


def request_chars(
    instructions: str | None,
    tools: Sequence[ToolCapabilities],
    handoffs: Sequence[Handoff[Any]],
    items: list[TResponseInputItem],
) -> int:
    """The characters of a request: instructions, tools and handoffs with their schemas, and
    the input items as JSON."""
    offered = [(t.name, t.description, t.params_json_schema) for t in tools]
    offered += [(h.tool_name, h.tool_description, h.input_json_schema) for h in handoffs]
    size = len(instructions or "")
    for name, text, schema in offered:
        size += len(name) + len(text or "")
        size += len(json.dumps(schema, default=str)) if schema else 0
    return size + sum(len(json.dumps(item, default=str)) for item in items)


def estimated_tokens(chars: int, mark: tuple[int, int] | None) -> int:
    """Input tokens of a request of ``chars`` characters, after a previous request of the same
    model (``mark``: its characters and reported tokens), if any (see the module docstring)."""
    if mark is None:
        return max(1, chars // 4)
    return mark[1] + max(0, chars - mark[0]) // 4


@dataclass(frozen=True, slots=True)
class Held:
    """A model call's part of the budgets while it is in flight."""

    usd: Decimal
    """What it is expected to cost: its estimate, or more when a call of its model cost more."""
    blind: bool
    """No call of its model had ended: its cost could not be projected."""

    def release(self, spend: Spend) -> None:
        """The call is over (its usage, if any, is recorded)."""
        spend.release(self.usd, self.blind)


async def reserve(progress: RunProgress, ref: PriceRef | None, name: str, chars: int) -> Held:
    """Hold the next call (``chars`` characters, to the model ``ref``) in every budget of the
    run's chain, waiting for calls in flight when it must (see the module docstring); raise
    ``BudgetExceeded`` when it would take a budget over, and ``UserError`` when the
    model has no known price."""
    spend = progress.spend
    tokens = estimated_tokens(chars, spend.marks.get(name))
    usd = request_price(ref, RequestUsage(tokens, 0, tokens)) if ref is not None else None
    if usd is None:
        raise UserError(
            f"The run has a budget (max_cost_usd) but no price is known for model {name!r}: "
            "use a model genai-prices knows, set the model's price_provider, or turn the "
            "budget off."
        )
    chain = spend.chain()
    while True:
        dearest = chain[-1].dearest(name)  # the outermost spend has every call of the chain
        held = Held(usd if dearest is None else max(usd, dearest), dearest is None)
        busy = _busy_level(progress, chain, usd, held)
        if busy is None:
            spend.hold(held.usd, held.blind)
            return held
        await busy.changed()


def _busy_level(
    progress: RunProgress, chain: list[Spend], usd: Decimal, held: Held
) -> Spend | None:
    """The budget whose calls in flight the call must wait for (None: it may start now);
    raises ``BudgetExceeded`` when it would go over whatever they cost."""
    for level in chain:
        if level.limit is None:
            continue
        spent, _ = level.priced()
        if spent + usd > level.limit:
            _stop(progress, level, spent, usd, turn_taken=True)
        if level.in_flight and (
            level.blind or held.blind or spent + level.held + held.usd > level.limit
        ):
            return level
    return None


def refuse_if_spent(progress: RunProgress) -> None:
    """Raise ``BudgetExceeded`` when a budget of the run's chain is already spent (a
    nested run is then not started: no event, no hook, no model call)."""
    for level in progress.spend.chain():
        if level.limit is None:
            continue
        spent, _ = level.priced()
        if spent >= level.limit:
            _stop(progress, level, spent, Decimal(0), turn_taken=False)


def _stop(
    progress: RunProgress, level: Spend, spent: Decimal, usd: Decimal, *, turn_taken: bool
) -> NoReturn:
    state = RunState(progress.snapshot())
    if turn_taken:
        state.progress.current_turn -= 1  # the turn did not happen: a resume takes it again
    agent = progress.current_agent.name
    if not usd:
        what = f"so agent {agent!r} was not started"
    elif level is progress.spend:
        what = f"and the next model call would cost about {format_usd(usd)}"
    else:
        what = f"and agent {agent!r}'s next model call would cost about {format_usd(usd)}"
    _raise(level, spent, usd, what, state)


def _raise(level: Spend, spent: Decimal, usd: Decimal, what: str, state: RunState) -> NoReturn:
    limit = level.limit
    assert limit is not None
    error = BudgetExceeded(
        f"Budget of {format_usd(limit)} reached: spent {format_usd(spent)}, {what}; "
        "resume from err.run_state with a larger max_cost_usd.",
        spent_usd=spent,
        next_call_usd=usd,
        budget_usd=limit,
        run_state=state,
    )
    error._spend = level  # whose budget it is, and that this state waits for it
    state._budget_stop = error
    raise error


def outer_stop(error: BudgetExceeded, outer: Spend | None) -> bool:
    """Whether ``error``, raised by an agent tool's run, is the budget of the run calling the
    tool (``outer``, its spend) or of one that run is nested in: that run stops too. Else it
    is the nested run's own budget (the tool's ``run_config``): the tool failed."""
    return outer is not None and any(error._spend is level for level in outer.chain())


def budget_stop(states: dict[str, RunState]) -> BudgetExceeded | None:
    """The budget stop among the paused nested runs ``states`` (by call id), if any."""
    return next((s._budget_stop for s in states.values() if s._budget_stop is not None), None)


def stop_with_nested(progress: RunProgress, stop: BudgetExceeded) -> NoReturn:
    """Stop the run, whose agent tool's nested run ``stop`` stopped, in the same way: its
    waiting calls (``progress.paused``) resume the nested runs, and the next resume goes on
    where they stopped. What was spent is counted now, the other calls of the turn over."""
    level = stop._spend
    assert level is not None and stop.run_state is not None
    spent, _ = level.priced()
    agent = stop.run_state.current_agent.name
    if stop.next_call_usd:
        usd = format_usd(stop.next_call_usd)
        what = f"and agent {agent!r}, run as a tool, stopped before a call of about {usd}"
    else:
        what = f"so agent {agent!r}, run as a tool, was not started"
    _raise(level, spent, stop.next_call_usd, what, RunState(progress.snapshot()))
