"""Building Responses API objects and streaming events without validation overhead.

Used by models that produce Responses objects themselves: the Chat Completions adapter and the
scripted test model. Objects are built with ``model_construct`` (the data is already known to be
well formed), which keeps building cheap on hot paths.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, TypeVar

from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseInProgressEvent,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_reasoning_item import Summary
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel

from ..usage import Usage

__all__ = [
    "EventSequence",
    "build_response",
    "construct",
    "function_call_item",
    "message_item",
    "reasoning_item",
    "refusal_part",
    "split_text",
]

_Event = TypeVar("_Event", bound=BaseModel)

_pydantic_construct = BaseModel.model_construct.__func__  # type: ignore[attr-defined]


def construct(kind: type[_Event], **fields: Any) -> _Event:
    """``kind(**fields)`` without validation: pydantic's own ``model_construct``.

    The ``openai`` models override ``model_construct`` with one that converts every field by its
    annotation (nested dicts into models); here the values already have their types, and that
    conversion cost 8x the build (166 against 21 us an event), once per streamed delta.
    """
    built: _Event = _pydantic_construct(kind, **fields)
    return built


def message_item(
    text: str, item_id: str, status: str = "completed", refusal: str | None = None
) -> ResponseOutputMessage:
    """An assistant message holding one text part, or a refusal part, or both (text first)."""
    parts: list[Any] = []
    if text or refusal is None:
        parts.append(construct(ResponseOutputText, type="output_text", text=text, annotations=[]))
    if refusal is not None:
        parts.append(refusal_part(refusal))
    return construct(
        ResponseOutputMessage,
        id=item_id,
        type="message",
        role="assistant",
        status=status,
        content=parts,
    )


def refusal_part(refusal: str) -> ResponseOutputRefusal:
    """A refusal content part."""
    return construct(ResponseOutputRefusal, type="refusal", refusal=refusal)


def function_call_item(
    name: str, arguments: str, call_id: str, item_id: str, status: str = "completed"
) -> ResponseFunctionToolCall:
    """A function call."""
    return construct(
        ResponseFunctionToolCall,
        id=item_id,
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=arguments,
        status=status,
    )


def reasoning_item(summary: str, item_id: str) -> ResponseReasoningItem:
    """A reasoning item with one summary text."""
    return construct(
        ResponseReasoningItem,
        id=item_id,
        type="reasoning",
        summary=[construct(Summary, type="summary_text", text=summary)],
    )


def _openai_usage(usage: Usage) -> ResponseUsage:
    return construct(
        ResponseUsage,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        total_tokens=usage.total_tokens,
        input_tokens_details=construct(
            InputTokensDetails,
            cached_tokens=usage.input_tokens_details.cached_tokens,
            cache_write_tokens=usage.input_tokens_details.cache_write_tokens,
        ),
        output_tokens_details=construct(
            OutputTokensDetails, reasoning_tokens=usage.output_tokens_details.reasoning_tokens
        ),
    )


def build_response(
    response_id: str,
    model: str,
    output: list[Any],
    usage: Usage | None,
    status: str = "completed",
) -> Response:
    """A Response object around ``output``."""
    return construct(
        Response,
        id=response_id,
        object="response",
        created_at=time.time(),
        model=model,
        status=status,
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        usage=_openai_usage(usage) if usage is not None else None,
    )


def split_text(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (at least one piece)."""
    if not text:
        return [""]
    return [text[i : i + size] for i in range(0, len(text), size)]


class EventSequence:
    """Numbers and builds the events of one streamed response, in the API's order."""

    def __init__(self) -> None:
        self._seq = -1

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def event(self, kind: type[_Event], **fields: Any) -> _Event:
        """An event of class ``kind`` with the next sequence number (for the events without a
        method of their own)."""
        return construct(kind, sequence_number=self._next(), **fields)

    def created(self, response: Response) -> ResponseCreatedEvent:
        return construct(
            ResponseCreatedEvent,
            type="response.created",
            response=response,
            sequence_number=self._next(),
        )

    def in_progress(self, response: Response) -> ResponseInProgressEvent:
        return construct(
            ResponseInProgressEvent,
            type="response.in_progress",
            response=response,
            sequence_number=self._next(),
        )

    def item_added(self, index: int, item: Any) -> ResponseOutputItemAddedEvent:
        return construct(
            ResponseOutputItemAddedEvent,
            type="response.output_item.added",
            item=item,
            output_index=index,
            sequence_number=self._next(),
        )

    def item_done(self, index: int, item: Any) -> ResponseOutputItemDoneEvent:
        return construct(
            ResponseOutputItemDoneEvent,
            type="response.output_item.done",
            item=item,
            output_index=index,
            sequence_number=self._next(),
        )

    def part_added(self, index: int, item_id: str, text: str = "") -> ResponseContentPartAddedEvent:
        return construct(
            ResponseContentPartAddedEvent,
            type="response.content_part.added",
            item_id=item_id,
            output_index=index,
            content_index=0,
            sequence_number=self._next(),
            part=construct(ResponseOutputText, type="output_text", text=text, annotations=[]),
        )

    def part_done(self, index: int, item_id: str, text: str) -> ResponseContentPartDoneEvent:
        return construct(
            ResponseContentPartDoneEvent,
            type="response.content_part.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            sequence_number=self._next(),
            part=construct(ResponseOutputText, type="output_text", text=text, annotations=[]),
        )

    def text_delta(self, index: int, item_id: str, delta: str) -> ResponseTextDeltaEvent:
        return construct(
            ResponseTextDeltaEvent,
            type="response.output_text.delta",
            item_id=item_id,
            output_index=index,
            content_index=0,
            delta=delta,
            logprobs=[],
            sequence_number=self._next(),
        )

    def text_done(self, index: int, item_id: str, text: str) -> ResponseTextDoneEvent:
        return construct(
            ResponseTextDoneEvent,
            type="response.output_text.done",
            item_id=item_id,
            output_index=index,
            content_index=0,
            text=text,
            logprobs=[],
            sequence_number=self._next(),
        )

    def args_delta(
        self, index: int, item_id: str, delta: str
    ) -> ResponseFunctionCallArgumentsDeltaEvent:
        return construct(
            ResponseFunctionCallArgumentsDeltaEvent,
            type="response.function_call_arguments.delta",
            item_id=item_id,
            output_index=index,
            delta=delta,
            sequence_number=self._next(),
        )

    def args_done(
        self, index: int, item_id: str, arguments: str
    ) -> ResponseFunctionCallArgumentsDoneEvent:
        return construct(
            ResponseFunctionCallArgumentsDoneEvent,
            type="response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            arguments=arguments,
            sequence_number=self._next(),
        )

    def completed(self, response: Response) -> ResponseCompletedEvent:
        return construct(
            ResponseCompletedEvent,
            type="response.completed",
            response=response,
            sequence_number=self._next(),
        )

    def item_events(self, index: int, item: Any, chunk_size: int) -> Iterator[Any]:
        """Every event of one finished output item, from ``added`` to ``done``."""
        kind = item.type
        if kind == "message":
            text = "".join(p.text for p in item.content if p.type == "output_text")
            yield self.item_added(index, message_item("", item.id, "in_progress"))
            yield self.part_added(index, item.id)
            for piece in split_text(text, chunk_size):
                yield self.text_delta(index, item.id, piece)
            yield self.text_done(index, item.id, text)
            yield self.part_done(index, item.id, text)
        elif kind == "function_call":
            yield self.item_added(
                index, function_call_item(item.name, "", item.call_id, item.id, "in_progress")
            )
            for piece in split_text(item.arguments, chunk_size):
                yield self.args_delta(index, item.id, piece)
            yield self.args_done(index, item.id, item.arguments)
        else:
            yield self.item_added(index, item)
        yield self.item_done(index, item)
