"""Render a scripted `Reply` as Anthropic's Messages API: a message or its event stream.

The shapes follow the ``anthropic`` package's ``Message`` and its raw stream events
(``message_start``, ``content_block_start`` / ``_delta`` / ``_stop``, ``message_delta`` with
the usage, ``message_stop``). Tool calls are ``tool_use`` blocks whose input streams as
``input_json_delta`` pieces; `ReplyItem` outputs (Responses API items) are left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from jupyter_agents.testing._server_replies import (
    Reply,
    ReplyText,
    ReplyToolCall,
    default_call_id,
    split_chunks,
)

__all__ = ["anthropic_error", "message_events", "message_object"]

_Json = dict[str, Any]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def anthropic_error(status: int, message: str) -> _Json:
    """An Anthropic error body for HTTP ``status``."""
    kind = _ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _blocks(reply: Reply, sequence: int) -> list[_Json]:
    blocks: list[_Json] = []
    for index, output in enumerate(reply.outputs):
        if isinstance(output, ReplyText):
            blocks.append({"type": "text", "text": output.text})
        elif isinstance(output, ReplyToolCall):
            call_id = output.call_id or default_call_id(sequence, index)
            block = {"type": "tool_use", "id": call_id, "name": output.name}
            blocks.append({**block, "input": _input(output)})
    return blocks


def _input(call: ReplyToolCall) -> Any:
    """A tool call's input object (Anthropic sends objects: malformed JSON stays a string)."""
    try:
        return json.loads(call.arguments_json or "{}")
    except ValueError:
        return call.arguments_json


def _usage(reply: Reply, output_tokens: int) -> _Json:
    return {
        "input_tokens": reply.usage[0] - reply.cached_tokens,
        "cache_read_input_tokens": reply.cached_tokens,
        "cache_creation_input_tokens": 0,
        "output_tokens": output_tokens,
    }


def _message(reply: Reply, request: _Json, sequence: int, content: list[_Json]) -> _Json:
    return {
        "id": f"msg_{sequence:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.get("model") or "claude-fake",
        "content": content,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(reply, 0),
    }


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def message_object(reply: Reply, request: _Json, *, sequence: int) -> _Json:
    """The non-streamed ``Message`` for ``reply``."""
    message = _message(reply, request, sequence, _blocks(reply, sequence))
    message["stop_reason"] = _stop_reason(reply)
    message["usage"] = _usage(reply, reply.usage[1])
    return message


def message_events(reply: Reply, request: _Json, *, sequence: int) -> Iterator[_Json]:
    """The server-sent events of a streamed ``reply``, in Anthropic's order."""
    yield {"type": "message_start", "message": _message(reply, request, sequence, [])}
    for index, block in enumerate(_blocks(reply, sequence)):
        if block["type"] == "text":
            yield {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            }
            for piece in split_chunks(block["text"], reply.chunk_size):
                delta = {"type": "text_delta", "text": piece}
                yield {"type": "content_block_delta", "index": index, "delta": delta}
        else:
            start = {**block, "input": {}}
            yield {"type": "content_block_start", "index": index, "content_block": start}
            raw = json.dumps(block["input"])
            for piece in split_chunks(raw, reply.chunk_size):
                delta = {"type": "input_json_delta", "partial_json": piece}
                yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
        "usage": {"output_tokens": reply.usage[1]},
    }
    yield {"type": "message_stop"}
