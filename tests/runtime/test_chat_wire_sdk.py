"""The Chat Completions wire at the SDK's module paths: ``Converter``, ``ChatCmplStreamHandler``,
``ChatCmplHelpers``, the reasoning replay hook, ``LitellmConverter``; and the models using them."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from types import SimpleNamespace as NS
from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessage
from openai.types.chat.chat_completion_chunk import (
    Choice,
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)

from jupyter_agents import ModelBehaviorError, ModelSettings, UserError
from jupyter_agents.models.chatcmpl_converter import Converter
from jupyter_agents.models.chatcmpl_helpers import HEADERS, HEADERS_OVERRIDE, ChatCmplHelpers
from jupyter_agents.models.chatcmpl_stream_handler import ChatCmplStreamHandler
from jupyter_agents.models.fake_id import FAKE_RESPONSES_ID
from jupyter_agents.models.openai_client_utils import (
    is_official_openai_base_url,
    is_official_openai_client,
)
from jupyter_agents.models.reasoning_content_replay import ReasoningContentReplayContext
from jupyter_agents.runtime.models._chat_request import CONTENT_FILTERED, chat_params, chat_response
from jupyter_agents.runtime.models.interface import ModelRequest
from jupyter_agents.runtime.usage import Usage

CALL = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "", "id": "fc"}
TEXT = {
    "id": "m1",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Let me look."}],
}
IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}


def test_a_turn_is_one_assistant_message_whatever_the_order_of_its_items() -> None:
    output = {"type": "function_call_output", "call_id": "c1", "output": "4"}
    streamed = Converter.items_to_messages([CALL, TEXT, output])
    assert streamed == Converter.items_to_messages([TEXT, CALL, output])
    assert streamed[0] == {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    }


def test_tool_output_media_is_left_out_kept_or_attached(caplog: pytest.LogCaptureFixture) -> None:
    output = {"type": "function_call_output", "call_id": "c1", "output": [IMAGE]}
    with caplog.at_level(logging.WARNING, logger="openai.agents"):
        assert Converter.items_to_messages([output])[0]["content"] == "[tool output omitted]"
    assert "placeholder" in caplog.text
    with pytest.raises(UserError, match="cannot be empty or contain only non-text"):
        Converter.items_to_messages([output], strict_feature_validation=True)
    kept = Converter.items_to_messages([output], preserve_tool_output_all_content=True)
    assert kept[0]["content"][0]["type"] == "image_url"
    attached = Converter.items_to_messages([output], tool_output_attachments=True)
    assert [m["role"] for m in attached] == ["tool", "user"]
    assert attached[1]["content"][1]["image_url"]["url"] == IMAGE["image_url"]


def test_developer_messages_stay_developer_unless_asked() -> None:
    item = {"role": "developer", "content": "be brief"}
    assert Converter.items_to_messages([item])[0]["role"] == "developer"
    assert Converter.items_to_messages([item], developer_as_system=True)[0]["role"] == "system"


def test_a_replay_hook_decides_what_reasoning_goes_back() -> None:
    reasoning = {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "think"}],
        "provider_data": {"model": "m"},
    }
    seen: list[ReasoningContentReplayContext] = []

    def hook(context: ReasoningContentReplayContext) -> bool:
        seen.append(context)
        return True

    items: list[Any] = [reasoning, CALL]
    assert "reasoning_content" not in Converter.items_to_messages(items, model="m")[0]
    message = Converter.items_to_messages(
        items, model="m", base_url="http://x/v1/", should_replay_reasoning_content=hook
    )[0]
    assert message["reasoning_content"] == "think"
    assert (seen[0].model, seen[0].base_url, seen[0].reasoning.origin_model) == (
        "m",
        "http://x/v1",
        "m",
    )


def test_an_answer_becomes_items_with_the_sdks_ids_and_provider_data() -> None:
    message = ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": "hi",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                    "extra_content": {"google": {"thought_signature": "sig"}},
                }
            ],
        }
    )
    text, call = Converter.message_to_output_items(message, {"model": "gemini-3"})
    assert text.id == call.id == FAKE_RESPONSES_ID
    assert call.model_dump()["provider_data"] == {"model": "gemini-3", "thought_signature": "sig"}
    back = Converter.items_to_messages([call.model_dump()], model="gemini-3")
    assert back[0]["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": "sig"}}


def completion(message: dict[str, Any], finish_reason: str) -> Any:
    msg = ChatCompletionMessage.model_validate({"role": "assistant", **message})
    return NS(id="r", choices=[NS(message=msg, finish_reason=finish_reason)], usage=None)


def test_a_filtered_or_cut_empty_answer_is_a_refusal_or_an_error() -> None:
    (item,) = chat_response(completion({"content": ""}, "content_filter"), "m").output
    assert item.content[0].refusal == CONTENT_FILTERED
    assert item.id != FAKE_RESPONSES_ID  # the models' items get ids of their own
    assert chat_response(completion({"content": ""}, "length"), "m").output == []
    with pytest.raises(ModelBehaviorError, match="finish_reason='length'"):
        chat_response(completion({"content": ""}, "length"), "m", raise_on_length=True)


def chunk(delta: ChoiceDelta, finish_reason: Any = None) -> ChatCompletionChunk:
    return ChatCompletionChunk(
        id="k",
        created=0,
        model="m",
        object="chat.completion.chunk",
        choices=[Choice(index=0, delta=delta, finish_reason=finish_reason)],
    )


def fragment(arguments: str, name: str | None = None) -> ChoiceDeltaToolCall:
    function = ChoiceDeltaToolCallFunction(name=name, arguments=arguments)
    return ChoiceDeltaToolCall(index=0, id="c" if name else None, function=function)


async def events(chunks: list[ChatCompletionChunk], **options: Any) -> list[Any]:
    async def stream() -> AsyncIterator[ChatCompletionChunk]:
        for c in chunks:
            yield c

    response = NS(id="resp", model="m")
    handled = ChatCmplStreamHandler.handle_stream(response, stream(), model="m", **options)
    return [event async for event in handled]


async def test_a_stream_without_a_finish_reason_is_an_error_where_one_is_required() -> None:
    chunks = [chunk(ChoiceDelta(content="partial"))]
    assert (await events(chunks))[-1].type == "response.completed"
    with pytest.raises(ModelBehaviorError, match="before receiving a finish_reason"):
        await events(chunks, require_finish_reason=True)
    filtered = await events([chunk(ChoiceDelta(), "content_filter")])
    (message,) = filtered[-1].response.output
    assert message.content[0].refusal == CONTENT_FILTERED
    assert filtered[-1].response.id == "resp"


async def test_buffered_tool_calls_come_whole_after_the_other_chunks() -> None:
    async def stream() -> AsyncIterator[ChatCompletionChunk]:
        yield chunk(ChoiceDelta(tool_calls=[fragment('{"a"', name="f")]))
        yield chunk(ChoiceDelta(content="x", tool_calls=[fragment(": 1}")]))
        yield chunk(ChoiceDelta(), "tool_calls")

    seen = [c async for c in ChatCmplStreamHandler.buffer_tool_call_stream(stream())]
    assert [c.choices[0].delta.content for c in seen] == ["x", None, None]
    assert seen[1].choices[0].finish_reason == "tool_calls"
    (call,) = seen[2].choices[0].delta.tool_calls
    assert (call.id, call.function.name, call.function.arguments) == ("c", "f", '{"a": 1}')


def test_official_openai_urls_and_clients() -> None:
    assert is_official_openai_base_url("https://api.openai.com/v1/")
    assert not is_official_openai_base_url("https://api.openai.com.example/v1")
    assert not is_official_openai_base_url("http://api.openai.com/v1")
    official: Any = NS(base_url="https://api.openai.com/v1")
    assert is_official_openai_client(official)
    assert not is_official_openai_client(NS())  # type: ignore[arg-type]
    assert ChatCmplHelpers.clean_gemini_tool_call_id("c__thought__x", "gemini/g") == "c"


def test_requests_carry_the_user_agent_and_its_override() -> None:
    request = ModelRequest(None, "hi", ModelSettings(), [])
    assert chat_params("m", request, set(), False)["extra_headers"] == HEADERS
    token = HEADERS_OVERRIDE.set({"User-Agent": "mine"})
    try:
        assert chat_params("m", request, set(), False)["extra_headers"] == {"User-Agent": "mine"}
    finally:
        HEADERS_OVERRIDE.reset(token)


def test_litellm_messages_become_openai_messages() -> None:
    from jupyter_agents.extensions.models.litellm_model import LitellmConverter

    call = NS(
        id="c__thought__abc",
        function=NS(name="f", arguments="{}"),
        provider_specific_fields={"thought_signature": "sig"},
    )
    fields: dict[str, Any] = {
        "role": "assistant",
        "content": "",
        "tool_calls": [call],
        "provider_specific_fields": {"refusal": "no"},
        "reasoning_content": "why",
        "thinking_blocks": None,
    }
    message = NS(**fields, get=lambda name, default=None: fields.get(name, default))
    converted = LitellmConverter.convert_message_to_openai(message, model="gemini/g")
    assert (converted.refusal, converted.reasoning_content) == ("no", "why")
    assert converted.tool_calls is not None
    (tool_call,) = converted.tool_calls
    assert tool_call.id == "c"
    assert tool_call.extra_content == {"google": {"thought_signature": "sig"}}  # type: ignore[union-attr]
    with pytest.raises(ModelBehaviorError, match="Unsupported role"):
        LitellmConverter.convert_message_to_openai(NS(role="user"))


def test_a_request_that_reported_no_tokens_has_no_usage_entry() -> None:
    total = Usage()
    total.add(Usage(requests=1))
    total.add(Usage(requests=1, input_tokens=2, output_tokens=1, total_tokens=3))
    assert total.requests == 2
    assert [entry.total_tokens for entry in total.request_usage_entries] == [3]


class _Completions:
    def __init__(self) -> None:
        self.sent: dict[str, Any] = {}

    async def create(self, **params: Any) -> Any:
        self.sent = params
        return completion({"content": "done"}, "stop")


@pytest.mark.parametrize(
    ("base_url", "role"),
    [("https://api.openai.com/v1/", "developer"), ("http://localhost:11434/v1/", "system")],
)
async def test_the_chat_model_sends_through_the_converter(base_url: str, role: str) -> None:
    from jupyter_agents.models.openai_chatcompletions import OpenAIChatCompletionsModel

    completions = _Completions()
    client: Any = NS(chat=NS(completions=completions), base_url=base_url)
    contexts: list[ReasoningContentReplayContext] = []

    def hook(context: ReasoningContentReplayContext) -> bool:
        contexts.append(context)
        return False

    model = OpenAIChatCompletionsModel("m", client, should_replay_reasoning_content=hook)
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "t"}]}
    items: list[Any] = [{"role": "developer", "content": "be brief"}, reasoning, CALL]
    response = await model.respond(ModelRequest("sys", items, ModelSettings(), []))
    assert response.output[0].content[0].text == "done"
    messages = completions.sent["messages"]
    assert [m["role"] for m in messages] == ["system", role, "assistant"]
    assert contexts[0].base_url == base_url.rstrip("/")
    strict = OpenAIChatCompletionsModel("m", client, strict_feature_validation=True)
    with pytest.raises(UserError, match="Reusable prompts"):
        await strict.respond(ModelRequest(None, "hi", ModelSettings(), [], prompt={"id": "p"}))


def test_requests_always_name_stream() -> None:
    """``stream`` is in every request, False included (LiteLLM and wrappers read it)."""
    request = ModelRequest(None, "hi", ModelSettings(), [])
    assert chat_params("m", request, set(), False)["stream"] is False
    streamed = chat_params("m", request, set(), True)
    assert streamed["stream"] is True and streamed["stream_options"] == {"include_usage": True}
