"""Approval abuse cases: a gated call never runs without a decision made for that very call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ApprovalDecision,
    ApprovalInbox,
    ApprovalRequest,
    FunctionTool,
    ModelBehaviorError,
    Runner,
    RunState,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call

ran: list[Any] = []


@pytest.fixture(autouse=True)
def _clear() -> None:
    ran.clear()


async def _invoke(_ctx: Any, arguments: str) -> str:
    ran.append(arguments)
    return "ran"


def gated_by_hand() -> FunctionTool:
    """A hand-built gated tool whose invoke runs whatever arguments it gets."""
    return FunctionTool(
        name="wipe",
        description="Wipe the disk.",
        params_json_schema={"type": "object", "properties": {}, "additionalProperties": False},
        on_invoke_tool=_invoke,
        needs_approval=True,
    )


@tool(needs_approval=True)
def pay(amount: int, to: str) -> str:
    """Pay someone."""
    ran.append({"amount": amount, "to": to})
    return f"paid {amount} to {to}"


def always_reject(request: ApprovalRequest) -> ApprovalDecision:
    return ApprovalDecision.reject("no")


@pytest.mark.parametrize("arguments", ["[]", "null", "1", '"x"', "true", "[1, 2]", "{bad"])
async def test_non_object_arguments_are_an_error_before_any_approval(arguments: str) -> None:
    asked: list[ApprovalRequest] = []

    def handler(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    model = ScriptedModel([[tool_call("wipe", arguments)], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[gated_by_hand()])
    for handler_or_none in (handler, None):
        result = await Runner.run(agent, "go", approval_handler=handler_or_none)
        (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
        assert output.status == "error"
        assert "JSON" in output.raw_item["output"]
        assert result.interruptions == []
        model = ScriptedModel([[tool_call("wipe", arguments)], [text("ok")]])
        agent = Agent(name="a", model=model, tools=[gated_by_hand()])
    assert ran == [] and asked == []


async def test_duplicate_call_ids_in_one_response_are_a_model_behavior_error() -> None:
    model = ScriptedModel(
        [[tool_call("pay", {"amount": 1, "to": "a"}, "c1"), tool_call("wipe", {}, "c1")]]
    )
    agent = Agent(name="a", model=model, tools=[pay, gated_by_hand()])
    with pytest.raises(ModelBehaviorError, match="same call id 'c1'"):
        await Runner.run(agent, "go", approval_handler=lambda r: True)
    assert ran == []


async def test_a_decision_is_used_once_when_the_model_repeats_the_call() -> None:
    call = tool_call("pay", {"amount": 5, "to": "bob"}, "c1")
    model = ScriptedModel([[call], [call], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[pay])
    first = await Runner.run(agent, "go")
    state = first.to_state()
    state.approve(state.interruptions[0])
    resumed = await Runner.run(agent, state)
    assert ran == [{"amount": 5, "to": "bob"}]  # the repeat did not reuse the approval
    assert [i.call_id for i in resumed.interruptions] == ["c1"]


async def test_live_decisions_do_not_stand_for_a_repeated_call() -> None:
    call = tool_call("pay", {"amount": 5, "to": "bob"}, "c1")
    model = ScriptedModel([[call], [call], [text("ok")]])
    asked: list[str] = []

    def handler(request: ApprovalRequest) -> bool:
        asked.append(request.request_id)
        return len(asked) == 1  # approve the first, reject the repeat

    await Runner.run(Agent(name="a", model=model, tools=[pay]), "go", approval_handler=handler)
    assert len(asked) == 2 and asked[0] != asked[1]
    assert ran == [{"amount": 5, "to": "bob"}]


async def test_resuming_the_same_saved_json_twice_is_refused() -> None:
    call = tool_call("pay", {"amount": 5, "to": "bob"}, "c1")
    model = ScriptedModel([[call], [text("ok")], [text("ok")]])
    agent = Agent(name="a", model=model, tools=[pay])
    state = (await Runner.run(agent, "go")).to_state()
    state.approve(state.interruptions[0])
    saved = state.to_json()
    await Runner.run(agent, RunState.from_json(agent, saved))
    with pytest.raises(UserError, match="already resumed"):
        await Runner.run(agent, RunState.from_json(agent, saved))
    assert ran == [{"amount": 5, "to": "bob"}]


async def test_async_handler_with_always_settles_the_other_waiting_calls() -> None:
    gate = asyncio.Event()

    async def handler(request: ApprovalRequest) -> ApprovalDecision:
        if request.call_id == "c1":
            return ApprovalDecision.approve(always=True)
        await gate.wait()  # the others wait until the always decision settles them
        return ApprovalDecision.reject("too late")

    calls = [tool_call("pay", {"amount": i, "to": "x"}, f"c{i}") for i in (1, 2, 3)]
    model = ScriptedModel([calls, [text("ok")]])
    result = await asyncio.wait_for(
        Runner.run(Agent(name="a", model=model, tools=[pay]), "go", approval_handler=handler),
        timeout=10,
    )
    assert sorted(r["amount"] for r in ran) == [1, 2, 3]
    assert result.final_output == "ok"


@pytest.mark.parametrize(
    "edited, problem",
    [
        ({"amount": "7", "to": "bob"}, "amount"),
        ({"amount": True, "to": "bob"}, "amount"),
        ({"amount": 7, "to": "bob", "memo": "x"}, "memo"),
    ],
)
async def test_edited_arguments_are_checked_strictly(edited: dict[str, Any], problem: str) -> None:
    inbox = ApprovalInbox()
    model = ScriptedModel([[tool_call("pay", {"amount": 1, "to": "bob"}, "c1")], [text("ok")]])
    run = asyncio.create_task(
        Runner.run(Agent(name="a", model=model, tools=[pay]), "go", approval_handler=inbox)
    )
    while not inbox.pending:
        await asyncio.sleep(0)
    request = inbox.pending[0]
    assert problem in (request.validate(edited) or "")
    for _attempt in range(3):
        while not inbox.pending:
            await asyncio.sleep(0)
        assert inbox.decide(inbox.pending[0].request_id, ApprovalDecision.approve(arguments=edited))
    result = await asyncio.wait_for(run, timeout=5)
    assert ran == []
    (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
    assert output.status == "rejected" and "invalid" in output.raw_item["output"]


async def test_sdk_spellings_of_run_state_decisions_and_strings() -> None:
    calls = [tool_call("pay", {"amount": i, "to": "x"}, f"c{i}") for i in (1, 2)]
    model = ScriptedModel([calls, [text("ok")]])
    agent = Agent(name="a", model=model, tools=[pay])
    state = (await Runner.run(agent, "go")).to_state()
    assert state.approve("c1", always_approve=False)
    assert state.reject("c2", rejection_message="too much")
    loaded = RunState.from_string(agent, state.to_string())
    result = await Runner.run(agent, loaded)
    assert ran == [{"amount": 1, "to": "x"}]
    outputs = [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]
    assert "too much" in outputs  # the SDK's rejection_message: all the model is told
