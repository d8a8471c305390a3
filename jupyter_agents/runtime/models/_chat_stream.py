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

from ..errors import ModelBehaviorError, UserError
from ._chat_convert import refusal_of
from ._chat_reasoning import ChatReasoning, field_of, reasoning_item_id
from ._chat_request import CONTENT_FILTERED, new_call_id
from ._responses_build import (
    EventSequence,
    build_response,
    function_call_item,
    message_item,
    refusal_part,
)
from .usage import usage_from_openai

__all__ = [
    "ChatCmplStreamHandler",
    "ChatStreamConverter",
    "buffer_tool_call_stream",
    "chat_stream_events",
]

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
    signature: str | None = None
    """Gemini's thought signature, sent back with the call."""


def _thought_signature(fragment: Any) -> str | None:
    """A call fragment's thought signature: where LiteLLM puts it, or Google's
    ``extra_content``."""
    fields = field_of(fragment, "provider_specific_fields")
    if isinstance(fields, dict) and fields.get("thought_signature"):
        return str(fields["thought_signature"])
    extra = field_of(fragment, "extra_content")
    google = extra.get("google") if isinstance(extra, dict) else None
    if isinstance(google, dict) and google.get("thought_signature"):
        return str(google["thought_signature"])
    return None


class ChatStreamConverter:
    """Feed it chunks; it yields Responses events. Call ``finish`` at the end.

    Args:
        model: The model's name (in the items' ``provider_data``).
        require_finish_reason: A stream that ends without a ``finish_reason`` for its first
            choice is a ``ModelBehaviorError`` (OpenAI's endpoint always sends one: the
            connection broke).
        raise_on_length: An answer cut by the token limit before any text, refusal or call is
            a ``ModelBehaviorError``.
        response_id: The response's id (default: the first chunk's).
    """

    def __init__(
        self,
        model: str,
        *,
        require_finish_reason: bool = False,
        raise_on_length: bool = False,
        response_id: str | None = None,
    ) -> None:
        self._model = model
        self._require_finish = require_finish_reason
        self._raise_on_length = raise_on_length
        self._finish_reason: str | None = None
        self._fixed_id = response_id is not None
        self._provider_data: dict[str, Any] = {"model": model}
        self._seq = EventSequence()
        self._response_id = response_id or f"chatcmpl_{next(_ids)}"
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
        chunk_id = getattr(chunk, "id", None)
        if isinstance(chunk_id, str) and chunk_id:
            self._provider_data["response_id"] = chunk_id
            if not self._fixed_id:
                self._response_id = chunk_id
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
            reason = getattr(choice, "finish_reason", None)
            if reason and not getattr(choice, "index", 0):
                self._finish_reason = reason
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
            added = ChatReasoning().item(self._reasoning_id, {"model": self._model})
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
        call.signature = _thought_signature(fragment) or call.signature
        function = fragment.function
        if function is not None and function.name:
            call.name += function.name
        if not call.announced and call.name:
            call.announced = True
            call.call_id = call.call_id or new_call_id()
            item = function_call_item(call.name, "", call.call_id, call.item_id, "in_progress")
            yield self._seq.item_added(call.output_index, self._with_data(item, call))
        pieces = function.arguments if function is not None else None
        if pieces:
            call.arguments.append(pieces)
            if call.announced:
                yield self._seq.args_delta(call.output_index, call.item_id, pieces)

    def _with_data(self, item: Any, call: _PendingCall | None = None) -> Any:
        """``item`` with the stream's ``provider_data`` (and a call's thought signature)."""
        data = dict(self._provider_data)
        if call is not None and call.signature:
            data["thought_signature"] = call.signature
        item.provider_data = data
        return item

    def _check_ending(self) -> Iterator[Any]:
        """How the stream ended: without a finish reason (where one is required), cut by the
        token limit before anything came, or withheld by a content filter (a refusal)."""
        if self._require_finish and self._finish_reason is None:
            raise ModelBehaviorError(
                "Chat Completions stream ended before receiving a finish_reason for choice 0."
            )
        if self._text or self._refusal or self._calls:
            return
        if self._finish_reason == "length" and self._raise_on_length:
            raise ModelBehaviorError(
                "Chat Completions stream terminated with finish_reason='length' but produced no "
                "assistant text, tool call, or refusal."
            )
        if self._finish_reason == "content_filter":
            yield from self._refusal_delta(CONTENT_FILTERED)

    def finish(self) -> Iterator[Any]:
        """Close every open item and yield ``response.completed``."""
        if not self._started:
            yield from self._start(None)
        yield from self._check_ending()
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
            self._with_data(call_item, call)
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
        item = self._reasoning.item(self._reasoning_id, self._provider_data)
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
        item = self._with_data(message_item(text, self._message_id, refusal=refusal))
        yield self._seq.item_done(index, item)
        finished.append((index, item))


async def chat_stream_events(
    model: str,
    stream: Any,
    *,
    require_finish_reason: bool = False,
    raise_on_length: bool = False,
    buffer_tool_calls: bool = False,
) -> AsyncIterator[Any]:
    """The Responses events of a chat chunk stream (the ``openai`` package's or LiteLLM's),
    which is closed when the events end or stop being read (``ChatStreamConverter`` says
    what the options do; ``buffer_tool_calls``: see ``buffer_tool_call_stream``)."""
    converter = ChatStreamConverter(
        model, require_finish_reason=require_finish_reason, raise_on_length=raise_on_length
    )
    chunks = buffer_tool_call_stream(stream) if buffer_tool_calls else stream
    try:
        async for chunk in chunks:
            for event in converter.feed(chunk):
                yield event
    finally:
        await stream.aclose()
    for event in converter.finish():
        yield event


@dataclass
class _BufferedCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    """The fragments' provider fields (Gemini's thought signature), merged."""


def _buffer_fragment(calls: dict[int, _BufferedCall], fragment: Any) -> None:
    call = calls.setdefault(fragment.index, _BufferedCall())
    call.id = fragment.id or call.id
    function = fragment.function
    if function is not None:
        call.name += function.name or ""
        if function.arguments:
            call.arguments.append(function.arguments)
    for name in ("provider_specific_fields", "extra_content"):
        value = field_of(fragment, name)
        if isinstance(value, dict):
            call.fields[name] = {**call.fields.get(name, {}), **value}


def _calls_chunk(last: Any, calls: dict[int, _BufferedCall]) -> Any:
    """One chunk holding the buffered calls whole, in index order."""
    from openai.types.chat.chat_completion_chunk import (
        Choice,
        ChoiceDelta,
        ChoiceDeltaToolCall,
        ChoiceDeltaToolCallFunction,
    )

    fragments = []
    for index in sorted(calls):
        call = calls[index]
        function = ChoiceDeltaToolCallFunction(name=call.name, arguments="".join(call.arguments))
        fragment = ChoiceDeltaToolCall(index=index, id=call.id, type="function", function=function)
        for name, value in call.fields.items():
            setattr(fragment, name, value)
        fragments.append(fragment)
    choice = Choice(index=0, delta=ChoiceDelta(tool_calls=fragments), finish_reason=None)
    return last.model_copy(update={"choices": [choice], "usage": None})


async def buffer_tool_call_stream(stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """``stream`` with the first choice's tool call fragments held back and sent whole, in one
    chunk after the others (a client then sees each call only once its arguments are
    complete: for servers whose fragments interleave or repeat)."""
    calls: dict[int, _BufferedCall] = {}
    last: Any = None
    async for chunk in stream:
        last = chunk
        kept = []
        for choice in chunk.choices or ():
            delta = choice.delta
            if getattr(choice, "index", 0) or delta is None or not delta.tool_calls:
                kept.append(choice)
                continue
            for fragment in delta.tool_calls:
                _buffer_fragment(calls, fragment)
            rest = delta.model_copy(update={"tool_calls": None})
            if rest.content or rest.refusal or _has_side_fields(rest) or choice.finish_reason:
                kept.append(choice.model_copy(update={"delta": rest}))
        if kept or chunk.usage is not None or not chunk.choices:
            yield chunk.model_copy(update={"choices": kept}) if chunk.choices else chunk
    if calls and last is not None:
        yield _calls_chunk(last, calls)


class ChatCmplStreamHandler:
    """Turns a Chat Completions chunk stream into Responses API stream events."""

    @classmethod
    async def handle_stream(
        cls,
        response: Any,
        stream: Any,
        model: str | None = None,
        strict_feature_validation: bool = False,
        preserve_raw_usage: bool = False,
        raise_on_length_truncation: bool = False,
        require_finish_reason: bool = False,
    ) -> AsyncIterator[Any]:
        """The events of ``stream``: ``response.created`` (around ``response``'s id), each
        item's events, then ``response.completed`` with the output and usage.

        Args:
            response: The response the events describe (its id is kept).
            stream: The chunks.
            model: The model's name (in the items' ``provider_data``).
            strict_feature_validation: Accepted for the SDK's signature; nothing in a stream
                is left out here.
            preserve_raw_usage: Not available here (a ``UserError`` when True).
            raise_on_length_truncation: An empty answer cut by the token limit raises
                ``ModelBehaviorError``.
            require_finish_reason: A stream ending without a finish reason raises
                ``ModelBehaviorError``.
        """
        if preserve_raw_usage:
            raise UserError("preserve_raw_usage is not available here: usage is converted.")
        converter = ChatStreamConverter(
            model or getattr(response, "model", "") or "",
            require_finish_reason=require_finish_reason,
            raise_on_length=raise_on_length_truncation,
            response_id=getattr(response, "id", None),
        )
        async for chunk in stream:
            for event in converter.feed(chunk):
                yield event
        for event in converter.finish():
            yield event

    @classmethod
    def buffer_tool_call_stream(cls, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """``stream`` with each tool call held back until it is whole (see
        ``buffer_tool_call_stream``)."""
        return buffer_tool_call_stream(stream)
