"""Approvals inside ``Agent.as_tool``: nested gated calls are asked about, never lost."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalRequest,
    Runner,
    RunState,
    ToolApprovalItem,
    ToolCallOutputItem,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

paid: list[dict[str, Any]] = []


@tool(needs_approval=True)
def pay(amount: int, to: str) -> str:
    """Pay someone."""
    paid.append({"amount": amount, "to": to})
    return f"paid {amount} to {to}"


def agents(resumed_elsewhere: bool = False) -> tuple[Agent, Agent]:
    """The boss asks its cashier agent (a tool) to pay; ``resumed_elsewhere``: only the turns
    left after the pause, as in another process that resumes a saved state."""
    cashier_turns: list[list[ScriptedOutput]] = [
        [tool_call("pay", {"amount": 9, "to": "bo"}, "n1")],
        [text("Paid.")],
    ]
    boss_turns: list[list[ScriptedOutput]] = [
        [tool_call("cash", {"input": "pay bo 9"}, "o1")],
        [text("Done.")],
    ]
    if resumed_elsewhere:
        cashier_turns, boss_turns = cashier_turns[1:], boss_turns[1:]
    cashier = Agent(name="cashier", model=ScriptedModel(cashier_turns), tools=[pay])
    boss = Agent(
        name="boss",
        model=ScriptedModel(boss_turns),
        tools=[cashier.as_tool("cash", "Ask the cashier.")],
    )
    return boss, cashier


def setup_function() -> None:
    paid.clear()


async def test_a_nested_gated_call_asks_the_outer_handler() -> None:
    boss, _ = agents()
    asked: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    result = Runner.run_streamed(boss, "pay bo", approval_handler=handler)
    requested = [
        e.item.tool_name
        async for e in result.stream_events()
        if e.type == "run_item_stream_event"
        and e.name == "tool_approval_requested"
        and isinstance(e.item, ToolApprovalItem)
    ]
    assert [r.tool_name for r in asked] == ["pay"] and requested == ["pay"]
    assert paid == [{"amount": 9, "to": "bo"}]
    assert result.final_output == "Done."
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.output == "Paid."


async def test_a_nested_rejection_reaches_the_nested_model_not_none() -> None:
    boss, cashier = agents()
    result = await Runner.run(boss, "pay bo", approval_handler=lambda r: False)
    assert paid == []
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem)
    assert output.output == "Paid."  # the cashier's (scripted) final answer
    assert isinstance(cashier.model, ScriptedModel)
    nested_input = cashier.model.requests[1].input
    assert any("rejected" in str(item.get("output", "")) for item in nested_input)


async def test_without_a_handler_the_outer_run_pauses_on_the_nested_call() -> None:
    boss, _ = agents()
    first = await Runner.run(boss, "pay bo")
    assert [(i.tool_name, i.call_id) for i in first.interruptions] == [("pay", "n1")]
    assert first.final_output is None and paid == []
    state = first.to_state()
    assert state.approve(first.interruptions[0])
    resumed = await Runner.run(boss, state)
    assert paid == [{"amount": 9, "to": "bo"}]
    assert resumed.final_output == "Done."


async def test_a_nested_pause_survives_json_and_each_decision_runs_once() -> None:
    boss, _ = agents()
    first = await Runner.run(boss, "pay bo")
    state = first.to_state()
    saved = state.to_json()
    fresh_boss, _ = agents(resumed_elsewhere=True)
    loaded = RunState.from_json(fresh_boss, saved)
    assert [i.tool_name for i in loaded.undecided] == ["pay"]
    loaded.approve("n1")
    assert loaded.undecided == []
    resumed = await Runner.run(fresh_boss, loaded)
    assert paid == [{"amount": 9, "to": "bo"}]
    assert resumed.final_output == "Done."
    again = RunState.from_json(fresh_boss, saved)
    again.approve("n1")
    with pytest.raises(UserError, match="already resumed"):
        await Runner.run(fresh_boss, again)
    assert paid == [{"amount": 9, "to": "bo"}]
