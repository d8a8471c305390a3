"""What real providers send, replayed byte for byte over HTTP to the three model clients.

Each case replays a recording of ``tests/fixtures/provider_traffic/`` (its README says where
each comes from) with ``jupyter_agents.testing.recorded_server``: the real ``openai`` client
(``OpenAIChatCompletionsModel``, ``OpenAIResponsesModel``) and the real ``litellm`` package
(``LitellmModel``, for Anthropic's Messages API and for OpenAI-compatible providers) parse
exactly what the provider sent, and the server checks what they send back where the provider
does (a failed check fails the test, with the provider's own error as the client's answer).
"""

from __future__ import annotations

import json
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import openai
import pydantic
import pytest
from genai_prices import Usage as PriceUsage
from genai_prices import calc_price

from jupyter_agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    WebSearchTool,
    tool,
)
from jupyter_agents.extensions.models.litellm_model import LitellmModel
from jupyter_agents.runtime.errors import ModelRefusalError
from jupyter_agents.runtime.replay import Cassette
from jupyter_agents.testing.recorded_server import RecordedServer, replay_recording

from ..recorded import json_body

pytestmark = pytest.mark.http

TRAFFIC = Path(__file__).parent.parent / "fixtures" / "provider_traffic"

STREAM = pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
CLIENTS = pytest.mark.parametrize("client", ["chat", "litellm"])


@tool
def get_weather(city: str) -> str:
    """Weather now.

    Args:
        city: City name.
    """
    return f"{city}: sunny, 22 °C"


def recording(name: str, stream: bool) -> Path:
    """The recording ``name`` (``provider/conversation``), or its streamed twin."""
    return TRAFFIC / f"{name}{'_stream' if stream else ''}.json"


def body(name: str) -> Any:
    """A recorded response body (a JSON file of the fixtures)."""
    return json.loads((TRAFFIC / name).read_text(encoding="utf-8"))


def chat_model(server: RecordedServer, name: str) -> OpenAIChatCompletionsModel:
    client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key, max_retries=0)
    return OpenAIChatCompletionsModel(name, openai_client=client)


def model_for(client: str, server: RecordedServer, chat_name: str, litellm_name: str) -> Any:
    if client == "chat":
        return chat_model(server, chat_name)
    return LitellmModel(litellm_name, base_url=server.base_url, api_key=server.api_key)


async def run(agent: Agent[Any], stream: bool, prompt: str = "Weather in Paris?") -> Any:
    if not stream:
        return await Runner.run(agent, prompt)
    result = Runner.run_streamed(agent, prompt)
    kinds = [e.data.type async for e in result.stream_events() if e.type == "raw_response_event"]
    result.raw_kinds = kinds  # type: ignore[attr-defined]
    return result


def reasoning_items(result: Any) -> list[Any]:
    return [item.raw_item for item in result.new_items if item.type == "reasoning_item"]


def reasoning_text(item: Any) -> str:
    """What a reasoning item says, from its summary or its content."""
    parts = [s.text for s in item.summary] or [c.text for c in item.content or ()]
    return "".join(parts)


# --- Reasoning outside the Responses API -------------------------------------------------


@STREAM
@CLIENTS
async def test_deepseek_reasoning_is_kept_and_sent_back_in_a_tool_call_turn(
    client: str, stream: bool
) -> None:
    first, second = body("deepseek/tools.1.json"), body("deepseek/tools.2.json")
    with replay_recording(recording("deepseek/tools", stream)) as server:
        model = model_for(client, server, "deepseek-reasoner", "deepseek/deepseek-reasoner")
        agent = Agent(name="w", model=model, tools=[get_weather])
        result = await run(agent, stream, "Weather in Hangzhou?")
    texts = [reasoning_text(item) for item in reasoning_items(result)]
    assert texts == [
        first["choices"][0]["message"]["reasoning_content"],
        second["choices"][0]["message"]["reasoning_content"],
    ]
    assert result.final_output == second["choices"][0]["message"]["content"]
    usage = result.context_wrapper.usage
    assert usage.input_tokens_details.cached_tokens == 384 + 448
    assert usage.output_tokens_details.reasoning_tokens == 61 + 19
    if stream:
        assert "response.reasoning_summary_text.delta" in result.raw_kinds


REASONING_FIELD = [
    # provider, chat model name, LiteLLM name (None: not through LiteLLM), settings
    (
        "groq",
        "qwen/qwen3-32b",
        "groq/qwen/qwen3-32b",
        {"extra_body": {"reasoning_format": "parsed"}},
    ),
    ("ollama", "gpt-oss:20b", None, {"max_tokens": 512}),
    ("openrouter", "openai/gpt-oss-120b", "openrouter/openai/gpt-oss-120b", {}),
]


@STREAM
@CLIENTS
@pytest.mark.parametrize(
    ("provider", "chat_name", "litellm_name", "settings"),
    REASONING_FIELD,
    ids=[case[0] for case in REASONING_FIELD],
)
async def test_a_reasoning_field_becomes_a_reasoning_item(
    provider: str,
    chat_name: str,
    litellm_name: str | None,
    settings: dict[str, Any],
    client: str,
    stream: bool,
) -> None:
    if client == "litellm" and litellm_name is None:
        pytest.skip(f"{provider} is not reached through LiteLLM's OpenAI-compatible path here")
    message = body(f"{provider}/reasoning.1.json")["choices"][0]["message"]
    with replay_recording(recording(f"{provider}/reasoning", stream)) as server:
        model = model_for(client, server, chat_name, litellm_name or "")
        agent = Agent(name="r", model=model, model_settings=ModelSettings(**settings))
        result = await run(agent, stream, "Answer briefly.")
    (item,) = reasoning_items(result)
    assert reasoning_text(item) == message["reasoning"]
    assert result.final_output == message["content"]


# --- Claude's thinking through LiteLLM ---------------------------------------------------


def claude(server: RecordedServer) -> LitellmModel:
    return LitellmModel(
        "anthropic/claude-sonnet-4-5-20250929", base_url=server.url, api_key=server.api_key
    )


THINKING = ModelSettings(reasoning={"effort": "low"})


@STREAM
async def test_claude_thinking_blocks_go_back_unchanged_with_the_tool_results(
    stream: bool,
) -> None:
    first = body("anthropic/thinking_tools.1.json")
    with replay_recording(recording("anthropic/thinking_tools", stream)) as server:
        agent = Agent(name="c", model=claude(server), tools=[get_weather], model_settings=THINKING)
        result = await run(agent, stream)
    item = reasoning_items(result)[0]
    thinking, redacted = first["content"][:2]
    assert item.provider_data["thinking_blocks"] == [thinking, redacted]
    assert [c.text for c in item.content] == [thinking["thinking"]]
    assert item.encrypted_content == thinking["signature"]  # the SDK's place for signatures
    assert result.final_output == "It's sunny in Paris, 22 °C."


@STREAM
async def test_claude_cache_writes_and_reads_are_in_the_usage_and_the_cost(stream: bool) -> None:
    with replay_recording(recording("anthropic/thinking_tools", stream)) as server:
        agent = Agent(name="c", model=claude(server), tools=[get_weather], model_settings=THINKING)
        result = await run(agent, stream)
    usage = result.context_wrapper.usage
    assert usage.input_tokens == (512 + 1800) + (96 + 1800)  # LiteLLM counts the cache in
    assert usage.input_tokens_details.cache_write_tokens == 1800
    assert usage.input_tokens_details.cached_tokens == 1800
    expected = sum(
        (
            calc_price(
                PriceUsage(
                    input_tokens=tokens,
                    cache_write_tokens=written,
                    cache_read_tokens=read,
                    output_tokens=output,
                ),
                model_ref="claude-sonnet-4-5",
                provider_id="anthropic",
            ).total_price
            for tokens, written, read, output in [(2312, 1800, 0, 146), (1896, 0, 1800, 58)]
        ),
        Decimal(0),
    )
    assert result.cost.usd == expected


async def test_a_recorded_thinking_run_keeps_the_signature_for_its_replay(tmp_path: Path) -> None:
    """A recording (``RunConfig(replay=Cassette(...))``) passes outputs through
    ``redact_secrets``, which hides every field *named* like a secret, ``signature`` among
    them: a replayed thinking block would then be sent back without its signature, and
    Anthropic refuses it. The recording must keep thinking blocks' ``signature`` (and
    Gemini's ``thought_signature``) as they are."""
    thinking = body("anthropic/thinking_tools.1.json")["content"][0]
    cassette = tmp_path / "runs.json"
    with replay_recording(recording("anthropic/thinking_tools", False)) as server:
        agent = Agent(name="c", model=claude(server), tools=[get_weather], model_settings=THINKING)
        config = RunConfig(replay=Cassette(cassette, mode="record"))
        await Runner.run(agent, "Weather in Paris?", run_config=config)
    (run_record,) = json.loads(cassette.read_text())["runs"]
    reasoning = run_record["calls"][0]["output"][0]
    assert reasoning["provider_data"]["thinking_blocks"][0] == thinking


# --- Refusals ----------------------------------------------------------------------------


class Forecast(pydantic.BaseModel):
    city: str
    sky: str


LITELLM_DROPS_STREAMED_REFUSALS = pytest.mark.xfail(
    strict=True,
    reason="LiteLLM's stream wrapper drops chunks whose delta holds only a refusal "
    "(litellm_core_utils/streaming_handler.py is_chunk_non_empty ignores `refusal`)",
)


@pytest.mark.parametrize(
    ("client", "stream"),
    [
        ("chat", False),
        ("chat", True),
        ("litellm", False),
        pytest.param("litellm", True, marks=LITELLM_DROPS_STREAMED_REFUSALS),
    ],
    ids=["chat-plain", "chat-stream", "litellm-plain", "litellm-stream"],
)
async def test_a_chat_refusal_is_a_refusal_not_invalid_json(client: str, stream: bool) -> None:
    refusal = body("openai/refusal.1.json")["choices"][0]["message"]["refusal"]
    with replay_recording(recording("openai/refusal", stream)) as server:
        model = model_for(client, server, "gpt-4o-2024-08-06", "openai/gpt-4o-2024-08-06")
        agent = Agent(name="f", model=model, output_type=Forecast)
        with pytest.raises(ModelRefusalError) as raised:
            await run(agent, stream)
    assert raised.value.refusal == refusal


# --- Token limits, usage details ---------------------------------------------------------


@STREAM
@CLIENTS
async def test_a_reasoning_model_gets_max_completion_tokens(client: str, stream: bool) -> None:
    answer = body("openai/reasoning_model.1.json")["choices"][0]["message"]["content"]
    with replay_recording(recording("openai/reasoning_model", stream)) as server:
        model = model_for(client, server, "o4-mini", "openai/o4-mini")
        agent = Agent(name="m", model=model, model_settings=ModelSettings(max_tokens=2000))
        result = await run(agent, stream, "Sum 1..100.")
    assert result.final_output == answer
    details = result.context_wrapper.usage.input_tokens_details
    assert (details.cached_tokens, details.cache_write_tokens) == (1024, 512)
    assert result.context_wrapper.usage.output_tokens_details.reasoning_tokens == 384


# --- Tool call ids -----------------------------------------------------------------------


@STREAM
@CLIENTS
async def test_empty_tool_call_ids_become_unique_ids(client: str, stream: bool) -> None:
    with replay_recording(recording("gemini/tool_ids", stream)) as server:
        model = model_for(client, server, "gemini-2.5-flash", "openai/gemini-2.5-flash")
        agent = Agent(name="g", model=model, tools=[get_weather])
        result = await run(agent, stream, "Weather in Paris and Rome?")
    calls = [item.raw_item for item in result.new_items if item.type == "tool_call_item"]
    ids = [call.call_id for call in calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    assert result.final_output == "Paris: sunny. Rome: sunny."


# --- The Responses API: values newer than the openai package -----------------------------


@STREAM
async def test_new_web_search_values_are_kept_without_warnings(stream: bool) -> None:
    with replay_recording(recording("openai/web_search", stream)) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key)
        model = OpenAIResponsesModel("gpt-5", openai_client=client)
        agent = Agent(name="s", model=model, tools=[WebSearchTool()])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = await run(agent, stream)
    assert [str(w.message) for w in caught if "PydanticSerialization" in str(w.message)] == []
    (search,) = [i for i in result.new_items if i.type == "tool_call_item"]
    sources = search.to_input_item()["action"]["sources"]
    assert sources[1] == {"type": "api", "name": "oai-weather"}
    details = result.context_wrapper.usage.input_tokens_details
    assert (details.cached_tokens, details.cache_write_tokens) == (4096, 1024)


@STREAM
async def test_an_item_type_newer_than_the_openai_package_is_kept_without_warnings(
    stream: bool,
) -> None:
    with replay_recording(recording("openai/unknown_item", stream)) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=server.api_key)
        agent = Agent(name="u", model=OpenAIResponsesModel("gpt-4.1", openai_client=client))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = await run(agent, stream, "Use Celsius.")
            sent_back = result.raw_responses[0].to_input_items()
    assert [str(w.message) for w in caught if "PydanticSerialization" in str(w.message)] == []
    assert sent_back[0]["type"] == "memory_note"
    assert sent_back[0]["note"] == {"kind": "preference", "text": "Prefers Celsius."}
    assert result.final_output == "Noted: Celsius."


async def test_reasoning_from_a_chat_answer_is_not_sent_to_the_responses_api(
    openai_server: Any,
) -> None:
    """A history written through Chat Completions (a LiteLLM agent's, say) goes to an OpenAI
    Responses agent without what only the other provider understands, as the SDK does."""
    from jupyter_agents.testing.server import text_reply

    openai_server.enqueue(text_reply("ok"))
    client = openai.AsyncOpenAI(base_url=openai_server.base_url, api_key=openai_server.api_key)
    agent = Agent(name="o", model=OpenAIResponsesModel("gpt-4.1", openai_client=client))
    thought = {"model": "anthropic/claude-sonnet-4-5", "thinking_blocks": [{"type": "thinking"}]}
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Weather in Paris?"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "provider_data": thought},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Sunny."}],
            "provider_data": {"model": "anthropic/claude-sonnet-4-5"},
        },
        {"role": "user", "content": "And tomorrow?"},
    ]
    await Runner.run(agent, history)
    sent = json_body(openai_server.model_requests[0])["input"]
    assert [item.get("type", item.get("role")) for item in sent] == ["user", "message", "user"]
    assert all("provider_data" not in item for item in sent)


# --- The replaying server checks what clients send ---------------------------------------


async def test_the_server_fails_a_test_whose_client_sends_the_wrong_request() -> None:
    wrong = pytest.raises(AssertionError, match=r"reasoning_content.*sent back")
    with wrong as raised, replay_recording(recording("deepseek/tools", False)) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0)
        messages: list[Any] = [{"role": "user", "content": "Weather in Hangzhou?"}]
        first = await client.chat.completions.create(model="deepseek-reasoner", messages=messages)
        call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
        messages += [  # without the reasoning_content DeepSeek wants back
            {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
            {"role": "tool", "tool_call_id": call.id, "content": "cloudy"},
        ]
        await client.chat.completions.create(model="deepseek-reasoner", messages=messages)
    assert isinstance(raised.value.__cause__, openai.BadRequestError)  # DeepSeek's own answer
    assert "must be passed back" in str(raised.value.__cause__)
