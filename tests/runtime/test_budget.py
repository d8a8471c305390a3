"""Budgets (``RunConfig.max_cost_usd``): a call that would go over is not made, the run stops
with one line, and its state resumes with a larger budget."""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    BudgetExceeded,
    MaxTurnsExceeded,
    RunConfig,
    Runner,
    RunState,
    Usage,
    UserError,
    tool,
)
from jupyter_agents.runtime._pricing import PriceRef, request_price
from jupyter_agents.runtime._run.budget import estimated_tokens
from jupyter_agents.runtime.usage import RequestUsage
from jupyter_agents.testing import ReceivedRequest, ScriptedModel, text, tool_call

calls_made: list[str] = []


@tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    calls_made.append(key)
    return key.upper()


def price(model: str, input_tokens: int, output_tokens: int) -> Decimal:
    usd = request_price(PriceRef(model), RequestUsage(input_tokens, output_tokens))
    assert usd is not None
    return usd


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    budget_cents=st.integers(1, 60),
    model=st.sampled_from(["gpt-4o-mini", "gpt-4.1", "o3"]),
)
def test_a_budget_is_never_overshot_by_more_than_one_call(
    seed: int, budget_cents: int, model: str
) -> None:
    """Whatever each call really uses, the run spends at most its budget plus the cost of
    the last call it made; when it stops, the message is one line."""
    rng = random.Random(seed)

    def usage(request: ReceivedRequest) -> Usage:
        return Usage(input_tokens=rng.randint(1, 40_000), output_tokens=rng.randint(0, 4_000))

    turn = tool_call("lookup", {"key": "k"})
    scripted = ScriptedModel([turn] * 40, name=model, usage=usage)
    agent = Agent(name="spender", model=scripted, tools=[lookup])
    budget = Decimal(budget_cents) / 100
    config = RunConfig(max_cost_usd=budget)
    with pytest.raises((BudgetExceeded, MaxTurnsExceeded)) as caught:
        Runner.run_sync(agent, "spend", run_config=config, max_turns=40)
    error = caught.value
    assert error.run_data is not None
    costs = [price(model, r.input_tokens, r.output_tokens) for r in _usages(error)]
    spent = sum(costs, Decimal(0))
    assert spent <= budget + (costs[-1] if costs else 0)
    if isinstance(error, BudgetExceeded):
        assert "\n" not in str(error)
        assert error.spent_usd == spent and error.budget_usd == budget
        assert spent + error.next_call_usd > budget


def _usages(error: Any) -> list[Usage]:
    return [r.usage for r in error.run_data.raw_responses]


def test_the_estimate_reads_the_previous_call_and_the_new_characters() -> None:
    assert estimated_tokens(4000, None) == 1000
    assert estimated_tokens(5000, (4000, 1300)) == 1300 + 250
    assert estimated_tokens(3000, (4000, 1300)) == 1300  # a shorter request: no negative part


def test_stopped_run_resumes_from_json_with_a_larger_budget() -> None:
    """A run stopped by its budget is saved as JSON, loaded, and resumed with a larger one:
    it finishes, and no model call or tool call happens twice."""
    calls_made.clear()
    usage = Usage(input_tokens=100_000, output_tokens=1_000)  # gpt-4.1: $0.208 a call
    turns: list[Any] = [tool_call("lookup", {"key": f"k{n}"}) for n in range(4)] + [text("done")]
    model = ScriptedModel(turns, name="gpt-4.1", usage=usage)
    agent = Agent(name="worker", model=model, tools=[lookup])
    with pytest.raises(BudgetExceeded) as caught:
        Runner.run_sync(agent, "work", run_config=RunConfig(max_cost_usd=0.5))
    error = caught.value
    assert len(model.requests) == 2 and calls_made == ["k0", "k1"]
    assert error.spent_usd == 2 * price("gpt-4.1", 100_000, 1_000)
    assert str(error).startswith("Budget of $0.50 reached: spent $0.416, and the next model call")
    assert error.run_state is not None
    saved = error.run_state.to_json()
    state = RunState.from_json(agent, saved)
    result = Runner.run_sync(agent, state, run_config=RunConfig(max_cost_usd=5))
    assert result.final_output == "done"
    assert len(model.requests) == 5 and calls_made == ["k0", "k1", "k2", "k3"]
    assert result.cost.usd == 5 * price("gpt-4.1", 100_000, 1_000)
    assert result.context_wrapper.usage.requests == 5


async def test_a_streamed_run_stops_the_same_way() -> None:
    usage = Usage(input_tokens=100_000, output_tokens=1_000)
    model = ScriptedModel([tool_call("lookup", {"key": "a"})] * 3, name="gpt-4.1", usage=usage)
    agent = Agent(name="worker", model=model, tools=[lookup])
    result = Runner.run_streamed(agent, "work", run_config=RunConfig(max_cost_usd=0.3))
    with pytest.raises(BudgetExceeded):
        async for _ in result.stream_events():
            pass
    assert len(model.requests) == 1
    assert result.cost.usd == price("gpt-4.1", 100_000, 1_000)


def test_an_unknown_price_under_a_budget_refuses_to_start() -> None:
    model = ScriptedModel(["hi"], name="my-local-llama")
    with pytest.raises(UserError, match="no price is known for model 'my-local-llama'"):
        Runner.run_sync(Agent(name="a", model=model), "x", run_config=RunConfig(max_cost_usd=1))
    assert model.requests == []
    assert Runner.run_sync(Agent(name="a", model=model), "x").final_output == "hi"


@pytest.mark.parametrize("bad", [0, -1, "1", True, float("nan")])
def test_a_budget_must_be_a_positive_number(bad: Any) -> None:
    with pytest.raises(UserError, match="max_cost_usd must be a positive number"):
        RunConfig(max_cost_usd=bad)
