"""Batch budgets: the cost of the first rows projected over the batch, rows not started once
the budget would be passed (left pending), and the batch going on with a larger budget."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from jupyter_agents import Agent, Usage, UserError, arun_batch
from jupyter_agents.runtime._pricing import PriceRef, request_price
from jupyter_agents.runtime.batch.budget import BatchBudget
from jupyter_agents.runtime.batch.result import RowResult
from jupyter_agents.runtime.usage import RequestUsage
from jupyter_agents.testing import ReceivedRequest, ScriptedModel, text
from jupyter_agents.testing.scripted import ScriptedOutput

ROW_USAGE = Usage(input_tokens=50_000, output_tokens=1_000)
ROWS = [f"ticket {n}" for n in range(20)]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default store lives under the working directory


def row_price() -> Decimal:
    usd = request_price(PriceRef("gpt-4.1"), RequestUsage(50_000, 1_000))
    assert usd is not None
    return usd


def priced_agent(answered: list[str]) -> Agent[None]:
    def answer(request: ReceivedRequest) -> list[ScriptedOutput]:
        answered.append(request.user_text)
        return [text("billing")]

    model = ScriptedModel(respond=answer, name="gpt-4.1", usage=ROW_USAGE)
    return Agent(name="classifier", model=model)


async def test_the_budget_stops_starting_rows_and_a_larger_one_goes_on() -> None:
    answered: list[str] = []
    agent = priced_agent(answered)
    budget = row_price() * Decimal("5.5")
    first = await arun_batch(agent, ROWS, concurrency=4, progress=None, max_cost_usd=budget)
    assert first.counts == {"ok": 5, "pending": 15} and first.stopped
    cost = first.cost
    assert cost is not None and cost.spent_usd == 5 * row_price() <= budget
    assert cost.projected_usd == 20 * row_price()
    line = str(cost)
    assert "\n" not in line and "stopped at the budget" in line and "15 rows not started" in line
    assert len(answered) == 5
    second = await arun_batch(agent, ROWS, concurrency=4, progress=None, max_cost_usd=100)
    assert second.counts == {"ok": 20} and not second.stopped
    assert len(answered) == 20 and sorted(answered) == sorted(ROWS)  # no row twice
    assert second.cost is not None and second.cost.spent_usd == 15 * row_price()


async def test_without_a_budget_the_projection_is_still_there() -> None:
    result = await arun_batch(priced_agent([]), ROWS[:3], progress=None)
    assert result.cost is not None and result.cost.spent_usd == 3 * row_price()
    assert not result.cost.stopped and str(result.cost).startswith("$")


async def test_a_model_without_a_price_cannot_run_under_a_budget() -> None:
    agent = Agent(name="c", model=ScriptedModel(respond=lambda r: [text("x")], name="llama"))
    with pytest.raises(UserError, match="no price is known"):
        await arun_batch(agent, ROWS, progress=None, max_cost_usd=1)


@pytest.mark.parametrize("costs", [[3, 1, 4, 1, 5, 9, 2, 6], [1] * 8, [9, 1, 1, 1, 1, 1, 1, 1]])
def test_rows_start_only_while_the_projection_fits(costs: list[int]) -> None:
    """The rule itself: one row until a cost is known, then only while spent plus the rows
    in flight and the next at the mean cost fit the budget; refusing with nothing in flight
    stops the batch."""
    budget = BatchBudget(Decimal(10))
    assert budget.may_start(0) and not budget.may_start(1)
    for cost in costs:
        if not budget.may_start(0):
            break
        budget.row_done(RowResult("k", 0, "ok", cost_usd=Decimal(cost)))
        mean = budget.spent / budget.priced
        assert budget.may_start(2) == (budget.spent + 3 * mean <= 10)
    assert budget.stopped == (budget.spent + budget.spent / budget.priced > 10)
