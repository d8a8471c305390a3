"""The fake Anthropic Messages API on the wire (``jupyter_agents.testing.anthropic_server``),
read with plain httpx: what LiteLLM (or Anthropic's own client) parses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from jupyter_agents.testing.anthropic_server import FakeAnthropicServer, fake_anthropic_server
from jupyter_agents.testing.server import Reply, ReplyError, ReplyText, ReplyToolCall

pytestmark = pytest.mark.http

REPLY = Reply(
    [ReplyText("Hi there"), ReplyToolCall("lookup", {"key": "a"}, call_id="toolu_1")],
    usage=(100, 7),
    cached_tokens=40,
    chunk_size=4,
)


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with fake_anthropic_server() as started:
        yield started


def post(
    server: FakeAnthropicServer, stream: bool = False, key: str | None = None
) -> httpx.Response:
    body = {"model": "claude-x", "max_tokens": 10, "messages": [], "stream": stream}
    headers = {"x-api-key": server.api_key if key is None else key}
    return httpx.post(f"{server.api_base}/v1/messages", json=body, headers=headers)


def events(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    """The (event name, data) pairs of a server-sent event stream."""
    pairs = []
    for frame in response.text.strip().split("\n\n"):
        name, data = frame.split("\n")
        assert data.startswith("data: ")
        pairs.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return pairs


def test_a_message_has_text_and_tool_use_blocks_and_the_usage(server: FakeAnthropicServer) -> None:
    server.enqueue(REPLY)
    message = post(server).json()
    assert message["type"] == "message" and message["stop_reason"] == "tool_use"
    assert message["content"] == [
        {"type": "text", "text": "Hi there"},
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"key": "a"}},
    ]
    assert message["usage"] == {
        "input_tokens": 60,
        "cache_read_input_tokens": 40,
        "cache_creation_input_tokens": 0,
        "output_tokens": 7,
    }


def test_a_streamed_message_follows_anthropics_event_order(server: FakeAnthropicServer) -> None:
    server.enqueue(REPLY)
    pairs = events(post(server, stream=True))
    assert all(name == data["type"] for name, data in pairs)
    names = [name for name, _ in pairs]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == names.count("content_block_stop") == 2
    deltas = [d["delta"] for n, d in pairs if n == "content_block_delta"]
    text = "".join(d["text"] for d in deltas if d["type"] == "text_delta")
    arguments = "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta")
    assert text == "Hi there" and json.loads(arguments) == {"key": "a"}
    assert len(deltas) > 3  # streamed in pieces
    (start,) = [d for n, d in pairs if n == "content_block_start" and d["index"] == 1]
    assert start["content_block"] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "lookup",
        "input": {},
    }
    assert pairs[-2][1]["usage"] == {"output_tokens": 7}
    assert pairs[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_errors_are_anthropics_with_retry_after_alone(server: FakeAnthropicServer) -> None:
    server.enqueue(ReplyError(429, "slow down", retry_after=2))
    response = post(server)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "2" and "retry-after-ms" not in response.headers
    assert response.json() == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }


def test_a_wrong_key_is_refused_and_leaves_the_queue_alone(server: FakeAnthropicServer) -> None:
    server.enqueue("hi")
    assert post(server, key="wrong").status_code == 401
    assert server.pending_replies == 1
    assert post(server).json()["content"] == [{"type": "text", "text": "hi"}]
    assert [r.path for r in server.model_requests] == ["/v1/messages"] * 2
