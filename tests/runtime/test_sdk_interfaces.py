"""Code written for the OpenAI Agents SDK's interfaces runs here: a custom model with the SDK's
``Model`` signature, ``ScriptedModel`` scripted with the SDK's steps, an awaited
``RunState.from_json``, and the SDK's tool and settings switches (issue 42)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    Runner,
    RunState,
    ToolTimeoutError,
    UserError,
    function_tool,
)
from jupyter_agents.model_settings import MCPToolChoice
from jupyter_agents.models.interface import Model
from jupyter_agents.testing import (
    ModelScriptError,
    ModelStep,
    UnconsumedModelSteps,
    UnexpectedModelCall,
    assistant_message,
    function_call,
)
from jupyter_agents.testing import ScriptedModel as Scripted


class SdkSignatureModel(Model):
    """A model written to the SDK's interface: the three keyword arguments required."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any | None,
    ) -> ModelResponse:
        self.seen.append({"prompt": prompt, "previous_response_id": previous_response_id})
        return ModelResponse(output=[assistant_message("hi")], response_id="r1")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


class OldModel(SdkSignatureModel):
    """A model written before prompts: its methods take no ``prompt``."""

    async def get_response(  # type: ignore[override]
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None = None,
        conversation_id: str | None = None,
    ) -> ModelResponse:
        return ModelResponse(output=[assistant_message("old")])


async def test_a_model_written_to_the_sdks_interface_gets_all_three_keyword_arguments() -> None:
    model = SdkSignatureModel()
    result = await Runner.run(Agent(name="a", model=model), "hello")
    assert result.final_output == "hi"
    assert model.seen == [{"prompt": None, "previous_response_id": None}]


async def test_a_model_without_a_prompt_parameter_still_runs() -> None:
    result = await Runner.run(Agent(name="a", model=OldModel()), "hello")
    assert result.final_output == "old"


@function_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_scripted_model_plays_the_sdks_steps_and_records_the_calls() -> None:
    model = Scripted()
    model.enqueue([function_call("add", {"a": 1, "b": 2}, call_id="c1")])
    model.extend([{"output": [assistant_message("3")]}])
    result = await Runner.run(Agent(name="a", model=model, tools=[add]), "1+2?")
    assert result.final_output == "3"
    assert model.remaining_steps == 0
    model.assert_complete()
    assert [c.streamed for c in model.calls] == [False, False]
    first = model.first_call
    assert first is not None and first.input == [{"role": "user", "content": "1+2?"}]
    last = model.last_call
    assert last is not None and any(i.get("type") == "function_call_output" for i in last.input)


async def test_a_step_may_answer_from_the_call_and_be_streamed() -> None:
    model = Scripted(
        steps=[ModelStep.respond(lambda call: [assistant_message(f"{len(call.tools)} tools")])]
    )
    streamed = Runner.run_streamed(Agent(name="a", model=model, tools=[add]), "hi")
    async for _ in streamed.stream_events():
        pass
    assert streamed.final_output == "1 tools"


async def test_a_script_that_runs_out_or_is_left_over_says_so() -> None:
    model = Scripted([ModelStep(output=[assistant_message("one")])])
    agent = Agent(name="a", model=model)
    await Runner.run(agent, "hi")
    with pytest.raises(UnexpectedModelCall) as ran_out:
        await Runner.run(agent, "again")
    assert isinstance(ran_out.value, UserError)  # as this project's own turns running out
    assert ran_out.value.call_index == 1
    leftover = Scripted([ModelStep(output=[assistant_message("unused")])])
    with pytest.raises(UnconsumedModelSteps):
        leftover.assert_complete()
    with pytest.raises(ModelScriptError, match="unsupported fields"):
        Scripted([{"outputs": []}])


async def test_an_awaited_from_json_and_a_dict_give_the_paused_state() -> None:
    @function_tool(needs_approval=True)
    def send() -> str:
        """Send."""
        return "sent"

    model = Scripted([[function_call("send", {}, call_id="c1")], [assistant_message("done")]])
    agent = Agent(name="a", model=model, tools=[send])
    paused = await Runner.run(agent, "go")
    saved = paused.to_state().to_json()
    state = await RunState.from_json(agent, saved)
    assert isinstance(state, RunState)
    assert isinstance(saved, dict)  # the SDK's shape; to_string() is the text
    again = RunState.from_json(agent, paused.to_state().to_string())
    assert [i.call_id for i in again.interruptions] == ["c1"]
    state.approve(state.interruptions[0])
    assert (await Runner.run(agent, state)).final_output == "done"


def test_the_sdks_tool_and_settings_switches_are_accepted() -> None:
    @function_tool(defer_loading=True)
    def lookup() -> str:
        """Look up."""
        return "x"

    assert lookup.defer_loading is True
    choice = MCPToolChoice(server_label="docs", name="search")
    assert ModelSettings(tool_choice=choice).tool_choice == choice


async def test_a_tool_out_of_time_ends_the_run_or_tells_the_model_as_it_says() -> None:
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    ending = function_tool(timeout=0.05, timeout_behavior="raise_exception")(slow)
    telling = function_tool(
        timeout=0.05, timeout_error_function=lambda ctx, error: f"gave up: {error}"
    )(slow)
    assert ending.timeout_seconds == 0.05
    for made, expected in ((ending, None), (telling, "gave up: Tool 'slow' timed out")):
        model = Scripted([[function_call("slow", {}, call_id="c1")], [assistant_message("ok")]])
        agent = Agent(name="a", model=model, tools=[made])
        if expected is None:
            with pytest.raises(ToolTimeoutError, match=r"timed out after 0\.05 seconds"):
                await Runner.run(agent, "go")
            continue
        result = await Runner.run(agent, "go")
        (output,) = [i for i in result.new_items if i.type == "tool_call_output_item"]
        assert str(output.output).startswith(expected)
    with pytest.raises(UserError, match="timeout_behavior"):
        function_tool(timeout_behavior="explode")(slow)  # type: ignore[call-overload]
