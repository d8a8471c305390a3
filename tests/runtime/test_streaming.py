"""Streamed runs: event order and names, live deltas, cancellation, errors."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
)

from jupyter_agents import (
    Agent,
    MaxTurnsExceeded,
    RawResponsesStreamEvent,
    Runner,
    RunResultStreaming,
    StreamEvent,
    UserError,
    tool,
)
from jupyter_agents.testing import ModelStep, ScriptedModel, reasoning, text, tool_call


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return key.upper()


def summarize(event: StreamEvent) -> str:
    if event.type == "raw_response_event":
        return event.data.type
    if event.type == "run_item_stream_event":
        return f"item:{event.name}"
    if event.type == "agent_updated_stream_event":
        return f"agent:{event.new_agent.name}"
    return event.type


async def collect(result: RunResultStreaming) -> list[str]:
    return [summarize(event) async for event in result.stream_events()]


async def test_event_order_and_names_for_a_tool_round_trip() -> None:
    model = ScriptedModel(
        [[reasoning("plan"), tool_call("lookup", {"key": "k"})], [text("Done")]], chunk_size=100
    )
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[lookup]), "go")

    events = await collect(result)

    assert events == [
        "agent:s",
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
        "item:reasoning_item_created",  # the response's items once it is complete, as the SDK
        "item:tool_called",
        "item:tool_output",
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
        "item:message_output_created",
    ]
    assert result.is_complete and result.final_output == "Done"
    assert result.current_turn == 2 and result.max_turns == 10
    assert [i.type for i in result.new_items] == [
        "reasoning_item",
        "tool_call_item",
        "tool_call_output_item",
        "message_output_item",
    ]
    assert result.context_wrapper.usage.requests == 2


async def test_text_deltas_reach_the_consumer_before_the_response_completes() -> None:
    model = ScriptedModel([[text("Hello streaming world")]], chunk_size=3)
    result = Runner.run_streamed(Agent(name="s", model=model), "go")
    deltas: list[str] = []
    async for event in result.stream_events():
        if (
            isinstance(event, RawResponsesStreamEvent)
            and event.data.type == "response.output_text.delta"
        ):
            deltas.append(event.data.delta)
            # The run is still in progress while deltas arrive.
            assert not result.is_complete and result.final_output is None
    assert len(deltas) == 7
    assert "".join(deltas) == "Hello streaming world"
    assert result.final_output == "Hello streaming world"


async def test_streamed_and_plain_runs_produce_the_same_items() -> None:
    def script() -> ScriptedModel:
        return ScriptedModel([[tool_call("lookup", {"key": "a"}, call_id="c")], [text("A")]])

    plain = await Runner.run(Agent(name="s", model=script(), tools=[lookup]), "go")
    streamed = Runner.run_streamed(Agent(name="s", model=script(), tools=[lookup]), "go")
    await collect(streamed)
    assert streamed.final_output == plain.final_output
    assert streamed.to_input_list() == plain.to_input_list()


async def test_cancel_immediate_while_a_tool_runs_cancels_the_tool() -> None:
    tool_started = asyncio.Event()
    tool_cancelled = asyncio.Event()

    @tool
    async def slow() -> str:
        """Never finishes on its own."""
        tool_started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            tool_cancelled.set()
            raise
        return "unreachable"

    model = ScriptedModel([[tool_call("slow")], [text("never")]])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[slow]), "go")

    async def consume() -> list[str]:
        return await collect(result)

    consumer = asyncio.create_task(consume())
    await asyncio.wait_for(tool_started.wait(), timeout=5)
    result.cancel()
    events = await asyncio.wait_for(consumer, timeout=5)

    assert tool_cancelled.is_set()
    assert "item:tool_output" not in events
    assert result.is_complete and result.is_cancelled
    assert result.final_output is None
    assert len(model.requests) == 1
    assert not consumer.cancelled()
    # Nothing of the unfinished turn is kept: no call without its output.
    assert result.new_items == []
    assert result.to_input_list() == [{"role": "user", "content": "go"}]
    assert result.context_wrapper.usage.requests == 1  # the tokens were spent all the same


async def test_cancel_from_inside_the_consumer_stops_at_once() -> None:
    model = ScriptedModel([[text("a long answer that streams in many pieces")]], chunk_size=2)
    result = Runner.run_streamed(Agent(name="s", model=model), "go")
    deltas = 0
    async for event in result.stream_events():
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta":
            deltas += 1
            if deltas == 3:
                result.cancel()
    assert deltas == 3
    assert result.is_cancelled and result.final_output is None


async def test_cancel_after_turn_finishes_the_turn_then_stops() -> None:
    model = ScriptedModel([[tool_call("lookup", {"key": "x"})], [text("never")]])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[lookup]), "go")
    events = []
    async for event in result.stream_events():
        events.append(summarize(event))
        if events[-1] == "item:tool_called":
            result.cancel(mode="after_turn")
    assert events[-1] == "item:tool_output"
    assert len(model.requests) == 1
    assert result.is_cancelled
    assert [i.type for i in result.new_items] == ["tool_call_item", "tool_call_output_item"]


async def test_cancel_from_another_thread_is_handed_to_the_runs_loop() -> None:
    started = asyncio.Event()

    @tool
    async def wait_forever() -> str:
        """Waits."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    model = ScriptedModel([[tool_call("wait_forever")]])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[wait_forever]), "go")
    consumer = asyncio.create_task(collect(result))
    await asyncio.wait_for(started.wait(), timeout=5)
    await asyncio.to_thread(result.cancel)
    await asyncio.wait_for(consumer, timeout=5)
    assert result.is_cancelled


async def test_errors_are_raised_from_the_iteration() -> None:
    model = ScriptedModel([[tool_call("lookup", {"key": str(i)})] for i in range(3)])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[lookup]), "go", max_turns=2)
    with pytest.raises(MaxTurnsExceeded):
        await collect(result)
    assert result.is_complete


async def test_stream_events_can_be_iterated_only_once() -> None:
    result = Runner.run_streamed(Agent(name="s", model=ScriptedModel(["x"])), "go")
    await collect(result)
    with pytest.raises(UserError, match="only once"):
        await collect(result)


async def test_a_model_error_mid_stream_propagates() -> None:
    model = ScriptedModel([RuntimeError("connection dropped")])
    result = Runner.run_streamed(Agent(name="s", model=model), "go")
    with pytest.raises(RuntimeError, match="connection dropped"):
        await collect(result)


def _finished_one_by_one(items: list[Any], final: list[Any]) -> ModelStep:
    """A streamed step sending each item finished at output index 0 (as some providers do),
    then a response.completed whose output is ``final``."""
    response = Response(
        id="r",
        created_at=0,
        model="m",
        object="response",
        output=final,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
    )
    done = [
        ResponseOutputItemDoneEvent(
            type="response.output_item.done", item=item, output_index=0, sequence_number=n
        )
        for n, item in enumerate(items)
    ]
    completed = ResponseCompletedEvent(
        type="response.completed", response=response, sequence_number=len(items)
    )
    return ModelStep.stream([*done, completed])


def _message(value: str) -> ResponseOutputMessage:
    part = ResponseOutputText(type="output_text", text=value, annotations=[])
    return ResponseOutputMessage(
        type="message", id="m", role="assistant", status="completed", content=[part]
    )


def _call(call_id: str, key: str) -> ResponseFunctionToolCall:
    arguments = json.dumps({"key": key})
    return ResponseFunctionToolCall(
        type="function_call", call_id=call_id, name="lookup", arguments=arguments
    )


async def test_items_finished_one_by_one_are_the_output_when_the_response_has_none() -> None:
    calls = [_call("c1", "a"), _call("c2", "b")]
    model = ScriptedModel([_finished_one_by_one(calls, []), [text("done")]])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[lookup]), "go")
    announced = [
        e.item.raw_item
        async for e in result.stream_events()
        if e.type == "run_item_stream_event" and e.name == "tool_called"
    ]
    assert announced == calls  # each once, though both came at output index 0
    assert result.raw_responses[0].output == calls
    outputs = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs == ["A", "B"]
    assert result.final_output == "done"


async def test_the_completed_response_output_wins_over_the_items_streamed() -> None:
    model = ScriptedModel([_finished_one_by_one([_call("c1", "a")], [_message("done")])])
    result = Runner.run_streamed(Agent(name="s", model=model, tools=[lookup]), "go")
    async for _ in result.stream_events():
        pass
    assert [i.type for i in result.new_items] == ["message_output_item"]
    assert result.final_output == "done"
