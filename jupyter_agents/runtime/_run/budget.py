"""A run's budget (``RunConfig.max_cost_usd``): before each model call, estimate what it will
cost and stop the run cleanly, before the call, when it would go over.

The estimate counts input tokens only (what a call will produce is unknown before it is made):

- the first call of a model in the run: the characters of the whole request (instructions, the
  tools' schemas, every input item as JSON) divided by 4;
- a later call: the previous call's input plus output tokens (what the provider reported),
  plus the characters the request gained since, divided by 4.

So a run never spends more than its budget plus what its last call produced beyond the
estimate: a call is made only while ``spent + estimate <= budget``.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .._pricing import PriceRef, request_price
from ..cost import format_usd
from ..errors import BudgetExceeded, UserError
from ..run_state import RunState
from ..usage import RequestUsage

if TYPE_CHECKING:
    from ..items import TResponseInputItem
    from .progress import RunProgress

__all__ = ["check_budget", "estimated_tokens", "request_chars"]


def request_chars(
    instructions: str | None, tools: list[Any], items: list[TResponseInputItem]
) -> int:
    """The characters of a request: instructions, tools (and handoffs) with their schemas,
    and the input items as JSON."""
    size = len(instructions or "")
    for tool in tools:
        schema = getattr(tool, "params_json_schema", None) or getattr(
            tool, "input_json_schema", None
        )
        name = getattr(tool, "name", None) or getattr(tool, "tool_name", "")
        text = getattr(tool, "description", None) or getattr(tool, "tool_description", "")
        size += len(str(name)) + len(str(text))
        size += len(json.dumps(schema, default=str)) if schema is not None else 0
    return size + sum(len(json.dumps(item, default=str)) for item in items)


def estimated_tokens(chars: int, mark: tuple[int, int] | None) -> int:
    """Input tokens of a request of ``chars`` characters, after a previous request of the same
    model (``mark``: its characters and reported tokens), if any (see the module docstring)."""
    if mark is None:
        return max(1, chars // 4)
    return mark[1] + max(0, chars - mark[0]) // 4


def check_budget(
    progress: RunProgress,
    budget: float | Decimal,
    ref: PriceRef | None,
    name: str,
    chars: int,
) -> None:
    """Raise :class:`BudgetExceeded` when the next call (``chars`` characters, to the model
    ``ref``) would take the run over ``budget``; :class:`UserError` when the model has no
    known price."""
    tokens = estimated_tokens(chars, progress.spend.marks.get(name))
    usd = request_price(ref, RequestUsage(tokens, 0, tokens)) if ref is not None else None
    if usd is None:
        raise UserError(
            f"The run has a budget (max_cost_usd) but no price is known for model {name!r}: "
            "use a model genai-prices knows, set the model's price_provider, or turn the "
            "budget off."
        )
    spent, _ = progress.spend.priced()
    limit = Decimal(str(budget))
    if spent + usd <= limit:
        return
    state = RunState(progress.snapshot())
    state.progress.current_turn -= 1  # the turn did not happen: a resume takes it again
    raise BudgetExceeded(
        f"Budget of {format_usd(limit)} reached: spent {format_usd(spent)}, and the next model "
        f"call would cost about {format_usd(usd)}; resume from err.run_state with a larger "
        "max_cost_usd.",
        spent_usd=spent,
        next_call_usd=usd,
        budget_usd=limit,
        run_state=state,
    )
