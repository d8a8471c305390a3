"""Render a scripted `Reply` as Chat Completions JSON: a completion or its chunk stream.

The shapes follow `openai.types.chat.ChatCompletion` and `ChatCompletionChunk`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jupyter_agents.testing._server_replies import (
    Reply,
    ReplyToolCall,
    default_call_id,
    split_chunks,
)
from jupyter_agents.testing._server_responses import DEFAULT_MODEL

__all__ = ["chat_chunks", "chat_completion"]

_Json = dict[str, Any]


def _usage(reply: Reply) -> _Json:
    prompt_tokens, completion_tokens = reply.usage
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reply.reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _tool_calls(reply: Reply, sequence: int) -> list[tuple[str, ReplyToolCall]]:
    """The `(call id, call)` pairs of `reply`, ids defaulted as on the Responses API."""
    return [
        (output.call_id or default_call_id(sequence, index), output)
        for index, output in enumerate(reply.outputs)
        if isinstance(output, ReplyToolCall)
    ]


def _finish_reason(reply: Reply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def _envelope(request: _Json, sequence: int, created: int, object_: str) -> _Json:
    return {
        "id": f"chatcmpl-{sequence:04d}",
        "object": object_,
        "created": created,
        "model": request.get("model") or DEFAULT_MODEL,
        "system_fingerprint": "fp_fake",
        "service_tier": "default",
    }


def chat_completion(reply: Reply, request: _Json, *, sequence: int, created: int) -> _Json:
    """Render `reply` as a `chat.completion` object.

    Args:
        reply: The scripted reply.
        request: The request body; the model is echoed from it.
        sequence: The request number, used to derive deterministic ids.
        created: The Unix timestamp to report.

    Returns:
        The JSON-ready object.
    """
    calls = _tool_calls(reply, sequence)
    message: _Json = {
        "role": "assistant",
        "content": reply.text if reply.text or not calls else None,
        "refusal": None,
        "annotations": [],
    }
    if calls:
        message["tool_calls"] = [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json},
            }
            for call_id, call in calls
        ]
    choice = {
        "index": 0,
        "message": message,
        "logprobs": None,
        "finish_reason": _finish_reason(reply),
    }
    return {
        **_envelope(request, sequence, created, "chat.completion"),
        "choices": [choice],
        "usage": _usage(reply),
    }


def chat_chunks(reply: Reply, request: _Json, *, sequence: int, created: int) -> Iterator[_Json]:
    """Render `reply` as the `chat.completion.chunk` stream (without `[DONE]`).

    Text arrives in `Reply.chunk_size` pieces. Each tool call starts with a chunk holding
    its `index`, `id`, `type`, name and empty arguments; its arguments follow in fragments
    carrying only `index` and `function.arguments`. When the request sets
    `stream_options.include_usage`, every chunk has `usage: null` and a last chunk with
    no choices carries the usage.

    Args:
        reply: The scripted reply.
        request: The request body.
        sequence: The request number, used to derive deterministic ids.
        created: The Unix timestamp to report.

    Yields:
        Chunk payloads.
    """
    options = request.get("stream_options") or {}
    include_usage = bool(options.get("include_usage"))
    envelope = _envelope(request, sequence, created, "chat.completion.chunk")
    if include_usage:
        envelope["usage"] = None

    def chunk(delta: _Json, finish_reason: str | None = None) -> _Json:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**envelope, "choices": [choice]}

    yield chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in split_chunks(reply.text, reply.chunk_size):
        yield chunk({"content": piece})
    for tool_call_delta in _tool_call_deltas(reply, sequence):
        yield chunk({"tool_calls": [tool_call_delta]})
    yield chunk({}, _finish_reason(reply))
    if include_usage:
        yield {**envelope, "choices": [], "usage": _usage(reply)}


def _tool_call_deltas(reply: Reply, sequence: int) -> Iterator[_Json]:
    """The tool call deltas, call after call or round-robin when interleaving."""
    streams: list[list[_Json]] = []
    for index, (call_id, call) in enumerate(_tool_calls(reply, sequence)):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        fragments = [
            {"index": index, "function": {"arguments": piece}}
            for piece in split_chunks(call.arguments_json, reply.chunk_size)
        ]
        streams.append([head, *fragments])
    if not reply.interleave_tool_calls:
        for stream in streams:
            yield from stream
        return
    longest = max((len(stream) for stream in streams), default=0)
    for position in range(longest):
        for stream in streams:
            if position < len(stream):
                yield stream[position]
