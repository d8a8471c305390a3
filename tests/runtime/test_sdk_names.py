"""Names the OpenAI Agents SDK's users reach for, with the behaviour behind them."""

from __future__ import annotations

from typing import Any

from jupyter_agents import (
    RECOMMENDED_PROMPT_PREFIX,
    Agent,
    Runner,
    ToolContext,
    handoff,
    handoff_filters,
    prompt_with_handoff_instructions,
    tool,
)
from jupyter_agents.testing import ScriptedModel, text, tool_call

from ..recorded import scripted_requests


@tool
def lookup(key: str) -> str:
    """Look up."""
    return f"value of {key}"


async def test_usage_keeps_one_entry_per_model_request() -> None:
    model = ScriptedModel([[tool_call("lookup", {"key": "a"})], [text("done")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[lookup]), "go")
    usage = result.context_wrapper.usage
    entries = usage.request_usage_entries
    assert len(entries) == usage.requests == 2
    assert sum(e.input_tokens for e in entries) == usage.input_tokens
    assert sum(e.output_tokens for e in entries) == usage.output_tokens


async def test_turn_input_is_what_the_current_model_call_gets() -> None:
    seen: list[int] = []

    @tool
    def probe(ctx: ToolContext[Any]) -> str:  # the run context: what the model was sent
        """Probe."""
        seen.append(len(ctx.turn_input))
        return "ok"

    model = ScriptedModel([[tool_call("probe")], [text("done")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[probe]), "go")
    assert seen == [1]  # the user message only
    assert len(result.context_wrapper.turn_input) == 3  # message, call, output


async def test_as_tool_takes_is_enabled_and_needs_approval() -> None:
    inner = Agent(name="inner", model=ScriptedModel([[text("hi")]]))
    hidden = inner.as_tool("ask_inner", "Ask.", is_enabled=False)
    gated = inner.as_tool("ask_gated", "Ask.", needs_approval=True)
    outer_model = ScriptedModel([[tool_call("ask_gated", {"input": "x"})]])
    outer = Agent(name="outer", model=outer_model, tools=[hidden, gated])
    result = await Runner.run(outer, "go")
    assert [t.name for t in outer_model.requests[0].tools] == ["ask_gated"]
    assert [i.tool_name for i in result.interruptions] == ["ask_gated"]


async def test_remove_all_tools_hides_tool_traffic_from_the_next_agent() -> None:
    second = Agent(name="second", model=ScriptedModel([[text("bye")]]))
    first = Agent(
        name="first",
        model=ScriptedModel(
            [[tool_call("lookup", {"key": "k"})], [tool_call("transfer_to_second", {})]]
        ),
        tools=[lookup],
        handoffs=[handoff(second, input_filter=handoff_filters.remove_all_tools)],
    )
    await Runner.run(first, "hello")
    sent = scripted_requests(second)[0].input
    assert [i.get("role") or i.get("type") for i in sent] == ["user"]


def test_the_handoff_prompt_prefix() -> None:
    prompt = prompt_with_handoff_instructions("You answer billing questions.")
    assert prompt.startswith(RECOMMENDED_PROMPT_PREFIX)
    assert prompt.endswith("You answer billing questions.")
    assert "transfer_to_" in RECOMMENDED_PROMPT_PREFIX
