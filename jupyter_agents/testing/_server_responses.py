"""Render a scripted `Reply` as Responses API JSON: a full object or its event stream.

The shapes follow the openai SDK models under `openai/types/responses/`, so the SDK
parses them even with strict response validation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jupyter_agents.testing._server_replies import (
    Reply,
    ReplyItem,
    ReplyText,
    default_call_id,
    split_chunks,
)

__all__ = ["DEFAULT_MODEL", "response_events", "response_object"]

DEFAULT_MODEL = "gpt-fake"
"""The model name echoed when a request names none."""

_Json = dict[str, Any]


def _output_items(reply: Reply, sequence: int) -> list[_Json]:
    """The completed output items of `reply`, reasoning first."""
    items: list[_Json] = []
    if reply.reasoning is not None:
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_{sequence:04d}",
                "summary": [{"type": "summary_text", "text": reply.reasoning}],
            }
        )
    for index, output in enumerate(reply.outputs):
        if isinstance(output, ReplyItem):
            items.append({"id": f"item_{sequence:04d}_{index}", **output.item})
        elif isinstance(output, ReplyText):
            items.append(
                {
                    "type": "message",
                    "id": f"msg_{sequence:04d}_{index}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [_text_part(output.text)],
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{sequence:04d}_{index}",
                    "call_id": output.call_id or default_call_id(sequence, index),
                    "name": output.name,
                    "arguments": output.arguments_json,
                    "status": "completed",
                }
            )
    return items


def _text_part(text: str) -> _Json:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def _usage(reply: Reply) -> _Json:
    input_tokens, output_tokens = reply.usage
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cached_tokens, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def response_object(
    reply: Reply,
    request: _Json,
    *,
    sequence: int,
    created_at: int,
    completed: bool = True,
) -> _Json:
    """Render `reply` as a Responses API `response` object.

    Args:
        reply: The scripted reply.
        request: The request body; the model and the tool settings are echoed from it.
        sequence: The request number, used to derive deterministic ids.
        created_at: The Unix timestamp to report.
        completed: `False` renders the empty `in_progress` snapshot sent at stream start.

    Returns:
        The JSON-ready object.
    """
    return {
        "id": f"resp_{sequence:04d}",
        "object": "response",
        "created_at": created_at,
        "completed_at": created_at if completed else None,
        "status": "completed" if completed else "in_progress",
        "model": request.get("model") or DEFAULT_MODEL,
        "output": _output_items(reply, sequence) if completed else [],
        "usage": _usage(reply) if completed else None,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "metadata": request.get("metadata") or {},
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "temperature": request.get("temperature"),
        "top_p": request.get("top_p"),
        "max_output_tokens": request.get("max_output_tokens"),
        "previous_response_id": request.get("previous_response_id"),
        "reasoning": request.get("reasoning"),
        "text": request.get("text") or {"format": {"type": "text"}},
        "truncation": request.get("truncation") or "disabled",
    }


class _Sequencer:
    """Stamps events with consecutive `sequence_number`s."""

    def __init__(self) -> None:
        self._next = 0

    def __call__(self, type_: str, **fields: Any) -> _Json:
        event = {"type": type_, **fields, "sequence_number": self._next}
        self._next += 1
        return event


def response_events(
    reply: Reply, request: _Json, *, sequence: int, created_at: int
) -> Iterator[_Json]:
    """Render `reply` as the Responses API server-sent event sequence.

    Args:
        reply: The scripted reply.
        request: The request body.
        sequence: The request number, used to derive deterministic ids.
        created_at: The Unix timestamp to report.

    Yields:
        Event payloads, each with `type` and `sequence_number`, ending with
        `response.completed`.
    """
    event = _Sequencer()
    start = response_object(
        reply, request, sequence=sequence, created_at=created_at, completed=False
    )
    yield event("response.created", response=start)
    yield event("response.in_progress", response=start)
    for index, item in enumerate(_output_items(reply, sequence)):
        if item["type"] == "message":
            yield from _message_events(item, index, reply.chunk_size, event)
        elif item["type"] == "function_call":
            yield from _function_call_events(item, index, reply.chunk_size, event)
        elif item["type"] == "reasoning":
            yield from _reasoning_events(item, index, reply.chunk_size, event)
        else:
            yield event("response.output_item.added", output_index=index, item=item)
            yield event("response.output_item.done", output_index=index, item=item)
    final = response_object(reply, request, sequence=sequence, created_at=created_at)
    yield event("response.completed", response=final)


def _message_events(item: _Json, index: int, size: int, event: _Sequencer) -> Iterator[_Json]:
    text = item["content"][0]["text"]
    ids = {"item_id": item["id"], "output_index": index}
    yield event(
        "response.output_item.added",
        output_index=index,
        item={**item, "status": "in_progress", "content": []},
    )
    yield event("response.content_part.added", **ids, content_index=0, part=_text_part(""))
    for piece in split_chunks(text, size):
        yield event("response.output_text.delta", **ids, content_index=0, delta=piece, logprobs=[])
    yield event("response.output_text.done", **ids, content_index=0, text=text, logprobs=[])
    yield event("response.content_part.done", **ids, content_index=0, part=_text_part(text))
    yield event("response.output_item.done", output_index=index, item=item)


def _function_call_events(item: _Json, index: int, size: int, event: _Sequencer) -> Iterator[_Json]:
    arguments = item["arguments"]
    ids = {"item_id": item["id"], "output_index": index}
    yield event(
        "response.output_item.added",
        output_index=index,
        item={**item, "arguments": "", "status": "in_progress"},
    )
    for piece in split_chunks(arguments, size):
        yield event("response.function_call_arguments.delta", **ids, delta=piece)
    yield event("response.function_call_arguments.done", **ids, arguments=arguments)
    yield event("response.output_item.done", output_index=index, item=item)


def _reasoning_events(item: _Json, index: int, size: int, event: _Sequencer) -> Iterator[_Json]:
    text = item["summary"][0]["text"]
    ids = {"item_id": item["id"], "output_index": index, "summary_index": 0}
    yield event("response.output_item.added", output_index=index, item={**item, "summary": []})
    yield event(
        "response.reasoning_summary_part.added",
        **ids,
        part={"type": "summary_text", "text": ""},
    )
    for piece in split_chunks(text, size):
        yield event("response.reasoning_summary_text.delta", **ids, delta=piece)
    yield event("response.reasoning_summary_text.done", **ids, text=text)
    yield event(
        "response.reasoning_summary_part.done",
        **ids,
        part={"type": "summary_text", "text": text},
    )
    yield event("response.output_item.done", output_index=index, item=item)
