"""Tests for `jupyter_agents.testing.server`, driven by the real `openai` client over HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionTool, FunctionToolParam

from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyError,
    ReplyHang,
    ReplyText,
    ReplyToolCall,
    fake_openai_server,
    text_reply,
    tool_call_reply,
)

pytestmark = pytest.mark.http

WEATHER_PARAMETERS: dict[str, object] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
WEATHER_TOOL_RESPONSES: FunctionToolParam = {
    "type": "function",
    "name": "get_weather",
    "description": "Look up the weather.",
    "parameters": WEATHER_PARAMETERS,
    "strict": True,
}
WEATHER_TOOL_CHAT: ChatCompletionFunctionToolParam = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": WEATHER_PARAMETERS,
    },
}
MESSAGES: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with fake_openai_server() as running:
        yield running


@pytest.fixture
async def client(server: FakeOpenAIServer) -> AsyncIterator[openai.AsyncOpenAI]:
    # Strict validation makes the SDK check every payload against its pydantic models.
    async with openai.AsyncOpenAI(
        base_url=server.base_url,
        api_key=server.api_key,
        max_retries=0,
        _strict_response_validation=True,
    ) as async_client:
        yield async_client


@pytest.fixture
def sync_client(server: FakeOpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=server.base_url,
        api_key=server.api_key,
        max_retries=0,
        _strict_response_validation=True,
    ) as sync:
        yield sync


def server_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("FakeOpenAIServer")]


# --- Responses API -------------------------------------------------------------------


async def test_responses_text_reply(server: FakeOpenAIServer, client: openai.AsyncOpenAI) -> None:
    server.enqueue(text_reply("Hello!", usage=(30, 5)))

    response = await client.responses.create(model="gpt-test", input="Hi")

    assert response.output_text == "Hello!"
    assert response.model == "gpt-test"
    assert response.status == "completed"
    assert response.usage is not None
    assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 5)
    assert response.usage.total_tokens == 35
    assert response.usage.input_tokens_details.cached_tokens == 0


async def test_responses_tool_call_reasoning_and_usage_details(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(
        Reply(
            outputs=[
                ReplyToolCall("get_weather", {"city": "Paris"}),
                ReplyToolCall("get_weather", '{"city": "Rome"}', call_id="call_rome"),
            ],
            reasoning="Two cities, two calls.",
            cached_tokens=4,
            reasoning_tokens=3,
        )
    )

    response = await client.responses.create(
        model="gpt-test", input="Weather?", tools=[WEATHER_TOOL_RESPONSES]
    )

    reasoning, paris, rome = response.output
    assert reasoning.type == "reasoning"
    assert reasoning.summary[0].text == "Two cities, two calls."
    assert paris.type == "function_call" and rome.type == "function_call"
    assert (paris.name, json.loads(paris.arguments)) == ("get_weather", {"city": "Paris"})
    assert paris.call_id == "call_0001_0"
    assert (rome.call_id, rome.arguments) == ("call_rome", '{"city": "Rome"}')
    assert isinstance(response.tools[0], FunctionTool)
    assert response.tools[0].name == "get_weather"
    assert response.usage is not None
    assert response.usage.input_tokens_details.cached_tokens == 4
    assert response.usage.output_tokens_details.reasoning_tokens == 3


async def test_responses_stream_event_sequence(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    text = "The weather in Paris is sunny."
    reply = Reply(
        outputs=[ReplyText(text), ReplyToolCall("get_weather", {"city": "Paris"})],
        reasoning="Look it up.",
        chunk_size=5,
    )
    server.enqueue(reply, reply)

    stream = await client.responses.create(model="gpt-test", input="Hi", stream=True)
    events = [event async for event in stream]
    expected_full = await client.responses.create(model="gpt-test", input="Hi")

    types = [event.type for event in events]
    text_deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    arg_deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert types == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.reasoning_summary_part.added",
        *["response.reasoning_summary_text.delta"] * 3,
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
        "response.output_item.done",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * len(text_deltas),
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added",
        *["response.function_call_arguments.delta"] * len(arg_deltas),
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [event.sequence_number for event in events] == list(range(len(events)))
    assert len(text_deltas) > 1 and "".join(text_deltas) == text
    assert json.loads("".join(arg_deltas)) == {"city": "Paris"}
    completed = events[-1]
    assert completed.type == "response.completed"
    assert completed.response.output_text == text
    assert [item.type for item in completed.response.output] == [
        item.type for item in expected_full.output
    ]


def test_responses_stream_helper_accumulates(
    server: FakeOpenAIServer, sync_client: openai.OpenAI
) -> None:
    server.enqueue(
        Reply(outputs=[ReplyText("Sunny and warm."), ReplyToolCall("get_weather", {"c": 1})])
    )

    with sync_client.responses.stream(model="gpt-test", input="Hi") as stream:
        for _ in stream:
            pass
        final = stream.get_final_response()

    assert final.output_text == "Sunny and warm."
    assert final.output[1].type == "function_call"
    assert final.output[1].arguments == '{"c": 1}'


# --- Chat Completions ----------------------------------------------------------------


async def test_chat_completion_text_tool_calls_and_usage(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(
        Reply(
            outputs=[ReplyText("Checking."), ReplyToolCall("get_weather", {"city": "Paris"})],
            usage=(40, 10),
            reasoning_tokens=2,
        ),
        "Plain answer.",
    )

    with_tools = await client.chat.completions.create(
        model="gpt-test", messages=MESSAGES, tools=[WEATHER_TOOL_CHAT]
    )
    plain = await client.chat.completions.create(model="gpt-test", messages=MESSAGES)

    choice = with_tools.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Checking."
    assert choice.message.tool_calls is not None
    (call,) = choice.message.tool_calls
    assert call.type == "function"
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Paris"}
    assert with_tools.usage is not None
    assert (with_tools.usage.prompt_tokens, with_tools.usage.completion_tokens) == (40, 10)
    assert with_tools.usage.total_tokens == 50
    assert with_tools.usage.completion_tokens_details is not None
    assert with_tools.usage.completion_tokens_details.reasoning_tokens == 2
    assert plain.choices[0].finish_reason == "stop"
    assert plain.choices[0].message.content == "Plain answer."
    assert plain.choices[0].message.tool_calls is None


async def test_chat_stream_reassembles_fragmented_interleaved_tool_calls(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    paris = {"city": "Paris", "units": "celsius"}
    rome = {"city": "Rome", "units": "kelvin"}
    server.enqueue(
        Reply(
            outputs=[
                ReplyText("Let me check both."),
                ReplyToolCall("get_weather", paris),
                ReplyToolCall("get_weather", rome),
            ],
            chunk_size=6,
            interleave_tool_calls=True,
        )
    )

    stream = await client.chat.completions.create(
        model="gpt-test", messages=MESSAGES, tools=[WEATHER_TOOL_CHAT], stream=True
    )
    chunks = [chunk async for chunk in stream]

    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    calls: dict[int, dict[str, Any]] = {}
    fragments: dict[int, int] = {}
    order: list[int] = []
    for chunk in chunks:
        for delta in chunk.choices[0].delta.tool_calls or []:
            order.append(delta.index)
            call = calls.setdefault(delta.index, {"id": None, "name": None, "arguments": ""})
            call["id"] = call["id"] or delta.id
            if delta.function and delta.function.name:
                call["name"] = delta.function.name
            if delta.function and delta.function.arguments:
                call["arguments"] += delta.function.arguments
                fragments[delta.index] = fragments.get(delta.index, 0) + 1
    assert content == "Let me check both."
    assert json.loads(calls[0]["arguments"]) == paris
    assert json.loads(calls[1]["arguments"]) == rome
    assert calls[0]["name"] == calls[1]["name"] == "get_weather"
    assert calls[0]["id"] != calls[1]["id"]
    assert fragments[0] > 1 and fragments[1] > 1
    assert order[:4] == [0, 1, 0, 1]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    assert all(chunk.usage is None for chunk in chunks)


async def test_chat_stream_include_usage_sends_final_usage_chunk(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(Reply(outputs=[ReplyText("Hi there")], usage=(7, 3), cached_tokens=5))

    stream = await client.chat.completions.create(
        model="gpt-test",
        messages=MESSAGES,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = [chunk async for chunk in stream]

    *content_chunks, usage_chunk = chunks
    assert usage_chunk.choices == []
    assert usage_chunk.usage is not None
    assert (usage_chunk.usage.prompt_tokens, usage_chunk.usage.completion_tokens) == (7, 3)
    assert usage_chunk.usage.prompt_tokens_details is not None
    assert usage_chunk.usage.prompt_tokens_details.cached_tokens == 5
    assert all(chunk.usage is None for chunk in content_chunks)
    assert content_chunks[-1].choices[0].finish_reason == "stop"
    assert "".join(c.choices[0].delta.content or "" for c in content_chunks) == "Hi there"


def test_chat_stream_helper_accumulates(
    server: FakeOpenAIServer, sync_client: openai.OpenAI
) -> None:
    server.enqueue(tool_call_reply("get_weather", {"city": "Oslo"}, call_id="call_oslo"))

    with sync_client.chat.completions.stream(
        model="gpt-test", messages=MESSAGES, tools=[WEATHER_TOOL_CHAT]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()

    (call,) = final.choices[0].message.tool_calls or []
    assert call.id == "call_oslo"
    assert json.loads(call.function.arguments) == {"city": "Oslo"}


# --- Errors --------------------------------------------------------------------------


async def test_rate_limit_error_carries_retry_after(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(
        ReplyError(429, "Slow down.", retry_after=2, type_="requests", code="rate_limit_exceeded")
    )

    with pytest.raises(openai.RateLimitError) as caught:
        await client.responses.create(model="gpt-test", input="Hi")

    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.body == {
        "message": "Slow down.",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }


async def test_server_error_on_streaming_chat(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(ReplyError(500, "Boom."))

    with pytest.raises(openai.InternalServerError, match="Boom"):
        await client.chat.completions.create(model="gpt-test", messages=MESSAGES, stream=True)


async def test_client_retry_honours_retry_after(server: FakeOpenAIServer) -> None:
    server.enqueue(ReplyError(503, "Overloaded.", retry_after=0.01), "Recovered.")

    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key=server.api_key, max_retries=1
    ) as retrying:
        response = await retrying.responses.create(model="gpt-test", input="Hi")

    assert response.output_text == "Recovered."
    assert len(server.model_requests) == 2


async def test_empty_queue_is_a_clear_500(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    with pytest.raises(openai.InternalServerError, match="no scripted reply left") as caught:
        await client.responses.create(model="gpt-test", input="Hi")

    assert "POST /v1/responses" in caught.value.message
    assert [r.path for r in server.requests] == ["/v1/responses"]


async def test_wrong_api_key_is_rejected_without_consuming_a_reply(
    server: FakeOpenAIServer,
) -> None:
    server.enqueue("Never sent.")

    async with openai.AsyncOpenAI(
        base_url=server.base_url, api_key="wrong", max_retries=0
    ) as wrong:
        with pytest.raises(openai.AuthenticationError, match=r"api_key=server\.api_key"):
            await wrong.responses.create(model="gpt-test", input="Hi")

    assert server.pending_replies == 1
    server.reset()


async def test_broken_stream_raises_connection_error(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(Reply(outputs=[ReplyText("Never finished.")], abort_after_events=3))

    stream = await client.responses.create(model="gpt-test", input="Hi", stream=True)
    seen: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        async for event in stream:
            seen.append(event.type)

    assert seen == ["response.created", "response.in_progress", "response.output_item.added"]


# --- Recording and synchronisation ---------------------------------------------------


async def test_requests_are_recorded(server: FakeOpenAIServer, client: openai.AsyncOpenAI) -> None:
    server.enqueue("One.", "Two.")

    await client.responses.create(
        model="gpt-test", input="Weather?", instructions="Be brief.", tools=[WEATHER_TOOL_RESPONSES]
    )
    await client.chat.completions.create(
        model="gpt-chat", messages=MESSAGES, tools=[WEATHER_TOOL_CHAT]
    )
    models = await client.models.list()

    first, second, third = server.requests
    assert (first.method, first.path) == ("POST", "/v1/responses")
    assert first.headers["authorization"] == f"Bearer {server.api_key}"
    assert first.body is not None
    assert first.body["model"] == "gpt-test"
    assert first.body["input"] == "Weather?"
    assert first.body["instructions"] == "Be brief."
    assert first.body["tools"] == [WEATHER_TOOL_RESPONSES]
    assert not first.stream
    assert second.path == "/v1/chat/completions"
    assert second.body is not None
    assert second.body["messages"] == MESSAGES
    assert second.body["tools"] == [WEATHER_TOOL_CHAT]
    assert (third.method, third.path, third.body) == ("GET", "/v1/models", None)
    assert [m.id for m in models.data] == ["gpt-fake"]
    assert server.model_requests == [first, second]


async def test_concurrent_requests_each_get_one_reply(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(*[f"Reply {n}" for n in range(8)])

    responses = await asyncio.gather(
        *[client.responses.create(model="gpt-test", input=str(n)) for n in range(8)]
    )

    assert sorted(r.output_text for r in responses) == sorted(f"Reply {n}" for n in range(8))
    assert server.pending_replies == 0
    assert len({r.id for r in responses}) == 8


async def test_hanging_request_can_be_cancelled(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI
) -> None:
    server.enqueue(ReplyHang(), "After the hang.")

    task = asyncio.create_task(client.responses.create(model="gpt-test", input="Hi"))
    requests = await asyncio.to_thread(server.wait_for_requests, 1)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    follow_up = await client.responses.create(model="gpt-test", input="Again")

    assert requests[0].path == "/v1/responses"
    assert follow_up.output_text == "After the hang."


def test_stop_ends_hanging_request_and_threads() -> None:
    server = FakeOpenAIServer().start()
    server.enqueue(ReplyHang())
    errors: list[BaseException] = []

    def call() -> None:
        with openai.OpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0) as sync:
            try:
                sync.responses.create(model="gpt-test", input="Hi")
            except openai.APIConnectionError as error:
                errors.append(error)

    caller = threading.Thread(target=call)
    caller.start()
    server.wait_for_requests(1)
    server.stop()
    caller.join(timeout=5)

    assert not caller.is_alive()
    assert len(errors) == 1
    assert server_threads() == []
    server.stop()  # idempotent


async def test_client_disconnect_mid_stream_is_quiet(
    server: FakeOpenAIServer, client: openai.AsyncOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = replace(text_reply("a long, slowly streamed answer"), delay_between_chunks=30)
    server.enqueue(slow)

    stream = await client.responses.create(model="gpt-test", input="Hi", stream=True)
    first = await stream.__anext__()
    await stream.close()

    assert first.type == "response.created"
    server.stop()
    assert server_threads() == []
    assert capsys.readouterr().err == ""


def test_wait_for_requests_times_out(server: FakeOpenAIServer) -> None:
    with pytest.raises(TimeoutError, match="received 0 request"):
        server.wait_for_requests(1, timeout=0.01)


# --- Construction and lifecycle ------------------------------------------------------


def test_invalid_replies_fail_at_construction() -> None:
    with pytest.raises(ValueError, match="400-599"):
        ReplyError(200, "not an error")
    with pytest.raises(ValueError, match="chunk_size"):
        Reply(outputs=[ReplyText("x")], chunk_size=0)
    with pytest.raises(TypeError, match="ReplyText"):
        Reply(outputs=["plain string"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="Cannot enqueue"), FakeOpenAIServer() as server:
        server.enqueue(42)  # type: ignore[arg-type]


def test_fake_openai_server_reports_unused_replies() -> None:
    with pytest.raises(AssertionError, match="1 scripted reply"), fake_openai_server() as server:
        server.enqueue("unused")
    with fake_openai_server(allow_unused_replies=True) as lenient:
        lenient.enqueue("unused")
    assert server_threads() == []


def test_lifecycle_errors() -> None:
    server = FakeOpenAIServer()
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url
    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert server.running
    assert not server.running
    with pytest.raises(RuntimeError, match="started once"):
        server.start()
