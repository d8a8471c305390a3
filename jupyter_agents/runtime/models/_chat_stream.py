"""Turning streamed Chat Completions chunks into Responses API events.

Tool calls arrive as fragments keyed by ``index``: the first fragment carries the id and name,
later ones only pieces of the JSON arguments. They are assembled here, and the finished calls
are reported when the stream ends. Reasoning deltas (``reasoning_content``, ``reasoning``,
LiteLLM's ``thinking_blocks``: see ``_chat_reasoning``) make one reasoning item, as the whole
message's do in ``_chat_request``; ``refusal`` deltas make a refusal part of the message.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from openai.types.responses import (
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryPartDoneEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningSummaryTextDoneEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseReasoningTextDoneEvent,
    ResponseRefusalDeltaEvent,
    ResponseRefusalDoneEvent,
)
from openai.types.responses.response_reasoning_summary_part_added_event import Part
from openai.types.responses.response_reasoning_summary_part_done_event import Part as DonePart

from ._chat_reasoning import ChatReasoning, reasoning_item_id
from ._chat_request import new_call_id, refusal_of
from ._responses_build import (
    EventSequence,
    build_response,
    function_call_item,
    message_item,
    refusal_part,
)
from .usage import usage_from_openai

__all__ = ["ChatStreamConverter", "chat_stream_events"]

_ids = itertools.count(1)


def _has_side_fields(delta: Any) -> bool:
    """Whether a delta may hold reasoning or a refusal: one look at its fields, since most
    deltas hold only a piece of text (the ``openai`` package's and LiteLLM's deltas are
    pydantic models: declared fields in ``__dict__``, the provider's own in the extras)."""
    if getattr(delta, "__pydantic_extra__", None):
        return True
    get = getattr(delta, "__dict__", {}).get
    return bool(
        get("reasoning_content")
        or get("reasoning")
        or get("thinking_blocks")
        or get("refusal")
        or get("provider_specific_fields")
    )


@dataclass
class _PendingCall:
    output_index: int
    item_id: str
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    announced: bool = False


class ChatStreamConverter:
    """Feed it chunks; it yields Responses events. Call ``finish`` at the end."""

    def __init__(self, model: str) -> None:
        self._model = model
        self._seq = EventSequence()
        self._response_id = f"chatcmpl_{next(_ids)}"
        self._started = False
        self._next_index = 0
        self._text: list[str] = []
        self._refusal: list[str] | None = None
        self._message_index: int | None = None
        self._message_id = f"msg_{next(_ids)}"
        self._reasoning = ChatReasoning()
        self._reasoning_index: int | None = None
        self._reasoning_id = reasoning_item_id()
        self._calls: dict[int, _PendingCall] = {}
        self._usage: Any = None

    def _start(self, chunk: Any) -> Iterator[Any]:
        self._started = True
        if getattr(chunk, "id", None):
            self._response_id = chunk.id
        response = build_response(self._response_id, self._model, [], None, "in_progress")
        yield self._seq.created(response)
        yield self._seq.in_progress(response)

    def feed(self, chunk: Any) -> Iterator[Any]:
        """Events for one chunk."""
        if not self._started:
            yield from self._start(chunk)
        if getattr(chunk, "usage", None) is not None:
            self._usage = chunk.usage
        for choice in chunk.choices or ():
            delta = choice.delta
            if delta is None:
                continue
            side = _has_side_fields(delta)
            if side:
                yield from self._reasoning_delta(delta)
            content = getattr(delta, "content", None)
            if content:
                yield from self._text_delta(content)
            refusal = refusal_of(delta) if side else None
            if refusal:
                yield from self._refusal_delta(refusal)
            for fragment in getattr(delta, "tool_calls", None) or ():
                yield from self._call_fragment(fragment)

    def _reasoning_delta(self, delta: Any) -> Iterator[Any]:
        summary, text = self._reasoning.add_delta(delta)
        if not self._reasoning:
            return
        if self._reasoning_index is None:
            self._reasoning_index = self._next_index
            self._next_index += 1
            added = ChatReasoning().item(self._reasoning_id, self._model)
            yield self._seq.item_added(self._reasoning_index, added)
        ids = {"item_id": self._reasoning_id, "output_index": self._reasoning_index}
        if summary:
            if len(self._reasoning.summary) == 1:
                part = Part.model_construct(type="summary_text", text="")
                yield self._seq.event(
                    ResponseReasoningSummaryPartAddedEvent,
                    type="response.reasoning_summary_part.added",
                    summary_index=0,
                    part=part,
                    **ids,
                )
            yield self._seq.event(
                ResponseReasoningSummaryTextDeltaEvent,
                type="response.reasoning_summary_text.delta",
                summary_index=0,
                delta=summary,
                **ids,
            )
        if text:
            yield self._seq.event(
                ResponseReasoningTextDeltaEvent,
                type="response.reasoning_text.delta",
                content_index=0,
                delta=text,
                **ids,
            )

    def _open_message(self) -> Iterator[Any]:
        if self._message_index is None:
            self._message_index = self._next_index
            self._next_index += 1
            yield self._seq.item_added(
                self._message_index, message_item("", self._message_id, "in_progress")
            )

    def _text_delta(self, content: str) -> Iterator[Any]:
        if self._message_index is None:
            yield from self._open_message()
            yield self._seq.part_added(self._message_index or 0, self._message_id)
        self._text.append(content)
        yield self._seq.text_delta(self._message_index or 0, self._message_id, content)

    def _refusal_delta(self, refusal: str) -> Iterator[Any]:
        yield from self._open_message()
        index = self._message_index or 0
        ids = {"item_id": self._message_id, "output_index": index}
        if self._refusal is None:
            self._refusal = []
            yield self._seq.event(
                ResponseContentPartAddedEvent,
                type="response.content_part.added",
                content_index=self._refusal_part_index(),
                part=refusal_part(""),
                **ids,
            )
        self._refusal.append(refusal)
        yield self._seq.event(
            ResponseRefusalDeltaEvent,
            type="response.refusal.delta",
            content_index=self._refusal_part_index(),
            delta=refusal,
            **ids,
        )

    def _refusal_part_index(self) -> int:
        return 1 if self._text else 0

    def _call_fragment(self, fragment: Any) -> Iterator[Any]:
        index = fragment.index if fragment.index is not None else len(self._calls)
        call = self._calls.get(index)
        if call is None:
            call = _PendingCall(output_index=self._next_index, item_id=f"fc_{next(_ids)}")
            self._next_index += 1
            self._calls[index] = call
        if fragment.id:
            call.call_id = fragment.id
        function = fragment.function
        if function is not None and function.name:
            call.name += function.name
        if not call.announced and call.name:
            call.announced = True
            call.call_id = call.call_id or new_call_id()
            item = function_call_item(call.name, "", call.call_id, call.item_id, "in_progress")
            yield self._seq.item_added(call.output_index, item)
        pieces = function.arguments if function is not None else None
        if pieces:
            call.arguments.append(pieces)
            if call.announced:
                yield self._seq.args_delta(call.output_index, call.item_id, pieces)

    def finish(self) -> Iterator[Any]:
        """Close every open item and yield ``response.completed``."""
        if not self._started:
            yield from self._start(None)
        finished: list[tuple[int, Any]] = []
        if self._reasoning_index is not None:
            yield from self._finish_reasoning(finished)
        if self._message_index is not None:
            yield from self._finish_message(finished)
        for key in sorted(self._calls):
            call = self._calls[key]
            arguments = "".join(call.arguments)
            call.call_id = call.call_id or new_call_id()
            call_item = function_call_item(call.name, arguments, call.call_id, call.item_id)
            if not call.announced:
                yield self._seq.item_added(call.output_index, call_item)
            yield self._seq.args_done(call.output_index, call.item_id, arguments)
            yield self._seq.item_done(call.output_index, call_item)
            finished.append((call.output_index, call_item))
        output = [item for _, item in sorted(finished, key=lambda pair: pair[0])]
        usage = usage_from_openai(self._usage) if self._usage is not None else None
        yield self._seq.completed(build_response(self._response_id, self._model, output, usage))

    def _finish_reasoning(self, finished: list[tuple[int, Any]]) -> Iterator[Any]:
        index = self._reasoning_index or 0
        item = self._reasoning.item(self._reasoning_id, self._model)
        ids = {"item_id": self._reasoning_id, "output_index": index}
        if self._reasoning.summary:
            summary = item.summary[0]
            yield self._seq.event(
                ResponseReasoningSummaryTextDoneEvent,
                type="response.reasoning_summary_text.done",
                summary_index=0,
                text=summary.text,
                **ids,
            )
            part = DonePart.model_construct(type="summary_text", text=summary.text)
            yield self._seq.event(
                ResponseReasoningSummaryPartDoneEvent,
                type="response.reasoning_summary_part.done",
                summary_index=0,
                part=part,
                **ids,
            )
        if self._reasoning.text and not self._reasoning.summary and not self._reasoning.blocks:
            yield self._seq.event(
                ResponseReasoningTextDoneEvent,
                type="response.reasoning_text.done",
                content_index=0,
                text="".join(self._reasoning.text),
                **ids,
            )
        yield self._seq.item_done(index, item)
        finished.append((index, item))

    def _finish_message(self, finished: list[tuple[int, Any]]) -> Iterator[Any]:
        index = self._message_index or 0
        text = "".join(self._text)
        if self._text:
            yield self._seq.text_done(index, self._message_id, text)
            yield self._seq.part_done(index, self._message_id, text)
        refusal = "".join(self._refusal) if self._refusal is not None else None
        if refusal is not None:
            ids = {"item_id": self._message_id, "output_index": index}
            content_index = self._refusal_part_index()
            yield self._seq.event(
                ResponseRefusalDoneEvent,
                type="response.refusal.done",
                content_index=content_index,
                refusal=refusal,
                **ids,
            )
            yield self._seq.event(
                ResponseContentPartDoneEvent,
                type="response.content_part.done",
                content_index=content_index,
                part=refusal_part(refusal),
                **ids,
            )
        item = message_item(text, self._message_id, refusal=refusal)
        yield self._seq.item_done(index, item)
        finished.append((index, item))


async def chat_stream_events(model: str, stream: Any) -> AsyncIterator[Any]:
    """The Responses events of a chat chunk stream (the ``openai`` package's or LiteLLM's),
    which is closed when the events end or stop being read."""
    converter = ChatStreamConverter(model)
    try:
        async for chunk in stream:
            for event in converter.feed(chunk):
                yield event
    finally:
        await stream.aclose()
    for event in converter.finish():
        yield event
