"""Property: no approval-gated tool ever runs without a matching approve decision, and every
call gets exactly one output, whatever the calls, decisions, duplicates, stale decisions and
cancellations."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalInbox,
    Runner,
    ToolApprovalItem,
    ToolContext,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call
from jupyter_agents.testing.scripted import ScriptedOutput

GATED = ("gated_a", "gated_b")
TOOLS = (*GATED, "free")


def make_tools(executed: list[tuple[str, str]]) -> list[Any]:
    def make(name: str) -> Any:
        async def run(ctx: ToolContext[Any], n: int) -> str:
            """Record the call."""
            executed.append((name, ctx.tool_call_id))
            return f"{name}:{n}"

        return tool(name_override=name, needs_approval=name in GATED)(run)

    return [make(name) for name in TOOLS]


calls_strategy = st.lists(
    st.lists(st.tuples(st.sampled_from(TOOLS), st.integers(0, 9)), min_size=1, max_size=3),
    min_size=1,
    max_size=4,
)
ACTIONS = ("approve", "reject", "approve_always", "reject_always", "wait")


def script(turns: list[list[tuple[str, int]]]) -> tuple[list[Any], list[str]]:
    scripted: list[list[ScriptedOutput]] = []
    ids: list[str] = []
    for t, calls in enumerate(turns):
        turn: list[ScriptedOutput] = []
        for i, (name, n) in enumerate(calls):
            call_id = f"t{t}c{i}"
            ids.append(call_id)
            turn.append(tool_call(name, {"n": n}, call_id=call_id))
        scripted.append(turn)
    scripted.append([text("done")])
    return scripted, ids


class Oracle:
    """What the test told the runtime, with the runtime's own first-decision-wins rule."""

    def __init__(self) -> None:
        self.first: dict[str, bool] = {}
        self.always: dict[str, bool] = {}

    def decide(self, tool_name: str, call_id: str, approve: bool, always: bool) -> None:
        self.first.setdefault(call_id, approve)
        if always:
            self.always.setdefault(tool_name, approve)

    def allows(self, tool_name: str, call_id: str) -> bool:
        if call_id in self.first:
            return self.first[call_id]
        return self.always.get(tool_name, False)


def check_outputs(items: list[dict[str, Any]]) -> None:
    calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
    outputs = Counter(i["call_id"] for i in items if i.get("type") == "function_call_output")
    assert all(outputs[c] == 1 for c in calls), (calls, outputs)
    assert set(outputs) <= set(calls)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=calls_strategy, data=st.data())
def test_interruptions_with_random_decisions(turns: list[Any], data: st.DataObject) -> None:
    executed: list[tuple[str, str]] = []
    scripted, _ = script(turns)
    agent = Agent(name="p", model=ScriptedModel(scripted), tools=make_tools(executed))
    oracle = Oracle()

    async def scenario() -> None:
        result = await Runner.run(agent, "go", max_turns=20)
        for _round in range(12):
            if not result.interruptions:
                break
            state = result.to_state()
            for item in state.interruptions:
                action = data.draw(st.sampled_from(ACTIONS)) if _round < 8 else "approve"
                if action == "wait":
                    continue
                approve = action.startswith("approve")
                always = action.endswith("always")
                if approve:
                    applied = state.approve(item, always=always)
                else:
                    applied = state.reject(item, always=always, message="no")
                assert applied
                oracle.decide(item.tool_name, item.call_id, approve, always)
                if data.draw(st.booleans()):  # a duplicate, contradicting decision
                    assert (
                        state.approve(item) is False
                        if not approve
                        else (state.reject(item) is False)
                    )
            if data.draw(st.booleans()):  # a stale decision for a call that is not waiting
                assert state.approve("t99c9") is False
            result = await Runner.run(agent, state, max_turns=20)
        assert result.final_output == "done"
        check_outputs(result.to_input_list())

    asyncio.run(scenario())
    for name, call_id in executed:
        if name in GATED:
            assert oracle.allows(name, call_id), (name, call_id)
    gated_ids = [c for n, c in executed if n in GATED]
    assert len(gated_ids) == len(set(gated_ids))  # nothing ran twice


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=calls_strategy, data=st.data())
def test_live_decisions_with_cancellation(turns: list[Any], data: st.DataObject) -> None:
    executed: list[tuple[str, str]] = []
    scripted, _ = script(turns)
    inbox = ApprovalInbox()
    agent = Agent(name="p", model=ScriptedModel(scripted), tools=make_tools(executed))
    oracle = Oracle()
    cancel_at = data.draw(st.one_of(st.none(), st.integers(0, 6)))

    async def scenario() -> None:
        result = Runner.run_streamed(agent, "go", approval_handler=inbox, max_turns=20)
        decisions = 0
        async for event in result.stream_events():
            if event.type != "run_item_stream_event" or event.name != "tool_approval_requested":
                continue
            item = event.item
            assert isinstance(item, ToolApprovalItem)
            if cancel_at is not None and decisions == cancel_at:
                result.cancel()
                continue
            decisions += 1
            action = data.draw(st.sampled_from(ACTIONS[:4]))
            approve, always = action.startswith("approve"), action.endswith("always")
            if inbox.decide(item.call_id, ApprovalDecision(approve, always=always)):
                oracle.decide(item.tool_name, item.call_id, approve, always)
            else:  # an "always" for this tool settled the call first
                assert item.tool_name in oracle.always
            assert inbox.decide(item.call_id, True) is False  # double click
        assert inbox.pending == []
        if result.is_cancelled:
            assert result.final_output is None
        else:
            assert result.final_output == "done"
        check_outputs(result.to_input_list())

    asyncio.run(scenario())
    for name, call_id in executed:
        if name in GATED:
            assert oracle.allows(name, call_id), (name, call_id)
