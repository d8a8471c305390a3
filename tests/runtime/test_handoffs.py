"""Handoffs: transfer tools, events, on_handoff, input types, filters and their priority."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

from jupyter_agents import (
    Agent,
    HandoffCallItem,
    HandoffInputData,
    HandoffOutputItem,
    LocalShellTool,
    ModelBehaviorError,
    RunConfig,
    Runner,
    ShellTool,
    UserError,
    handoff,
    handoff_filters,
    tool,
)
from jupyter_agents.testing import ScriptedModel, output_item, text, tool_call

from ..recorded import scripted_requests


@tool
def lookup(q: str) -> str:
    """Look up."""
    return f"found {q}"


def pair(
    triage_turns: list[Any], billing_turns: list[Any], **triage_kwargs: Any
) -> tuple[Agent, Agent]:
    billing = Agent(
        name="Billing Agent", instructions="Billing.", model=ScriptedModel(billing_turns)
    )
    triage = Agent(
        name="triage",
        instructions="Route.",
        model=ScriptedModel(triage_turns),
        handoffs=triage_kwargs.pop("handoffs", [billing]),
        tools=[lookup],
        **triage_kwargs,
    )
    return triage, billing


async def test_handoff_switches_agent_and_reports_items_and_events() -> None:
    triage, billing = pair(
        [[tool_call("transfer_to_billing_agent", call_id="h1")]], [[text("Refund done.")]]
    )
    result = Runner.run_streamed(triage, "I want a refund")
    seen = []
    async for event in result.stream_events():
        if event.type == "agent_updated_stream_event":
            seen.append(f"agent:{event.new_agent.name}")
        elif event.type == "run_item_stream_event":
            seen.append(event.name)
    assert seen == [
        "agent:triage",
        "handoff_requested",
        "handoff_occured",
        "agent:Billing Agent",
        "message_output_created",
    ]
    assert result.final_output == "Refund done." and result.last_agent is billing
    call, output = result.new_items[0], result.new_items[1]
    assert isinstance(call, HandoffCallItem) and isinstance(output, HandoffOutputItem)
    assert (output.source_agent, output.target_agent) == (triage, billing)
    assert output.raw_item["output"] == '{"assistant": "Billing Agent"}'
    offered = scripted_requests(triage)[0]
    assert offered.handoff_names == ["transfer_to_billing_agent"]
    assert "Handoff to the Billing Agent agent" in offered.handoffs[0].tool_description
    # The new agent sees the whole conversation, with its own instructions.
    request = scripted_requests(billing)[0]
    assert request.system_instructions == "Billing."
    assert [i.get("type", i.get("role")) for i in request.input] == [
        "user",
        "function_call",
        "function_call_output",
    ]


async def test_several_handoffs_in_one_response_the_first_wins() -> None:
    other = Agent(name="other", model=ScriptedModel([]))
    triage, billing = pair(
        [
            [
                tool_call("transfer_to_billing_agent", call_id="a"),
                tool_call("transfer_to_other", call_id="b"),
            ]
        ],
        [[text("ok")]],
    )
    triage.handoffs.append(other)
    result = await Runner.run(triage, "x")
    assert result.last_agent is billing
    outputs = {
        i.raw_item["call_id"]: i.raw_item["output"]
        for i in result.new_items
        if i.type in ("tool_call_output_item", "handoff_output_item")
    }
    assert "only the first one was performed" in outputs["b"]


async def test_handoff_with_input_type_and_on_handoff() -> None:
    class Escalation(pydantic.BaseModel):
        reason: str

    received: list[Any] = []

    async def on_handoff(ctx: Any, data: Escalation) -> None:
        received.append((ctx.context, data.reason))

    billing = Agent(name="billing", model=ScriptedModel([["ok"]]))
    h = handoff(
        billing,
        on_handoff=on_handoff,
        input_type=Escalation,
        tool_name_override="escalate",
        tool_description_override="Escalate.",
    )
    triage = Agent(
        name="t", model=ScriptedModel([[tool_call("escalate", {"reason": "angry"})]]), handoffs=[h]
    )
    await Runner.run(triage, "x", context="ctx")
    assert received == [("ctx", "angry")]
    assert scripted_requests(triage)[0].handoffs[0].input_json_schema["required"] == ["reason"]

    bad = Agent(
        name="t2", model=ScriptedModel([[tool_call("escalate", {"wrong": 1})]]), handoffs=[h]
    )
    with pytest.raises(ModelBehaviorError, match="Invalid handoff arguments"):
        await Runner.run(bad, "x")


def test_handoff_misuse_is_a_user_error() -> None:
    target = Agent(name="x")
    with pytest.raises(UserError, match="needs on_handoff"):
        handoff(target, input_type=int)
    with pytest.raises(UserError, match=r"\(run_context\)"):
        handoff(target, on_handoff=lambda: None)
    with pytest.raises(UserError, match="handoffs holds"):
        Agent(name="a", handoffs=["billing"])  # type: ignore[list-item]


async def test_disabled_handoffs_are_not_offered() -> None:
    billing = Agent(name="billing", model=ScriptedModel([]))
    triage = Agent(
        name="t",
        model=ScriptedModel([["hi"]]),
        handoffs=[handoff(billing, is_enabled=lambda ctx, agent: False)],
    )
    await Runner.run(triage, "x")
    assert scripted_requests(triage)[0].handoff_names == []


def _history_roles(request: Any) -> list[str]:
    return [i.get("type", i.get("role")) for i in request.input]


async def test_input_filter_priority_handoff_then_run_config_then_full_history() -> None:
    def keep_last_user(data: HandoffInputData) -> HandoffInputData:
        return data.clone(pre_handoff_items=(), new_items=())

    turns = [[tool_call("lookup", {"q": "a"})], [tool_call("transfer_to_billing_agent")]]

    # 1. The handoff's own filter wins over RunConfig's.
    billing = Agent(name="Billing Agent", model=ScriptedModel([["ok"]]))
    triage = Agent(
        name="t",
        model=ScriptedModel(turns),
        tools=[lookup],
        handoffs=[handoff(billing, input_filter=keep_last_user)],
    )
    await Runner.run(
        triage, "q", run_config=RunConfig(handoff_input_filter=handoff_filters.remove_all_tools)
    )
    assert _history_roles(scripted_requests(billing)[0]) == ["user"]

    # 2. Else RunConfig's filter.
    triage, billing = pair(list(turns), [["ok"]])
    await Runner.run(
        triage, "q", run_config=RunConfig(handoff_input_filter=handoff_filters.remove_all_tools)
    )
    assert _history_roles(scripted_requests(billing)[0]) == ["user"]

    # 3. Else the full history.
    triage, billing = pair(list(turns), [["ok"]])
    await Runner.run(triage, "q")
    assert _history_roles(scripted_requests(billing)[0]) == [
        "user",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output",
    ]


def _item(kind: str, call_id: str, **fields: Any) -> Any:
    return output_item({"type": kind, "id": f"x_{call_id}", "call_id": call_id, **fields})


@pytest.mark.parametrize("history", [False, True])
async def test_remove_all_tools_drops_every_local_tool_kind_too(history: bool) -> None:
    # A handoff with this filter must not show the next agent the previous one's shell
    # commands, patches or computer actions (nor their outputs), from this run or from the
    # history it was given.
    def shell_executor(request: Any) -> str:
        return "secret-output\n"

    calls = [
        _item("shell_call", "s1", status="completed", action={"commands": ["cat secrets.txt"]}),
        _item(
            "local_shell_call",
            "l1",
            status="completed",
            action={"type": "exec", "command": ["cat", "secrets.txt"], "env": {}},
        ),
    ]
    second = Agent(name="second", model=ScriptedModel([[text("bye")]]))
    first = Agent(
        name="first",
        model=ScriptedModel([calls, [tool_call("transfer_to_second", {})]]),
        tools=[
            ShellTool(executor=shell_executor, approval_policy="never"),
            LocalShellTool(executor=shell_executor, approval_policy="never"),
        ],
        handoffs=[handoff(second, input_filter=handoff_filters.remove_all_tools)],
    )
    if history:  # the same items given as the input history of a new run
        earlier = await Runner.run(first, "hello")
        second.model = ScriptedModel([[text("bye")]])
        await Runner.run(
            Agent(
                name="router",
                model=ScriptedModel([[tool_call("transfer_to_second", {})]]),
                handoffs=[handoff(second, input_filter=handoff_filters.remove_all_tools)],
            ),
            earlier.to_input_list(),
        )
    else:
        await Runner.run(first, "hello")
    sent = json.dumps(scripted_requests(second)[0].input)
    assert "cat secrets.txt" not in sent and "secret-output" not in sent
    assert "shell_call" not in sent
