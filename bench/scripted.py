"""One scripted model that drives both runtimes.

Everything a model call returns is built before timing: the output items of each turn
(``openai.types.responses`` objects made with ``model_construct``), the ``ModelResponse`` of
each non-streamed call and the full event list of each streamed call. During a timed run the
model only pops the next prebuilt answer and takes timestamps, so what is measured is the
framework around it.

:func:`scripted_model` returns an instance that subclasses the chosen runtime's ``Model`` ABC
(``jupyter_agents.Model`` or ``agents.models.interface.Model``); both call it with the same
positional arguments, so one implementation (:class:`ScriptCore`) serves both.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

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
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

__all__ = [
    "ScriptCore",
    "Turn",
    "function_call",
    "message",
    "scripted_model",
    "stream_events",
]

Turn = list[Any]
"""The output items of one model call."""

_perf = time.perf_counter
_INPUT_TOKENS = 10
_OUTPUT_TOKENS = 5


# -- output items ----------------------------------------------------------------------------


def message(text: str, item_id: str, status: str = "completed") -> ResponseOutputMessage:
    """An assistant message with one text part."""
    part = ResponseOutputText.model_construct(type="output_text", text=text, annotations=[])
    return ResponseOutputMessage.model_construct(
        id=item_id, type="message", role="assistant", status=status, content=[part]
    )


def function_call(
    name: str, arguments: str, call_id: str, item_id: str, status: str = "completed"
) -> ResponseFunctionToolCall:
    """A function call."""
    return ResponseFunctionToolCall.model_construct(
        id=item_id,
        type="function_call",
        call_id=call_id,
        name=name,
        arguments=arguments,
        status=status,
    )


def _usage() -> ResponseUsage:
    return ResponseUsage.model_construct(
        input_tokens=_INPUT_TOKENS,
        output_tokens=_OUTPUT_TOKENS,
        total_tokens=_INPUT_TOKENS + _OUTPUT_TOKENS,
        input_tokens_details=InputTokensDetails.model_construct(cached_tokens=0),
        output_tokens_details=OutputTokensDetails.model_construct(reasoning_tokens=0),
    )


def _response(response_id: str, output: list[Any], status: str) -> Response:
    return Response.model_construct(
        id=response_id,
        object="response",
        created_at=0.0,
        model="bench-scripted",
        status=status,
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        usage=_usage() if status == "completed" else None,
    )


# -- streaming events ------------------------------------------------------------------------


class _Events:
    """Builds the events of one streamed response, numbered in order."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def add(self, cls: Any, **fields: Any) -> None:
        self.events.append(cls.model_construct(sequence_number=len(self.events), **fields))

    def message(self, index: int, item: ResponseOutputMessage, chunk: int) -> None:
        text = item.content[0].text
        where = {"item_id": item.id, "output_index": index, "content_index": 0}
        self.add(
            ResponseOutputItemAddedEvent,
            type="response.output_item.added",
            output_index=index,
            item=message("", item.id, "in_progress"),
        )
        self.add(
            ResponseContentPartAddedEvent,
            type="response.content_part.added",
            part=ResponseOutputText.model_construct(type="output_text", text="", annotations=[]),
            **where,
        )
        for start in range(0, len(text), chunk):
            self.add(
                ResponseTextDeltaEvent,
                type="response.output_text.delta",
                delta=text[start : start + chunk],
                logprobs=[],
                **where,
            )
        self.add(
            ResponseTextDoneEvent, type="response.output_text.done", text=text, logprobs=[], **where
        )
        self.add(
            ResponseContentPartDoneEvent,
            type="response.content_part.done",
            part=ResponseOutputText.model_construct(type="output_text", text=text, annotations=[]),
            **where,
        )

    def function_call(self, index: int, item: ResponseFunctionToolCall) -> None:
        self.add(
            ResponseOutputItemAddedEvent,
            type="response.output_item.added",
            output_index=index,
            item=function_call(item.name, "", item.call_id, item.id, "in_progress"),
        )
        self.add(
            ResponseFunctionCallArgumentsDeltaEvent,
            type="response.function_call_arguments.delta",
            item_id=item.id,
            output_index=index,
            delta=item.arguments,
        )
        self.add(
            ResponseFunctionCallArgumentsDoneEvent,
            type="response.function_call_arguments.done",
            item_id=item.id,
            output_index=index,
            arguments=item.arguments,
        )


def stream_events(response_id: str, output: Turn, chunk: int = 3) -> list[Any]:
    """Every event of one streamed response, in the order the Responses API sends them."""
    ev = _Events()
    ev.add(
        ResponseCreatedEvent,
        type="response.created",
        response=_response(response_id, [], "in_progress"),
    )
    ev.add(
        ResponseInProgressEvent,
        type="response.in_progress",
        response=_response(response_id, [], "in_progress"),
    )
    for index, item in enumerate(output):
        if item.type == "message":
            ev.message(index, item, chunk)
        else:
            ev.function_call(index, item)
        ev.add(
            ResponseOutputItemDoneEvent,
            type="response.output_item.done",
            output_index=index,
            item=item,
        )
    ev.add(
        ResponseCompletedEvent,
        type="response.completed",
        response=_response(response_id, list(output), "completed"),
    )
    return ev.events


# -- the model -------------------------------------------------------------------------------


class ScriptCore:
    """Plays back prebuilt answers and records when each call happened.

    Load answers with :meth:`load` (before timing); every model call, streamed or not, takes the
    next one. A run that asks for more calls than were loaded fails loudly.
    """

    make_response: Callable[[list[Any], str], Any]
    """Builds the runtime's ``ModelResponse`` from output items and a response id."""

    def _init_script(self, make_response: Callable[[list[Any], str], Any]) -> None:
        self.make_response = make_response
        self._answers: deque[Any] = deque()
        self._count = 0
        self.pause = False
        """Streaming only: ``await asyncio.sleep(0)`` after every event (a stream that yields)."""
        self.record = True
        """Take the timestamps below (off when measuring memory: the lists grow)."""
        self.call_times: list[float] = []
        """``perf_counter()`` on entry of every model call."""
        self.reply_times: list[float] = []
        """``perf_counter()`` just before every non-streamed answer is returned."""
        self.first_delta_times: list[float] = []
        """``perf_counter()`` just before the first text delta of a stream is yielded."""

    def load(self, turns: Sequence[Turn], *, stream: bool = False) -> None:
        """Prebuild the answers of ``turns`` (their item ids must be unique per run)."""
        for output in turns:
            self._count += 1
            response_id = f"resp_{self._count}"
            if stream:
                events = stream_events(response_id, output)
                first = next(
                    (i for i, e in enumerate(events) if e.type == "response.output_text.delta"),
                    len(events),
                )
                self._answers.append((events[:first], events[first:]))
            else:
                self._answers.append(self.make_response(list(output), response_id))

    def reset_times(self) -> None:
        """Forget recorded timestamps (after a warm-up)."""
        self.call_times.clear()
        self.reply_times.clear()
        self.first_delta_times.clear()

    @property
    def answers_left(self) -> int:
        """Prebuilt answers not played yet."""
        return len(self._answers)

    def _next(self) -> Any:
        if not self._answers:
            raise RuntimeError("bench scripted model: no prebuilt answer left for this call")
        return self._answers.popleft()

    async def get_response(
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> Any:
        if not self.record:
            return self._next()
        self.call_times.append(_perf())
        answer = self._next()
        self.reply_times.append(_perf())
        return answer

    async def stream_response(
        self,
        system_instructions: Any,
        input: Any,
        model_settings: Any,
        tools: Any,
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        if self.record:
            self.call_times.append(_perf())
        head, tail = self._next()
        pause = self.pause
        for event in head:
            yield event
            if pause:
                await asyncio.sleep(0)
        if self.record and tail and tail[0].type == "response.output_text.delta":
            self.first_delta_times.append(_perf())
        for event in tail:
            yield event
            if pause:
                await asyncio.sleep(0)


def scripted_model(model_base: type, make_response: Callable[[list[Any], str], Any]) -> Any:
    """A :class:`ScriptCore` model that is an instance of ``model_base`` (a runtime's ABC)."""
    cls = _CLASSES.get(model_base)
    if cls is None:
        cls = type(f"BenchScripted{model_base.__name__}", (ScriptCore, model_base), {})
        _CLASSES[model_base] = cls
    model = cls()
    model._init_script(make_response)
    return model


_CLASSES: dict[type, type] = {}
