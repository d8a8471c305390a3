"""Responses items to Chat Completions messages, and chat chunks to Responses events."""

from __future__ import annotations

from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents import UserError
from jupyter_agents.runtime.models._chat_convert import Converter
from jupyter_agents.runtime.models._chat_stream import ChatStreamConverter

IMAGE = "data:image/png;base64,AAAA"


def test_history_with_text_calls_and_outputs() -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Let me check."}],
        },
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "g", "arguments": '{"x":1}'},
        {"type": "reasoning", "summary": []},
        {"type": "function_call_output", "call_id": "a", "output": "A"},
        {"type": "function_call_output", "call_id": "b", "output": "B"},
        {"role": "developer", "content": "be nice"},
    ]
    assert Converter.items_to_messages(items, developer_as_system=True) == [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": "Let me check.",
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "g", "arguments": '{"x":1}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "A"},
        {"role": "tool", "tool_call_id": "b", "content": "B"},
        {"role": "system", "content": "be nice"},
    ]


def test_image_tool_output_follows_after_the_last_tool_message() -> None:
    items: list[dict[str, Any]] = [
        {"type": "function_call", "call_id": "a", "name": "snap", "arguments": "{}"},
        {"type": "function_call", "call_id": "b", "name": "note", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "a",
            "output": [
                {"type": "input_text", "text": "a cat"},
                {"type": "input_image", "image_url": IMAGE, "detail": "low"},
            ],
        },
        {"type": "function_call_output", "call_id": "b", "output": "noted"},
        {"role": "user", "content": "thanks"},
    ]
    messages = Converter.items_to_messages(items, tool_output_attachments=True)
    assert [m["role"] for m in messages] == ["assistant", "tool", "tool", "user", "user"]
    assert messages[1] == {
        "role": "tool",
        "tool_call_id": "a",
        "content": "a cat\n[1 attachment(s) follow after the tool results]",
    }
    assert messages[3]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": IMAGE, "detail": "low"},
    }
    assert messages[4] == {"role": "user", "content": "thanks"}


def test_user_content_parts_and_unsupported_items() -> None:
    messages = Converter.items_to_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": IMAGE},
                ],
            }
        ],
    )
    assert messages[0]["content"][0] == {"type": "text", "text": "look"}
    with pytest.raises(UserError, match="Unhandled item type or structure"):
        Converter.items_to_messages([{"type": "web_search_call", "id": "ws"}])


def chunk(content: str | None = None, calls: list[NS] | None = None, usage: object = None) -> NS:
    delta = NS(content=content, tool_calls=calls)
    return NS(id="chatcmpl-1", choices=[NS(delta=delta)], usage=usage)


def fragment(
    index: int, id: str | None = None, name: str | None = None, arguments: str | None = None
) -> NS:
    return NS(index=index, id=id, function=NS(name=name, arguments=arguments))


def test_stream_converter_assembles_fragments_and_names_split_across_chunks() -> None:
    converter = ChatStreamConverter("m")
    events: list[Any] = []
    for c in [
        chunk(content="Hel"),
        chunk(content="lo"),
        chunk(calls=[fragment(0, id="c1", name="get_", arguments="")]),
        chunk(calls=[fragment(0, name="weather", arguments='{"ci')]),
        chunk(calls=[fragment(1, id="c2", name="other", arguments="{}")]),
        chunk(calls=[fragment(0, arguments='ty": "Paris"}')]),
        NS(
            id="chatcmpl-1",
            choices=[],
            usage=NS(prompt_tokens=5, completion_tokens=7, total_tokens=12),
        ),
    ]:
        events.extend(converter.feed(c))
    events.extend(converter.finish())

    kinds = [e.type for e in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] == "response.completed"
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert deltas == ["Hel", "lo"]
    response = events[-1].response
    message, first, second = response.output
    assert message.content[0].text == "Hello"
    assert (first.name, first.call_id, first.arguments) == (
        "get_weather",
        "c1",
        '{"city": "Paris"}',
    )
    assert (second.name, second.arguments) == ("other", "{}")
    assert response.usage.input_tokens == 5 and response.usage.output_tokens == 7
    done = [e for e in events if e.type == "response.output_item.done"]
    assert [e.output_index for e in done] == [0, 1, 2]
