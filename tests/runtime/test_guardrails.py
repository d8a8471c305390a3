"""Agent guardrails (input, output) and tool guardrails (input, output)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from jupyter_agents import (
    Agent,
    GuardrailFunctionOutput,
    InputGuardrailTripwireTriggered,
    OutputGuardrailTripwireTriggered,
    RunConfig,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailData,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
    input_guardrail,
    output_guardrail,
    tool,
    tool_input_guardrail,
    tool_output_guardrail,
)
from jupyter_agents.runtime.items import ModelResponse
from jupyter_agents.runtime.models.interface import Model
from jupyter_agents.testing import ScriptedModel, text, tool_call


@input_guardrail
def no_homework(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
    text_in = input if isinstance(input, str) else str(input)
    return GuardrailFunctionOutput(
        output_info={"checked": True}, tripwire_triggered="homework" in text_in
    )


async def test_input_guardrail_passes_and_its_result_is_kept() -> None:
    agent = Agent(name="a", model=ScriptedModel(["hi"]), input_guardrails=[no_homework])
    result = await Runner.run(agent, "hello")
    assert result.final_output == "hi"
    (check,) = result.input_guardrail_results
    assert check.output.output_info == {"checked": True} and not check.output.tripwire_triggered


class SlowModel(Model):
    """A model that waits until cancelled (to see a parallel guardrail cancel it)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        raise AssertionError("unreachable")

    async def stream_response(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError
        yield


async def test_a_parallel_input_guardrail_trip_cancels_the_model_call() -> None:
    model = SlowModel()

    @input_guardrail
    async def waits_for_model(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        await asyncio.wait_for(model.started.wait(), timeout=5)  # runs alongside the model
        return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    agent = Agent(name="a", model=model, input_guardrails=[waits_for_model])
    with pytest.raises(InputGuardrailTripwireTriggered) as caught:
        await Runner.run(agent, "hi")
    assert caught.value.guardrail_result.output.output_info == "blocked"
    assert model.cancelled.is_set()


async def test_sequential_input_guardrail_runs_before_the_model() -> None:
    @input_guardrail(run_in_parallel=False)
    def block(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(None, tripwire_triggered=True)

    model = ScriptedModel(["never"])
    with pytest.raises(InputGuardrailTripwireTriggered):
        await Runner.run(Agent(name="a", model=model, input_guardrails=[block]), "hi")
    assert model.requests == []


async def test_guardrails_run_concurrently() -> None:
    arrived: list[str] = []
    meet = asyncio.Event()

    def make(name: str) -> Any:
        @input_guardrail(name=name)
        async def guard(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
            arrived.append(name)
            if len(arrived) == 2:
                meet.set()
            await asyncio.wait_for(meet.wait(), timeout=5)  # deadlocks unless concurrent
            return GuardrailFunctionOutput(name, False)

        return guard

    agent = Agent(name="a", model=ScriptedModel(["ok"]), input_guardrails=[make("g1")])
    result = await Runner.run(agent, "hi", run_config=RunConfig(input_guardrails=[make("g2")]))
    assert sorted(r.output.output_info for r in result.input_guardrail_results) == ["g1", "g2"]


@pytest.mark.parametrize("stream", [False, True])
async def test_input_guardrail_results_come_in_finishing_order_up_to_a_tripwire(
    stream: bool,
) -> None:
    first_done = asyncio.Event()
    never = asyncio.Event()

    @input_guardrail(name="slow")
    async def slow(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        await first_done.wait()
        return GuardrailFunctionOutput("slow", False)

    @input_guardrail(name="fast")
    async def fast(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        first_done.set()
        return GuardrailFunctionOutput("fast", False)

    agent = Agent(name="a", model=ScriptedModel(["ok"]), input_guardrails=[slow, fast])
    if stream:
        streamed = Runner.run_streamed(agent, "hi")
        async for _ in streamed.stream_events():
            pass
        results = streamed.input_guardrail_results
    else:
        results = (await Runner.run(agent, "hi")).input_guardrail_results
    assert [r.output.output_info for r in results] == ["fast", "slow"]

    @input_guardrail(name="trip")
    async def trip(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput("trip", True)

    @input_guardrail(name="stuck")
    async def stuck(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        await never.wait()  # cancelled once the other one trips
        return GuardrailFunctionOutput("stuck", False)

    blocked = Agent(name="b", model=ScriptedModel(["ok"]), input_guardrails=[stuck, trip])
    with pytest.raises(InputGuardrailTripwireTriggered) as raised:
        await Runner.run(blocked, "hi")
    assert raised.value.guardrail_result.output.output_info == "trip"


async def test_input_guardrails_apply_to_the_first_agent_only() -> None:
    calls: list[str] = []

    @input_guardrail
    def record(ctx: Any, agent: Agent, input: Any) -> GuardrailFunctionOutput:
        calls.append(agent.name)
        return GuardrailFunctionOutput(None, False)

    second = Agent(name="second", model=ScriptedModel(["done"]), input_guardrails=[record])
    first = Agent(
        name="first",
        model=ScriptedModel([[tool_call("transfer_to_second")]]),
        input_guardrails=[record],
        handoffs=[second],
    )
    await Runner.run(first, "hi")
    assert calls == ["first"]


async def test_output_guardrail_trips_on_the_final_output() -> None:
    @output_guardrail
    async def no_secrets(ctx: Any, agent: Agent, output: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput({"len": len(output)}, tripwire_triggered="secret" in output)

    ok = await Runner.run(
        Agent(name="a", model=ScriptedModel(["fine"]), output_guardrails=[no_secrets]), "x"
    )
    assert ok.output_guardrail_results[0].output.output_info == {"len": 4}
    with pytest.raises(OutputGuardrailTripwireTriggered) as caught:
        await Runner.run(
            Agent(name="a", model=ScriptedModel(["the secret is 42"])),
            "x",
            run_config=RunConfig(output_guardrails=[no_secrets]),
        )
    assert caught.value.guardrail_result.agent_output == "the secret is 42"


def test_guardrail_misuse() -> None:
    with pytest.raises(UserError, match="three arguments"):
        input_guardrail(lambda ctx: None)  # type: ignore[arg-type,misc]
    with pytest.raises(UserError, match="input_guardrails holds"):
        Agent(name="a", input_guardrails=[lambda c, a, i: None])  # type: ignore[list-item]


# -- tool guardrails ------------------------------------------------------------------------


ran: list[str] = []


@tool_input_guardrail
def block_root(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    if "root" in data.context.tool_arguments:
        return ToolGuardrailFunctionOutput.reject_content("Deleting root is not allowed.")
    if "panic" in data.context.tool_arguments:
        return ToolGuardrailFunctionOutput.raise_exception(output_info="panic")
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
async def redact(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
    if "password" in str(data.output):
        return ToolGuardrailFunctionOutput.reject_content("[redacted]")
    if "token" in str(data.output):
        return ToolGuardrailFunctionOutput.allow(replacement="token=***")
    if "leak" in str(data.output):
        return ToolGuardrailFunctionOutput.raise_exception()
    return ToolGuardrailFunctionOutput.allow()


@tool(tool_input_guardrails=[block_root], tool_output_guardrails=[redact])
def delete(path: str) -> str:
    """Delete a path."""
    ran.append(path)
    return {"a": "deleted a", "pw": "password=1", "tk": "token=abc", "lk": "leak"}.get(path, "ok")


async def run_delete(*paths: str) -> Any:
    ran.clear()
    model = ScriptedModel([[tool_call("delete", {"path": p}) for p in paths], [text("done")]])
    return await Runner.run(Agent(name="a", model=model, tools=[delete]), "x")


async def test_tool_guardrails_allow_reject_and_replace() -> None:
    result = await run_delete("a", "/root", "pw", "tk")
    outputs = [i.raw_item["output"] for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs == ["deleted a", "Deleting root is not allowed.", "[redacted]", "token=***"]
    assert ran == ["a", "pw", "tk"]  # the rejected call never ran
    inputs = sorted(r.output.behavior["type"] for r in result.tool_input_guardrail_results)
    assert inputs == ["allow", "allow", "allow", "reject_content"]
    behaviors = sorted(r.output.behavior["type"] for r in result.tool_output_guardrail_results)
    assert behaviors == ["allow", "allow", "reject_content"]


async def test_tool_guardrails_can_stop_the_run() -> None:
    with pytest.raises(ToolInputGuardrailTripwireTriggered) as caught:
        await run_delete("panic")
    assert caught.value.output.output_info == "panic" and ran == []
    with pytest.raises(ToolOutputGuardrailTripwireTriggered):
        await run_delete("lk")
    assert ran == ["lk"]
