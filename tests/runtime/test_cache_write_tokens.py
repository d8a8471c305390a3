"""Prompt-cache writes (``InputTokensDetails.cache_write_tokens``, Anthropic's
``cache_creation_input_tokens``) survive everything that keeps usage: the run's spend, a saved
and resumed ``RunState``, a recording and its replay, and the model span's usage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_agents import Agent, ApprovalDecision, RunConfig, Runner, RunState, tool
from jupyter_agents.runtime.replay import Cassette
from jupyter_agents.runtime.usage import InputTokensDetails, Usage
from jupyter_agents.testing import ScriptedModel, text, tool_call

CACHED = Usage(
    requests=1,
    input_tokens=1000,
    output_tokens=10,
    total_tokens=1010,
    input_tokens_details=InputTokensDetails(cached_tokens=200, cache_write_tokens=700),
)


@tool(needs_approval=True)
def send(to: str) -> str:
    """Send a note."""
    return f"sent to {to}"


def model(*turns: list[Any]) -> ScriptedModel:
    return ScriptedModel(list(turns), name="claude-sonnet-4-5", usage=CACHED)


def writes(usage: Usage) -> int:
    return usage.input_tokens_details.cache_write_tokens


async def test_a_resumed_state_keeps_the_cache_writes_of_earlier_calls() -> None:
    agent = Agent(name="a", model=model([tool_call("send", {"to": "ana"})], [text("Done.")]))
    agent = agent.clone(tools=[send])
    paused = await Runner.run(agent, "Tell Ana.")
    assert writes(paused.context_wrapper.usage) == 700
    state = RunState.from_json(agent, paused.to_state().to_json())
    state.approve(state.interruptions[0])
    done = await Runner.run(agent, state)
    assert writes(done.context_wrapper.usage) == 1400  # the first call's writes are still there


async def test_a_replayed_run_reports_the_recorded_cache_writes(tmp_path: Path) -> None:
    path = tmp_path / "runs.json"
    live = Agent(name="a", instructions="Be brief.", model=model([text("Hi.")]))
    await Runner.run(live, "Hello", run_config=RunConfig(replay=Cassette(path, mode="record")))
    silent = Agent(
        name="a", instructions="Be brief.", model=ScriptedModel([], name="claude-sonnet-4-5")
    )
    again = await Runner.run(
        silent,
        "Hello",
        run_config=RunConfig(replay=Cassette(path, mode="strict")),
        approval_handler=lambda r: ApprovalDecision.approve(),
    )
    assert writes(again.context_wrapper.usage) == 700
