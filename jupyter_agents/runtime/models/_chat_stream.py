"""Turning streamed Chat Completions chunks into Responses API events.

Tool calls arrive as fragments keyed by ``index``: the first fragment carries the id and name,
later ones only pieces of the JSON arguments. They are assembled here, and the finished calls
are reported when the stream ends.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from ._responses_build import EventSequence, build_response, function_call_item, message_item
from .usage import usage_from_openai

__all__ = ["ChatStreamConverter", "chat_stream_events"]

_ids = itertools.count(1)


@dataclass
class _PendingCall:
    output_index: int
    item_id: str
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    announced: bool = False


class ChatStreamConverter:
    """Feed it chunks; it yields Responses events. Call :meth:`finish` at the end."""

    def __init__(self, model: str) -> None:
        self._model = model
        self._seq = EventSequence()
        self._response_id = f"chatcmpl_{next(_ids)}"
        self._started = False
        self._next_index = 0
        self._text: list[str] = []
        self._message_index: int | None = None
        self._message_id = f"msg_{next(_ids)}"
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
            content = getattr(delta, "content", None)
            if content:
                yield from self._text_delta(content)
            for fragment in getattr(delta, "tool_calls", None) or ():
                yield from self._call_fragment(fragment)

    def _text_delta(self, content: str) -> Iterator[Any]:
        if self._message_index is None:
            self._message_index = self._next_index
            self._next_index += 1
            yield self._seq.item_added(
                self._message_index, message_item("", self._message_id, "in_progress")
            )
            yield self._seq.part_added(self._message_index, self._message_id)
        self._text.append(content)
        yield self._seq.text_delta(self._message_index, self._message_id, content)

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
        if self._message_index is not None:
            text = "".join(self._text)
            index = self._message_index
            yield self._seq.text_done(index, self._message_id, text)
            yield self._seq.part_done(index, self._message_id, text)
            item = message_item(text, self._message_id)
            yield self._seq.item_done(index, item)
            finished.append((index, item))
        for key in sorted(self._calls):
            call = self._calls[key]
            arguments = "".join(call.arguments)
            call_item = function_call_item(
                call.name, arguments, call.call_id or f"call_{next(_ids)}", call.item_id
            )
            if not call.announced:
                yield self._seq.item_added(call.output_index, call_item)
            yield self._seq.args_done(call.output_index, call.item_id, arguments)
            yield self._seq.item_done(call.output_index, call_item)
            finished.append((call.output_index, call_item))
        output = [item for _, item in sorted(finished, key=lambda pair: pair[0])]
        usage = usage_from_openai(self._usage) if self._usage is not None else None
        yield self._seq.completed(build_response(self._response_id, self._model, output, usage))


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
