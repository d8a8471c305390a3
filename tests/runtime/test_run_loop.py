"""The turn loop: tool round trips, final output, max turns, usage, instructions, results."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    MaxTurnsExceeded,
    MessageOutputItem,
    ModelSettings,
    RunConfig,
    RunContextWrapper,
    Runner,
    ToolCallItem,
    ToolCallOutputItem,
    UserError,
    tool,
)
from jupyter_agents.testing import ScriptedModel, reasoning, text, tool_call


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_tool_round_trip_feeds_output_back_to_the_model() -> None:
    model = ScriptedModel([[tool_call("add", {"a": 2, "b": 3}, call_id="c1")], [text("5")]])
    agent = Agent(name="calc", instructions="Add.", model=model, tools=[add])

    result = await Runner.run(agent, "2+3?")

    assert result.final_output == "5"
    assert [type(i) for i in result.new_items] == [
        ToolCallItem,
        ToolCallOutputItem,
        MessageOutputItem,
    ]
    output = result.new_items[1]
    assert isinstance(output, ToolCallOutputItem) and output.output == 5
    assert output.raw_item == {"type": "function_call_output", "call_id": "c1", "output": "5"}
    second = model.requests[1]
    assert second.system_instructions == "Add."
    assert second.input[0] == {"role": "user", "content": "2+3?"}
    assert second.input[1]["type"] == "function_call"
    assert second.input[2] == {"type": "function_call_output", "call_id": "c1", "output": "5"}
    assert result.last_agent is agent


async def test_to_input_list_continues_a_conversation() -> None:
    model = ScriptedModel([[text("Hi Ana.")], [text("Your name is Ana.")]])
    agent = Agent(name="a", model=model)
    first = await Runner.run(agent, "I am Ana.")
    follow_up = [*first.to_input_list(), {"role": "user", "content": "Who am I?"}]

    second = await Runner.run(agent, follow_up)

    assert second.final_output == "Your name is Ana."
    sent = model.requests[1].input
    assert [item.get("role") for item in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][0]["text"] == "Hi Ana."


async def test_last_response_id_and_raw_responses() -> None:
    model = ScriptedModel([[tool_call("add", {"a": 1, "b": 1})], [text("2")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[add]), "go")
    assert len(result.raw_responses) == 2
    assert result.last_response_id == result.raw_responses[-1].response_id
    assert result.last_response_id is not None


async def test_usage_adds_up_over_every_response() -> None:
    model = ScriptedModel([[tool_call("add", {"a": 1, "b": 1})], [text("2")]])
    result = await Runner.run(Agent(name="a", model=model, tools=[add]), "go")
    usage = result.context_wrapper.usage
    per_response = [r.usage for r in result.raw_responses]
    assert usage.requests == 2
    assert usage.input_tokens == sum(u.input_tokens for u in per_response) > 0
    assert usage.output_tokens == sum(u.output_tokens for u in per_response) > 0
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens


async def test_max_turns_raises_with_the_run_data_so_far() -> None:
    looping = [[tool_call("add", {"a": i, "b": 1})] for i in range(5)]
    agent = Agent(name="a", model=ScriptedModel(looping), tools=[add])

    with pytest.raises(MaxTurnsExceeded) as caught:
        await Runner.run(agent, "loop", max_turns=3)

    data = caught.value.run_data
    assert data is not None
    assert len(data.raw_responses) == 3
    assert sum(isinstance(i, ToolCallOutputItem) for i in data.new_items) == 3
    assert data.last_agent is agent
    assert "3" in str(caught.value)


async def test_max_turns_from_run_config_and_argument_precedence() -> None:
    looping = [[tool_call("add", {"a": i, "b": 1})] for i in range(6)]
    agent = Agent(name="a", model=ScriptedModel(looping), tools=[add])
    with pytest.raises(MaxTurnsExceeded) as caught:
        await Runner.run(agent, "x", run_config=RunConfig(max_turns=2))
    assert caught.value.run_data is not None
    assert len(caught.value.run_data.raw_responses) == 2

    agent = Agent(name="a", model=ScriptedModel(looping), tools=[add])
    with pytest.raises(MaxTurnsExceeded) as caught:
        await Runner.run(agent, "x", max_turns=4, run_config=RunConfig(max_turns=2))
    assert caught.value.run_data is not None
    assert len(caught.value.run_data.raw_responses) == 4


async def test_text_alongside_tool_calls_runs_the_model_again() -> None:
    model = ScriptedModel([[text("Let me add."), tool_call("add", {"a": 1, "b": 2})], ["3"]])
    result = await Runner.run(Agent(name="a", model=model, tools=[add]), "go")
    assert result.final_output == "3"
    assert len(model.requests) == 2


async def test_response_without_message_gives_empty_final_output() -> None:
    model = ScriptedModel([[reasoning("thinking")]])
    result = await Runner.run(Agent(name="a", model=model), "go")
    assert result.final_output == ""
    assert result.new_items[0].type == "reasoning_item"


async def test_sync_and_async_instructions_functions_get_context_and_agent() -> None:
    seen: list[tuple[str, str]] = []

    def sync_instructions(ctx: RunContextWrapper[dict[str, str]], agent: Agent[Any]) -> str:
        seen.append((ctx.context["user"], agent.name))
        return f"Help {ctx.context['user']}."

    async def async_instructions(ctx: RunContextWrapper[dict[str, str]], agent: Agent[Any]) -> str:
        return f"Async help for {ctx.context['user']}."

    instructions_of_each_kind: list[
        tuple[Callable[[RunContextWrapper[Any], Agent[Any]], str | Awaitable[str]], str]
    ] = [
        (sync_instructions, "Help ana."),
        (async_instructions, "Async help for ana."),
    ]
    for instructions, expected in instructions_of_each_kind:
        model = ScriptedModel(["ok"])
        agent = Agent(name="helper", instructions=instructions, model=model)
        await Runner.run(agent, "hi", context={"user": "ana"})
        assert model.requests[0].system_instructions == expected
    assert seen == [("ana", "helper")]


def test_instructions_function_with_wrong_arity_is_refused_at_construction() -> None:
    with pytest.raises(UserError, match=r"must accept exactly 2 arguments") as refused:
        Agent(name="a", instructions=lambda ctx: "x")  # type: ignore[arg-type,misc]
    assert isinstance(refused.value, TypeError)  # the SDK's error type (raised later there)


async def test_instructions_function_returning_a_non_string_is_a_user_error() -> None:
    agent = Agent(
        name="a",
        instructions=lambda ctx, agent: 42,  # type: ignore[arg-type,return-value]
        model=ScriptedModel(["x"]),
    )
    with pytest.raises(UserError, match="returned int"):
        await Runner.run(agent, "hi")


def test_agent_construction_errors_say_what_to_change() -> None:
    with pytest.raises(UserError, match="needs a name"):
        Agent(name="")

    def plain(x: int) -> int:
        return x

    with pytest.raises(UserError, match="Decorate it with @tool"):
        Agent(name="a", tools=[plain])  # type: ignore[list-item]
    with pytest.raises(UserError, match="ModelSettings"):
        Agent(name="a", model_settings={"temperature": 1})  # type: ignore[arg-type]


async def test_runner_rejects_bad_arguments() -> None:
    agent = Agent(name="a", model=ScriptedModel(["x"]))
    with pytest.raises(UserError, match="needs an Agent"):
        await Runner.run("agent", "hi")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="input must be a string"):
        await Runner.run(agent, 42)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="max_turns"):
        await Runner.run(agent, "hi", max_turns=0)


async def test_tools_are_sent_sorted_by_name_and_a_name_is_offered_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def zeta() -> str:
        """Z."""
        return "z"

    @tool
    def alpha() -> str:
        """A."""
        return "a"

    model = ScriptedModel(["done"])
    await Runner.run(Agent(name="a", model=model, tools=[zeta, add, alpha]), "go")
    assert model.requests[0].tool_names == ["add", "alpha", "zeta"]

    @tool(name_override="add")
    def other_add(a: int) -> int:
        """Another add."""
        return a

    # as in the SDK: a warning, and only the last tool of the name is offered and called
    model = ScriptedModel([[tool_call("add", {"a": 5})], ["x"]])
    clash = Agent(name="a", model=model, tools=[add, other_add])
    with caplog.at_level(logging.WARNING, logger="jupyter_agents"):
        result = await Runner.run(clash, "go")
    assert "Agent 'a' has 2 tools named 'add'" in caplog.text
    assert model.requests[0].tool_names == ["add"]
    assert model.requests[1].input[-1]["output"] == "5"  # other_add's answer
    assert result.final_output == "x"
    refuse = RunConfig(tool_name_collision_policy="error")
    with pytest.raises(UserError, match="give each a unique name"):
        await Runner.run(clash, "go", run_config=refuse)
    with pytest.raises(UserError, match="tool_name_collision_policy must be 'warn' or 'error'"):
        RunConfig(tool_name_collision_policy="ignore")  # type: ignore[arg-type]


async def test_a_handoff_wins_over_a_tool_of_its_name() -> None:
    helper = Agent(name="helper", model=ScriptedModel(["from the helper"]))

    @tool(name_override="transfer_to_helper")
    def impostor() -> str:
        """Not a handoff."""
        return "tool"

    model = ScriptedModel([[tool_call("transfer_to_helper")]])
    agent = Agent(name="a", model=model, tools=[impostor], handoffs=[helper])
    result = await Runner.run(agent, "go")
    assert model.requests[0].tool_names == []
    assert model.requests[0].handoff_names == ["transfer_to_helper"]
    assert result.final_output == "from the helper" and result.last_agent is helper


async def test_model_settings_merge_run_config_over_agent() -> None:
    model = ScriptedModel(["x"])
    agent = Agent(name="a", model=model, model_settings=ModelSettings(temperature=0.2, top_p=0.5))
    await Runner.run(agent, "go", run_config=RunConfig(model_settings=ModelSettings(top_p=0.9)))
    settings = model.requests[0].model_settings
    assert (settings.temperature, settings.top_p) == (0.2, 0.9)


async def test_run_config_model_overrides_the_agents_model() -> None:
    agent_model = ScriptedModel(["from agent"])
    run_model = ScriptedModel(["from run config"])
    agent = Agent(name="a", model=agent_model)
    result = await Runner.run(agent, "go", run_config=RunConfig(model=run_model))
    assert result.final_output == "from run config"
    assert agent_model.requests == []


async def test_scripted_model_out_of_turns_fails_clearly() -> None:
    model = ScriptedModel([[tool_call("add", {"a": 1, "b": 2})]])
    with pytest.raises(
        UserError, match="ran out of turns: it was given 1 and the run asked for turn 2"
    ):
        await Runner.run(Agent(name="a", model=model, tools=[add]), "go")


def test_model_settings_validation_and_resolve() -> None:
    with pytest.raises(UserError, match="temperature"):
        ModelSettings(temperature=3)
    base = ModelSettings(temperature=0.1, max_tokens=10)
    assert base.resolve(None) is base
    assert base.resolve(ModelSettings(max_tokens=20)).to_json_dict() == {
        "temperature": 0.1,
        "max_tokens": 20,
    }


def test_clone_applies_changes_and_keeps_the_rest() -> None:
    original = Agent(name="a", instructions="Be brief.", tools=[add])
    copy = original.clone(name="b")
    assert (copy.name, copy.instructions, copy.tools) == ("b", "Be brief.", [add])
    assert original.name == "a"


async def test_rich_reprs_for_notebooks() -> None:
    model = ScriptedModel([[tool_call("add", {"a": 1, "b": 2})], [text("3")]])
    agent = Agent(name="calc", instructions="Add numbers.", model=model, tools=[add])
    assert agent._repr_markdown_().startswith("**Agent** calc · model ScriptedModel")
    assert "<p>Add numbers.</p>" in agent._repr_markdown_()
    result = await Runner.run(agent, "1+2")
    shown = result._repr_markdown_()
    assert "agent calc · 3 items · 2 model calls" in shown
    assert "tools called: add" in shown and "<p>3</p>" in shown


async def test_runner_options_are_one_typed_value_and_unknown_ones_are_refused() -> None:
    from jupyter_agents.runtime.run import RunOptions

    agent = Agent(name="o", model=ScriptedModel([["hi"]]))
    with pytest.raises(UserError, match="unknown option\\(s\\) max_turn;"):
        await Runner.run(agent, "x", max_turn=3)  # type: ignore[call-arg]
    with pytest.raises(UserError, match="unknown option"):
        Runner.run_sync(agent, "x", contxt=1)  # type: ignore[call-arg]
    assert RunOptions.of({"max_turns": 2}).max_turns == 2
    assert (await Runner.run(agent, "x", max_turns=2)).final_output == "hi"
