"""A saved ``RunState`` is resumed with the agent the run started with: the agent that was
running is found through its handoffs, same-name agents told apart by their configuration
(never by graph order or hook state), and refused when nothing tells them apart."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from jupyter_agents import Agent, AgentHooks, Runner, RunState, UserError, handoff, tool
from jupyter_agents.testing import ScriptedModel, text, tool_call


class Hooks(AgentHooks[Any]):
    def __init__(self) -> None:
        self.started = 0

    async def on_start(self, context: Any, agent: Agent[Any]) -> None:
        self.started += 1


def graph(ran: list[str], *, first: bool, swap: bool = False, same: bool = False) -> Any:
    def child(owner: str, instructions: str) -> Agent[Any]:
        @tool(name_override="operate", needs_approval=True)
        def operate() -> str:
            ran.append(owner)
            return owner

        turns: list[Any] = [[text(f"done-{owner}")]]
        if first:
            turns.insert(0, [tool_call("operate", {}, call_id="c1")])
        return Agent(
            name="sub",
            instructions="same" if same else instructions,
            hooks=Hooks(),
            tools=[operate],
            model=ScriptedModel(turns),
        )

    x, y = child("x", "b"), child("y", "a")
    targets = [y, x] if swap else [x, y]
    root = Agent(
        name="root",
        handoffs=[handoff(t, tool_name_override=f"to_{'x' if t is x else 'y'}") for t in targets],
        model=ScriptedModel([[tool_call("to_y", {}, call_id="h1")]]),
    )
    return root, x, y


async def test_a_state_saved_in_a_sub_agent_resumes_with_the_root_agent() -> None:
    ran: list[str] = []
    root, _, y = graph(ran, first=True)
    first = await Runner.run(root, "go")
    assert first.interruptions[0].agent is y
    state = first.to_state()
    state.approve(first.interruptions[0])
    saved = state.to_string()
    assert json.loads(saved)["current_agent"] == {"name": "sub"}  # the SDK's agent reference

    root, x, y = graph(ran, first=False, swap=True)  # another process, the graph listed anew
    restored = await RunState.from_string(root, saved)
    assert restored.current_agent is y and restored.interruptions[0].agent is y
    assert ran == []  # loading runs nothing, even approved calls
    handed = [i for i in restored.new_items if i.type == "handoff_output_item"]
    assert [(i.source_agent, i.target_agent) for i in handed] == [(root, y)]
    resumed = await Runner.run(root, restored)
    assert resumed.last_agent is y and resumed.final_output == "done-y"
    assert ran == ["y"]
    assert isinstance(x.model, ScriptedModel) and not x.model.requests


async def test_same_name_agents_nothing_tells_apart_are_refused() -> None:
    ran: list[str] = []
    root, _, _ = graph(ran, first=True, same=True)
    first = await Runner.run(root, "go")
    state = first.to_state()
    with pytest.raises(UserError, match="cannot distinguish same-name agents"):
        state.to_json(context_serializer=lambda c: pytest.fail("serializer called"))

    root, _, _ = graph(ran, first=True)
    saved = (await Runner.run(root, "go")).to_state().to_json()
    root, _, _ = graph(ran, first=False, same=True)  # the distinction is gone
    with pytest.raises(UserError, match="cannot distinguish same-name agents"):
        RunState.from_json(root, saved)
    assert ran == []


async def test_an_agent_outside_the_graph_is_refused() -> None:
    ran: list[str] = []
    root, _, _ = graph(ran, first=True)
    saved = (await Runner.run(root, "go")).to_state().to_json()
    with pytest.raises(UserError, match="was running"):
        RunState.from_json(Agent(name="other"), saved)


@dataclass
class DataHooks(AgentHooks[Any]):
    started: int = 0


@pytest.mark.parametrize("kind", ["none", "dataclass"])
async def test_same_name_agents_are_numbered_in_the_sdks_order_of_hook_kinds(kind: str) -> None:
    ran: list[str] = []
    root, x, y = graph(ran, first=True)
    x.hooks = None if kind == "none" else DataHooks()  # sorts before y's ordinary hook object
    first = await Runner.run(root, "go")
    assert first.interruptions[0].agent is y
    saved = first.to_state().to_json()
    assert saved["current_agent"] == {"name": "sub", "identity": "sub#2"}


@pytest.mark.parametrize("version", ["1.18", "1.20"])
async def test_a_legacy_version_with_same_name_hooked_agents_is_refused(version: str) -> None:
    ran: list[str] = []
    root, _, _ = graph(ran, first=True)
    saved = (await Runner.run(root, "go")).to_state().to_json()
    saved["$schemaVersion"] = version  # numbered by hook state then: not known any more
    root, _, _ = graph(ran, first=False)
    with pytest.raises(UserError, match="legacy duplicate-agent identities with hooks"):
        RunState.from_json(root, saved)
    saved["$schemaVersion"] = "1.21"
    assert RunState.from_json(root, saved).current_agent.name == "sub"
    assert ran == []


@pytest.mark.parametrize("version", ["2.0", "1.22", None, 1.21])
async def test_an_unknown_schema_version_is_refused(version: Any) -> None:
    root, _, _ = graph([], first=True)
    saved = (await Runner.run(root, "go")).to_state().to_json()
    saved["$schemaVersion"] = version
    with pytest.raises(UserError, match="cannot read"):
        RunState.from_json(root, saved)
