"""The rules behind what the model clients send providers, as tables: the token limit's field,
what a reasoning item sends back to which model, and the replaying server's request checks."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_agents.runtime.models._chat_convert import Converter
from jupyter_agents.runtime.models._chat_request import token_limit_field
from jupyter_agents.testing._recording import check_failures, values_at


@pytest.mark.parametrize(
    ("model", "base_url", "field"),
    [
        ("o4-mini", None, "max_completion_tokens"),
        ("o1", "http://localhost:8000/v1", "max_completion_tokens"),  # an Azure deployment, say
        ("o3-pro-2025-06-10", None, "max_completion_tokens"),
        ("gpt-5", None, "max_completion_tokens"),
        ("gpt-5.1-mini", None, "max_completion_tokens"),
        ("gpt-4.1", "https://api.openai.com/v1", "max_completion_tokens"),  # OpenAI: always
        ("gpt-4.1", "http://localhost:11434/v1", "max_tokens"),
        ("gpt-4o", None, "max_tokens"),
        ("openai/o3", "https://openrouter.ai/api/v1", "max_tokens"),  # routers translate
        ("llama3.2", "http://localhost:11434/v1", "max_tokens"),
        ("olmo-2", None, "max_tokens"),
    ],
)
def test_the_token_limit_field_each_model_takes(
    model: str, base_url: str | None, field: str
) -> None:
    assert token_limit_field(model, base_url) == field


CLAUDE = "anthropic/claude-sonnet-4-5"
BLOCKS = [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "redacted_thinking"}]


def thinking(origin: str | None = CLAUDE) -> dict[str, Any]:
    data: dict[str, Any] = {"thinking_blocks": BLOCKS}
    if origin is not None:
        data["model"] = origin
    summary = [{"type": "summary_text", "text": "t"}]
    return {"type": "reasoning", "summary": summary, "provider_data": data}


def deepseek(origin: str | None = "deepseek-reasoner") -> dict[str, Any]:
    summary = [{"type": "summary_text", "text": "thought"}]
    data = {"model": origin} if origin is not None else None
    item: dict[str, Any] = {"type": "reasoning", "summary": summary}
    if data is not None:
        item["provider_data"] = data
    return item


def reasoning_field(origin: str) -> dict[str, Any]:
    data = {"model": origin, "_chat_completions_reasoning_field": "reasoning"}
    content = [{"type": "reasoning_text", "text": "thought"}]
    return {"type": "reasoning", "summary": [], "content": content, "provider_data": data}


@pytest.mark.parametrize(
    ("item", "model", "takes_blocks", "sent"),
    [
        (thinking(), CLAUDE, True, {"thinking_blocks": BLOCKS}),
        (thinking(origin=None), CLAUDE, True, {"thinking_blocks": BLOCKS}),
        (thinking(), "anthropic/claude-opus-4-1", True, {}),  # another model's signatures
        (thinking(), CLAUDE, False, {}),  # a client without thinking_blocks
        (deepseek(), "deepseek-reasoner", False, {"reasoning_content": "thought"}),
        (deepseek(), "deepseek/deepseek-chat", True, {"reasoning_content": "thought"}),
        (deepseek(origin=None), "deepseek-reasoner", False, {"reasoning_content": "thought"}),
        (deepseek(), "gpt-4o", False, {}),
        (deepseek(origin="qwen/qwen3-32b"), "deepseek-reasoner", False, {}),
        (reasoning_field("gpt-oss:20b"), "gpt-oss:20b", False, {"reasoning": "thought"}),
        (reasoning_field("gpt-oss:20b"), "qwen3:8b", False, {}),
    ],
)
def test_what_a_reasoning_item_sends_back(
    item: dict[str, Any], model: str, takes_blocks: bool, sent: dict[str, Any]
) -> None:
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    messages = Converter.items_to_messages(
        [item, call], model=model, preserve_thinking_blocks=takes_blocks
    )
    assert len(messages) == 1
    added = {k: v for k, v in messages[0].items() if k not in ("role", "content", "tool_calls")}
    assert added == sent


REQUEST = {
    "max_tokens": 5,
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "b"}]},
        {"role": "tool", "tool_call_id": "a"},
        {"role": "tool", "tool_call_id": "b"},
    ],
}


@pytest.mark.parametrize(
    ("path", "found"),
    [
        ("max_tokens", [5]),
        ("messages.0.role", ["user"]),
        ("messages.-1.tool_call_id", ["b"]),
        ("messages.[role=assistant].tool_calls.*.id", ["a", "b"]),
        ("messages.[role=tool].tool_call_id", ["a", "b"]),
        ("messages.9.role", []),
        ("nothing.here", []),
    ],
)
def test_a_check_path_finds_values(path: str, found: list[Any]) -> None:
    assert values_at(REQUEST, path) == found


@pytest.mark.parametrize(
    ("check", "fails"),
    [
        ({"at": "max_tokens", "equals": 5}, False),
        ({"at": "max_tokens", "equals": 6}, True),
        ({"at": "max_completion_tokens", "absent": True}, False),
        ({"at": "max_tokens", "absent": True}, True),
        ({"at": "max_completion_tokens", "present": True}, True),
        ({"at": "messages.[role=assistant].tool_calls.*.id", "distinct": True}, False),
        ({"at": "messages.[role=user].content", "distinct": True}, False),
        (
            {
                "at": "messages.[role=tool].tool_call_id",
                "same_as": "messages.[role=assistant].tool_calls.*.id",
            },
            False,
        ),
        ({"at": "messages.[role=tool].tool_call_id", "same_as": "messages.0.role"}, True),
    ],
)
def test_a_request_check_holds_or_fails(check: dict[str, Any], fails: bool) -> None:
    assert bool(check_failures(REQUEST, [check])) == fails
