"""The OpenAI models end to end: the real openai client over HTTP against a local server."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest

from jupyter_agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIProvider,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    UserError,
    WebSearchTool,
    set_default_openai_api,
    set_default_openai_client,
    tool,
)
from jupyter_agents.runtime.models.provider import get_default_openai_api
from jupyter_agents.runtime.retry import ModelRetryPolicy
from jupyter_agents.testing.server import (
    FakeOpenAIServer,
    Reply,
    ReplyError,
    ReplyHang,
    ReplyText,
    ReplyToolCall,
    text_reply,
)

from ..recorded import json_bodies, json_body

pytestmark = pytest.mark.http


@tool
def get_weather(city: str, days: int = 1) -> str:
    """Weather forecast.

    Args:
        city: City name.
        days: How many days.
    """
    return f"{city}: sunny for {days} day(s)"


def client_for(server: FakeOpenAIServer, **kwargs: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=server.base_url, api_key=server.api_key, max_retries=0, **kwargs
    )


def make_model(kind: str, server: FakeOpenAIServer) -> Any:
    cls = OpenAIResponsesModel if kind == "responses" else OpenAIChatCompletionsModel
    return cls("gpt-test", openai_client=client_for(server))


async def run(
    agent: Agent, stream: bool, prompt: str = "Weather in Paris?", config: Any = None
) -> Any:
    if not stream:
        return await Runner.run(agent, prompt, run_config=config)
    result = Runner.run_streamed(agent, prompt, run_config=config)
    deltas = []
    async for event in result.stream_events():
        if event.type == "raw_response_event" and event.data.type == "response.output_text.delta":
            deltas.append(event.data.delta)
    result.deltas = deltas  # type: ignore[attr-defined]
    return result


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_tool_round_trip(openai_server: FakeOpenAIServer, kind: str, stream: bool) -> None:
    openai_server.enqueue(
        Reply(
            [ReplyToolCall("get_weather", {"city": "Paris", "days": 2}, call_id="call_1")],
            usage=(30, 10),
            chunk_size=3,
        ),
        Reply([ReplyText("Sunny in Paris for two days.")], usage=(50, 8), chunk_size=5),
    )
    agent = Agent(
        name="w",
        instructions="Be brief.",
        model=make_model(kind, openai_server),
        tools=[get_weather],
    )

    result = await run(agent, stream)

    assert result.final_output == "Sunny in Paris for two days."
    assert result.new_items[1].output == "Paris: sunny for 2 day(s)"
    usage = result.context_wrapper.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (2, 80, 18)
    if stream:
        assert len(result.deltas) > 1
        assert "".join(result.deltas) == "Sunny in Paris for two days."
    first, second = json_bodies(openai_server.model_requests)
    assert first["model"] == "gpt-test" and first.get("stream", False) == stream
    if kind == "responses":
        assert first["instructions"] == "Be brief."
        assert first["input"] == [{"role": "user", "content": "Weather in Paris?"}]
        (sent_tool,) = first["tools"]
        assert sent_tool["type"] == "function" and sent_tool["strict"] is True
        assert sent_tool["parameters"]["required"] == ["city", "days"]
        assert second["input"][-1] == {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": "Paris: sunny for 2 day(s)",
        }
    else:
        assert first["messages"] == [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
        ]
        assert first["tools"][0]["function"]["name"] == "get_weather"
        if stream:
            assert first["stream_options"] == {"include_usage": True}
        assistant, tool_message = second["messages"][-2:]
        assert assistant["tool_calls"][0]["id"] == "call_1"
        assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {
            "city": "Paris",
            "days": 2,
        }
        assert tool_message == {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "Paris: sunny for 2 day(s)",
        }


async def test_chat_stream_assembles_fragmented_interleaved_tool_calls(
    openai_server: FakeOpenAIServer,
) -> None:
    long_city = "Llanfairpwllgwyngyll"
    openai_server.enqueue(
        Reply(
            [
                ReplyToolCall("get_weather", {"city": long_city, "days": 3}, call_id="a"),
                ReplyToolCall("get_weather", {"city": "Rome", "days": 1}, call_id="b"),
            ],
            chunk_size=2,
            interleave_tool_calls=True,
        ),
        text_reply("Both sunny."),
    )
    agent = Agent(name="w", model=make_model("chat", openai_server), tools=[get_weather])
    result = await run(agent, stream=True)
    outputs = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    assert outputs == [f"{long_city}: sunny for 3 day(s)", "Rome: sunny for 1 day(s)"]
    calls = [i.raw_item for i in result.new_items if i.type == "tool_call_item"]
    assert [c.call_id for c in calls] == ["a", "b"]


@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_reasoning_and_cached_token_details(
    openai_server: FakeOpenAIServer, kind: str
) -> None:
    openai_server.enqueue(
        Reply(
            [ReplyText("ok")],
            usage=(100, 20),
            cached_tokens=40,
            reasoning_tokens=12,
            reasoning="thought about it",
        )
    )
    result = await Runner.run(Agent(name="r", model=make_model(kind, openai_server)), "hi")
    usage = result.context_wrapper.usage
    assert usage.input_tokens_details.cached_tokens == 40
    assert usage.output_tokens_details.reasoning_tokens == 12
    if kind == "responses":
        assert result.new_items[0].type == "reasoning_item"


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize(
    ("status", "error"), [(429, openai.RateLimitError), (500, openai.InternalServerError)]
)
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_http_errors_surface_as_openai_errors(
    openai_server: FakeOpenAIServer, kind: str, status: int, error: type, stream: bool
) -> None:
    openai_server.enqueue(ReplyError(status, "slow down" if status == 429 else "boom"))
    agent = Agent(name="e", model=make_model(kind, openai_server))
    no_retries = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))
    with pytest.raises(error):
        await run(agent, stream, config=no_retries)


async def test_chat_completions_leave_out_hosted_tools_with_a_warning(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(text_reply("ok"))
    agent = Agent(
        name="c", model=make_model("chat", openai_server), tools=[get_weather, WebSearchTool()]
    )
    with pytest.warns(UserWarning, match="left out: web_search"):
        await Runner.run(agent, "hi")
    (request,) = openai_server.model_requests
    assert [t["function"]["name"] for t in json_body(request)["tools"]] == ["get_weather"]


async def test_responses_sends_hosted_tools_and_settings(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(text_reply("ok"))
    agent = Agent(
        name="c",
        model=make_model("responses", openai_server),
        tools=[get_weather, WebSearchTool()],
        model_settings=ModelSettings(
            temperature=0.3,
            max_tokens=99,
            tool_choice="get_weather",
            parallel_tool_calls=False,
            extra_body={"custom": 1},
        ),
    )
    await Runner.run(agent, "hi")
    body = json_body(openai_server.model_requests[0])
    assert [t["type"] for t in body["tools"]] == ["function", "web_search"]
    assert body["temperature"] == 0.3 and body["max_output_tokens"] == 99
    assert body["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert body["parallel_tool_calls"] is False and body["custom"] == 1


async def test_cancelling_a_streamed_run_closes_the_http_stream(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(ReplyHang())
    result = Runner.run_streamed(
        Agent(name="h", model=make_model("responses", openai_server)), "hi"
    )
    consumer = asyncio.create_task(_drain(result))
    await asyncio.to_thread(openai_server.wait_for_requests, 1)
    result.cancel()
    await asyncio.wait_for(consumer, timeout=5)
    assert result.is_cancelled


async def _drain(result: Any) -> None:
    async for _ in result.stream_events():
        pass


def test_model_names_work_across_event_loops(openai_server: FakeOpenAIServer) -> None:
    """Successive asyncio.run calls and run_sync reuse one provider without stale pools."""
    provider = OpenAIProvider(base_url=openai_server.base_url, api_key=openai_server.api_key)
    config = RunConfig(model_provider=provider)
    agent = Agent(name="loops", model="gpt-test")
    openai_server.enqueue("one", "two", "three", "four")

    assert asyncio.run(Runner.run(agent, "1", run_config=config)).final_output == "one"
    assert asyncio.run(Runner.run(agent, "2", run_config=config)).final_output == "two"
    assert Runner.run_sync(agent, "3", run_config=config).final_output == "three"

    async def inside_a_loop() -> object:
        return Runner.run_sync(agent, "4", run_config=config).final_output

    assert asyncio.run(inside_a_loop()) == "four"


def test_a_default_client_is_reused_safely_on_other_loops(openai_server: FakeOpenAIServer) -> None:
    set_default_openai_client(client_for(openai_server))
    set_default_openai_api("chat_completions")
    openai_server.enqueue("a", "b")
    agent = Agent(name="d", model="gpt-test")
    assert asyncio.run(Runner.run(agent, "1")).final_output == "a"
    assert asyncio.run(Runner.run(agent, "2")).final_output == "b"
    assert [r.path for r in openai_server.model_requests] == ["/v1/chat/completions"] * 2


def test_api_choice_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    assert get_default_openai_api() == "responses"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    assert get_default_openai_api() == "chat_completions"
    monkeypatch.setenv("JUPYTER_AGENTS_OPENAI_API", "responses")
    assert get_default_openai_api() == "responses"
    set_default_openai_api("chat_completions")
    assert get_default_openai_api() == "chat_completions"
    with pytest.raises(UserError, match="Unknown OpenAI API"):
        set_default_openai_api("completions")  # type: ignore[arg-type]
    assert isinstance(OpenAIProvider().get_model("m"), OpenAIChatCompletionsModel)
    assert isinstance(OpenAIProvider(use_responses=True).get_model("m"), OpenAIResponsesModel)


def test_env_configured_local_server_is_used_by_default(
    openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.api_key)
    monkeypatch.setenv("OPENAI_DEFAULT_MODEL", "local-llama")
    openai_server.enqueue("hello from the local server")
    result = Runner.run_sync(Agent(name="local"), "hi")
    assert result.final_output == "hello from the local server"
    request = openai_server.model_requests[0]
    assert request.path == "/v1/chat/completions" and json_body(request)["model"] == "local-llama"


async def test_missing_api_key_is_a_clear_user_error() -> None:
    with pytest.raises(UserError, match="No OpenAI API key: set OPENAI_API_KEY"):
        await Runner.run(Agent(name="nokey"), "hi")


FAST_RETRIES = RunConfig(model_retry=ModelRetryPolicy(max_attempts=3, initial_delay=0.01))


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
async def test_rate_limits_and_server_errors_are_retried(
    openai_server: FakeOpenAIServer, stream: bool
) -> None:
    openai_server.enqueue(
        ReplyError(429, "slow down", retry_after=0.01), ReplyError(500, "oops"), "Finally."
    )
    agent = Agent(name="r", model=make_model("responses", openai_server))
    result = await run(agent, stream, config=FAST_RETRIES)
    assert result.final_output == "Finally."
    assert len(openai_server.model_requests) == 3
    assert result.context_wrapper.usage.requests == 1


async def test_the_final_error_says_what_was_tried(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(*(ReplyError(503, f"down {i}") for i in range(3)))
    agent = Agent(name="r", model=make_model("chat", openai_server))
    with pytest.raises(openai.InternalServerError) as caught:
        await Runner.run(agent, "hi", run_config=FAST_RETRIES)
    notes = " ".join(getattr(caught.value, "__notes__", []))
    assert "model call failed 3 times" in notes and "HTTP 503" in notes
    assert len(openai_server.model_requests) == 3


async def test_client_errors_are_not_retried(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ReplyError(400, "bad request", type_="invalid_request_error"))
    agent = Agent(name="r", model=make_model("responses", openai_server))
    with pytest.raises(openai.BadRequestError):
        await Runner.run(agent, "hi", run_config=FAST_RETRIES)
    assert len(openai_server.model_requests) == 1


async def test_a_stream_that_broke_after_delivering_is_not_retried(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.enqueue(Reply([ReplyText("partial answer here")], abort_after_events=6))
    agent = Agent(name="r", model=make_model("responses", openai_server))
    result = Runner.run_streamed(agent, "hi", run_config=FAST_RETRIES)
    with pytest.raises(openai.APIError):
        async for _ in result.stream_events():
            pass
    assert len(openai_server.model_requests) == 1


@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_structured_output_and_handoffs_on_the_wire(
    openai_server: FakeOpenAIServer, kind: str
) -> None:
    import pydantic

    class Answer(pydantic.BaseModel):
        city: str

    openai_server.enqueue('{"city": "Paris"}')
    helper = Agent(name="helper")
    agent = Agent(
        name="s", model=make_model(kind, openai_server), output_type=Answer, handoffs=[helper]
    )
    result = await Runner.run(agent, "where?")
    assert result.final_output == Answer(city="Paris")
    body = json_body(openai_server.model_requests[0])
    if kind == "responses":
        fmt = body["text"]["format"]
        # Named final_output, as the SDK names every structured output.
        assert (fmt["type"], fmt["name"], fmt["strict"]) == ("json_schema", "final_output", True)
        assert fmt["schema"]["required"] == ["city"]
        assert body["tools"][0]["name"] == "transfer_to_helper"
    else:
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "final_output"
        assert body["tools"][0]["function"]["name"] == "transfer_to_helper"


NO_RETRIES = RunConfig(model_retry=ModelRetryPolicy(max_attempts=1))


@pytest.mark.parametrize("given_client", [False, True], ids=["provider", "user-client"])
async def test_one_retry_layer_max_attempts_1_sends_one_request(
    openai_server: FakeOpenAIServer, given_client: bool
) -> None:
    """The openai client's own retries (2 by default) are off: RunConfig.model_retry alone."""
    openai_server.enqueue(*(ReplyError(503, f"down {i}") for i in range(3)))
    if given_client:  # a client built with the openai package's defaults (max_retries=2)
        client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key=openai_server.api_key)
        model: Any = OpenAIChatCompletionsModel("gpt-test", openai_client=client)
    else:
        provider = OpenAIProvider(base_url=openai_server.base_url, api_key=openai_server.api_key)
        model = provider.get_model("gpt-test")
    with pytest.raises(openai.InternalServerError):
        await Runner.run(Agent(name="r", model=model), "hi", run_config=NO_RETRIES)
    assert len(openai_server.model_requests) == 1
    openai_server.reset()  # the two replies a second layer of retries would have taken


async def test_model_settings_timeout_bounds_one_request(openai_server: FakeOpenAIServer) -> None:
    openai_server.enqueue(ReplyHang())
    agent = Agent(
        name="t",
        model=make_model("responses", openai_server),
        model_settings=ModelSettings(timeout=0.3),
    )
    with pytest.raises(openai.APITimeoutError):
        await asyncio.wait_for(Runner.run(agent, "hi", run_config=NO_RETRIES), timeout=30)
    with pytest.raises(UserError, match="timeout must be a positive number"):
        ModelSettings(timeout=0)
