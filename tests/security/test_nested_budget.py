"""One budget for the whole run: agents run as tools (``Agent.as_tool``), the agents they hand
off to, and batch rows spend from the budget of the run (or batch) they are part of.

The attack (issue 35): a cheap outer agent with ``max_cost_usd=0.05`` calls an expensive agent
as a tool ten times; each nested run had no budget of its own and its spend was not counted,
so the run spent about $35 and reported $0.0007.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    BudgetExceeded,
    OpenAIProvider,
    RunConfig,
    Runner,
    RunState,
    ToolCallOutputItem,
    Usage,
    arun_batch,
    tool,
)
from jupyter_agents.runtime._pricing import PriceRef, request_price
from jupyter_agents.runtime.batch.row import RowJob, RowSettings, run_row
from jupyter_agents.runtime.events import AgentUpdatedStreamEvent
from jupyter_agents.runtime.usage import RequestUsage
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.server import fake_openai_server, text_reply, tool_call_reply

from ..recorded import json_bodies, scripted_requests

CHEAP, DEAR = "gpt-4o-mini", "o1"
OUTER_USAGE = Usage(input_tokens=2_000, output_tokens=100)  # gpt-4o-mini: $0.00036 a call
INNER_USAGE = Usage(input_tokens=100_000, output_tokens=33_334)  # o1: about $3.50 a call
BUDGET = Decimal("0.05")

looked_up: list[str] = []


@tool
def lookup(key: str) -> str:
    """Look a key up.

    Args:
        key: The key.
    """
    looked_up.append(key)
    return key.upper()


@tool(needs_approval=True)
def publish(text: str) -> str:
    """Publish a text.

    Args:
        text: What to publish.
    """
    return "published"


def setup_function() -> None:
    looked_up.clear()


def price(model: str, usage: Usage) -> Decimal:
    usd = request_price(PriceRef(model), RequestUsage(usage.input_tokens, usage.output_tokens))
    assert usd is not None
    return usd


OUTER_CALL, INNER_CALL = price(CHEAP, OUTER_USAGE), price(DEAR, INNER_USAGE)


def researcher(turns: list[Any] | None = None, *, delay: float = 0.0) -> Agent[Any]:
    """The expensive agent: by default it answers every request at once."""
    model = ScriptedModel(
        turns or [],
        respond=None if turns else (lambda request: text("found")),
        name=DEAR,
        usage=INNER_USAGE,
        delay=delay,
    )
    return Agent(name="researcher", instructions="Research.", model=model, tools=[lookup])


def boss(turns: list[Any], *tools: Any) -> Agent[Any]:
    """The cheap outer agent."""
    model = ScriptedModel(turns, name=CHEAP, usage=OUTER_USAGE)
    return Agent(name="boss", instructions="Delegate.", model=model, tools=list(tools))


def asks(n: int, parallel: bool = False) -> list[Any]:
    """The boss's turns: ``n`` calls of the research tool (one a turn, or all in the first
    turn), then an answer."""
    calls = [tool_call("research", {"input": f"topic {i}"}, f"r{i}") for i in range(n)]
    return ([calls] if parallel else [[c] for c in calls]) + [[text("done")]]


def requests(agent: Agent[Any]) -> int:
    return len(scripted_requests(agent))


# -- the attack ---------------------------------------------------------------------------


@pytest.mark.parametrize("parallel", [False, True], ids=["one-a-turn", "all-at-once"])
async def test_ten_nested_agent_calls_stop_at_the_outer_budget(parallel: bool) -> None:
    """Ten calls of an expensive agent tool, one a turn or all in one turn: one nested model
    call is made (its cost is unknown until it ends), then the run stops with
    ``BudgetExceeded``, which counts the nested spend."""
    inner = researcher(delay=0.001)
    outer = boss(asks(10, parallel), inner.as_tool("research", "Research a topic."))
    with pytest.raises(BudgetExceeded) as caught:
        await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20)
    error = caught.value
    assert requests(inner) == 1
    assert error.spent_usd == OUTER_CALL + INNER_CALL  # the nested call is counted
    assert error.spent_usd <= BUDGET + INNER_CALL  # over by at most the one call made
    assert "\n" not in str(error) and str(error).startswith("Budget of $0.05 reached")
    assert error.run_state is not None
    assert error.run_state.context_wrapper.usage.requests == 2  # the nested one too, as the SDK
    saved = RunState.from_json(outer, error.run_state.to_json())
    assert saved.progress.spend.cost().usd == OUTER_CALL + INNER_CALL


@pytest.mark.http
async def test_the_attack_through_the_openai_client() -> None:
    """The same attack with real ``openai`` clients against the local server: the nested
    run's usage, as the provider reports it, is what stops the run."""
    inner_usage = (INNER_USAGE.input_tokens, INNER_USAGE.output_tokens)
    outer_usage = (OUTER_USAGE.input_tokens, OUTER_USAGE.output_tokens)
    with fake_openai_server(allow_unused_replies=True) as server:
        for i in range(10):  # outer call, nested call, ... as a sequential run makes them
            server.enqueue(
                tool_call_reply("research", {"input": f"topic {i}"}, usage=outer_usage),
                text_reply("found", usage=inner_usage),
            )
        server.enqueue(text_reply("done", usage=outer_usage))
        provider = OpenAIProvider(base_url=server.base_url, api_key=server.api_key)
        inner = Agent(name="researcher", model=provider.get_model(DEAR))
        outer = Agent(
            name="boss",
            model=provider.get_model(CHEAP),
            tools=[inner.as_tool("research", "Research a topic.")],
        )
        with pytest.raises(BudgetExceeded) as caught:
            await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20)
        models = [b["model"] for b in json_bodies(server.model_requests)]
    assert models == [CHEAP, DEAR]
    assert caught.value.spent_usd == OUTER_CALL + INNER_CALL


@settings(max_examples=30, deadline=None)
@given(
    per_turn=st.lists(st.integers(1, 5), min_size=1, max_size=4),
    budget_cents=st.integers(1, 2_500),
)
def test_nested_calls_overshoot_by_at_most_one_call(per_turn: list[int], budget_cents: int) -> None:
    """Whatever the budget and however the agent tool calls are grouped into turns (so
    several nested runs are in flight at once), the run spends at most its budget plus one
    nested call: a call whose cost is unknown runs alone, the others only while their
    projected cost fits."""
    inner = researcher(delay=0.001)
    tool = inner.as_tool("research", "Research a topic.")
    turns: list[Any] = [
        [tool_call("research", {"input": f"t{t}.{i}"}, f"r{t}.{i}") for i in range(n)]
        for t, n in enumerate(per_turn)
    ]
    outer = boss([*turns, [text("done")]], tool)
    budget = Decimal(budget_cents) / 100
    config = RunConfig(max_cost_usd=budget)
    try:
        spent = Runner.run_sync(outer, "go", run_config=config, max_turns=10).cost.usd
    except BudgetExceeded as error:
        spent = error.spent_usd
    assert spent is not None
    assert spent == requests(outer) * OUTER_CALL + requests(inner) * INNER_CALL
    assert spent <= budget + INNER_CALL


async def test_a_stopped_parallel_turn_resumes_every_waiting_call() -> None:
    inner = researcher(delay=0.001)
    outer = boss(asks(10, parallel=True), inner.as_tool("research", "Research a topic."))
    with pytest.raises(BudgetExceeded) as caught:
        await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=BUDGET))
    state = caught.value.run_state
    assert state is not None and len(state.progress.paused.calls) == 9
    saved = RunState.from_json(outer, state.to_json())
    resumed = await Runner.run(outer, saved, run_config=RunConfig(max_cost_usd=100))
    assert resumed.final_output == "done"
    assert requests(inner) == 10 and requests(outer) == 2
    outputs = [i.output for i in resumed.new_items if i.type == "tool_call_output_item"]
    assert outputs == ["found"] * 10
    assert resumed.cost.usd == 2 * OUTER_CALL + 10 * INNER_CALL


# -- not started, stopped, resumed ---------------------------------------------------------


async def test_an_agent_tool_is_not_started_when_the_budget_is_spent() -> None:
    """The outer call that asked for the tool already spent the budget: the nested run is
    not started (no model call, no event, no hook) and the run stops; a resume with a larger
    budget starts it."""
    inner = researcher()
    dear_outer = Usage(input_tokens=400_000, output_tokens=0)  # gpt-4o-mini: $0.06
    outer = boss(asks(1), inner.as_tool("research", "Research a topic."))
    outer.model.usage = dear_outer  # type: ignore[union-attr]
    result = Runner.run_streamed(
        outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20
    )
    seen: list[str] = []
    with pytest.raises(BudgetExceeded) as caught:
        async for event in result.stream_events():
            if isinstance(event, AgentUpdatedStreamEvent):
                seen.append(event.new_agent.name)
    error = caught.value
    assert requests(inner) == 0 and seen == ["boss"]
    assert error.next_call_usd == 0 and "'researcher', run as a tool, was not started" in str(error)
    assert error.run_state is not None
    resumed = await Runner.run(outer, error.run_state, run_config=RunConfig(max_cost_usd=1000))
    assert resumed.final_output == "done" and requests(inner) == 1


async def test_a_nested_run_stops_before_the_call_that_would_go_over_and_resumes() -> None:
    """The nested run goes over mid-way: it stops before its next call, the outer run stops
    with it, and the saved state resumes inside the nested run (nothing is done twice)."""
    inner_turns = [[tool_call("lookup", {"key": f"k{n}"})] for n in range(3)] + [[text("ok")]]
    inner = researcher(inner_turns)
    outer = boss(asks(1), inner.as_tool("research", "Research a topic."))
    budget = OUTER_CALL + 2 * INNER_CALL + Decimal("0.01")  # room for two nested calls
    with pytest.raises(BudgetExceeded) as caught:
        await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=budget))
    error = caught.value
    assert requests(inner) == 2 and looked_up == ["k0", "k1"]
    assert error.spent_usd == OUTER_CALL + 2 * INNER_CALL
    assert error.run_state is not None
    saved = RunState.from_json(outer, error.run_state.to_json())
    resumed = await Runner.run(outer, saved, run_config=RunConfig(max_cost_usd=100))
    assert resumed.final_output == "done"
    assert requests(inner) == 4 and looked_up == ["k0", "k1", "k2"]
    assert requests(outer) == 2
    assert resumed.cost.usd == 2 * OUTER_CALL + 4 * INNER_CALL
    answer = resumed.new_items[1]
    assert isinstance(answer, ToolCallOutputItem)
    assert answer.output == "ok"  # the tool's answer: the nested run's output


async def test_a_resumed_state_keeps_counting_the_nested_spend() -> None:
    """A run that paused for an approval after an agent tool spent saves that spend in its
    state: resumed from JSON under a budget the outer calls alone would fit, it stops at
    once."""
    outer_turns = [
        [tool_call("research", {"input": "t"}, "r0")],
        [tool_call("publish", {"text": "t"}, "p0")],
        [text("done")],
    ]
    outer = boss(outer_turns, researcher().as_tool("research", "Research a topic."), publish)
    first = await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=10))
    assert [i.tool_name for i in first.interruptions] == ["publish"]
    assert first.cost.usd == 2 * OUTER_CALL + INNER_CALL
    state = RunState.from_json(outer, first.to_state().to_json())
    assert state.approve(state.interruptions[0])
    with pytest.raises(BudgetExceeded) as caught:
        await Runner.run(outer, state, run_config=RunConfig(max_cost_usd=INNER_CALL))
    assert caught.value.spent_usd == 2 * OUTER_CALL + INNER_CALL
    assert requests(outer) == 2


# -- streamed runs, handoffs, the tool's own budget, usage ---------------------------------


async def test_a_streamed_run_stops_the_same_way() -> None:
    inner = researcher()
    outer = boss(asks(10), inner.as_tool("research", "Research a topic."))
    result = Runner.run_streamed(
        outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20
    )
    names: list[str] = []
    with pytest.raises(BudgetExceeded):
        async for event in result.stream_events():
            if isinstance(event, AgentUpdatedStreamEvent):
                names.append(event.new_agent.name)
    assert names == ["boss", "researcher"] and requests(inner) == 1
    assert result.cost.usd == OUTER_CALL + INNER_CALL


async def test_a_nested_run_that_hands_off_spends_from_the_same_budget() -> None:
    """The agent tool's agent hands off to an expensive agent: its calls count too."""
    expert = researcher()
    triage = Agent(
        name="triage",
        model=ScriptedModel(
            respond=lambda request: tool_call("transfer_to_researcher", {}), name=CHEAP
        ),
        handoffs=[expert],
    )
    outer = boss(asks(10), triage.as_tool("research", "Research a topic."))
    with pytest.raises(BudgetExceeded) as caught:
        await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20)
    assert requests(expert) == 1
    assert caught.value.spent_usd > INNER_CALL


async def test_a_handoff_in_the_outer_run_spends_from_its_budget() -> None:
    expert = researcher([[tool_call("lookup", {"key": f"k{n}"})] for n in range(9)])
    outer = Agent(
        name="boss",
        model=ScriptedModel([tool_call("transfer_to_researcher", {})], name=CHEAP),
        handoffs=[expert],
    )
    with pytest.raises(BudgetExceeded):
        await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=BUDGET), max_turns=20)
    assert requests(expert) == 1


async def test_the_tools_own_budget_fails_the_tool_not_the_run() -> None:
    """A budget given to the tool (``as_tool(run_config=...)``) is the tool's: its run stops
    and the model is told, like any failed tool; the outer run goes on."""
    inner = researcher([[tool_call("lookup", {"key": f"k{n}"})] for n in range(3)])
    capped = inner.as_tool("research", "R.", run_config=RunConfig(max_cost_usd=1))
    outer = boss(asks(1), capped)
    result = await Runner.run(outer, "go", run_config=RunConfig(max_cost_usd=100))
    assert result.final_output == "done" and requests(inner) == 1
    answer = result.new_items[1]
    assert isinstance(answer, ToolCallOutputItem)
    assert "Budget of $1.00 reached" in str(answer.output)
    assert result.cost.usd == 2 * OUTER_CALL + INNER_CALL


async def test_without_a_budget_the_nested_spend_and_usage_are_still_counted() -> None:
    inner = researcher()
    outer = boss(asks(3), inner.as_tool("research", "Research a topic."))
    result = await Runner.run(outer, "go")
    assert result.cost.usd == 4 * OUTER_CALL + 3 * INNER_CALL
    assert [m.model for m in result.cost.models] == [CHEAP, DEAR]
    assert result.context_wrapper.usage.requests == 7


# -- batch rows ----------------------------------------------------------------------------


async def test_a_batch_row_with_nested_agent_calls_spends_from_the_batch_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row's agent calls an expensive agent ten times: the row stops at the batch's budget
    (it is left pending, to run again with a larger budget) and its spend is the batch's."""
    monkeypatch.chdir(tmp_path)
    inner = researcher()
    row_turns: list[Any] = asks(10)
    agent = Agent(
        name="boss",
        model=ScriptedModel(respond=lambda r: row_turns.pop(0), name=CHEAP, usage=OUTER_USAGE),
        tools=[inner.as_tool("research", "Research a topic.")],
    )
    result = await arun_batch(agent, ["a", "b"], progress=None, max_cost_usd=BUDGET)
    assert requests(inner) == 1
    assert result.counts == {"pending": 2} and result.stopped
    assert result.cost is not None and result.cost.spent_usd == OUTER_CALL + INNER_CALL


async def test_a_row_run_elsewhere_spends_what_was_left_of_the_batch_budget() -> None:
    """On Ray a row cannot share the batch's spend as it happens: it runs with what was left
    when it started (``RowJob.budget_usd``), and is stopped (left pending) the same way."""
    inner = researcher()
    agent = boss(asks(10), inner.as_tool("research", "Research a topic."))
    settings = RowSettings(agent, RunConfig(), max_turns=20, approve="deny")
    outcome = await run_row(settings, RowJob("go", "0", 0, budget_usd=BUDGET))
    assert not outcome.stored and outcome.row.status == "pending"
    assert outcome.row.cost_usd == OUTER_CALL + INNER_CALL and requests(inner) == 1
    assert outcome.row.error is not None and "Budget of $0.05 reached" in outcome.row.error
