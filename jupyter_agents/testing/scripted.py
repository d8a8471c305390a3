"""``ScriptedModel``: a deterministic model for tests, demos and your own test suites.

Give it the turns of a conversation; each model call consumes one turn::

    model = ScriptedModel([
        [tool_call("get_weather", {"city": "Paris"})],
        [text("It is sunny in Paris.")],
    ])
    agent = Agent(name="demo", model=model, tools=[get_weather])

For batches, where rows arrive in any order, answer each request from itself instead::

    model = ScriptedModel(respond=lambda request: text(
        "billing" if "refund" in request.user_text else "other"
    ))

Text streams in small deltas (``chunk_size`` characters, ``delay`` seconds apart), usage is
reported, and every request is recorded in ``model.requests`` for assertions. With
``JUPYTER_AGENTS_SCRIPTED_HTTP=1`` every request goes through the real ``openai`` client to the
local OpenAI-compatible test server, which answers with the script (``.scripted_http``).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import itertools
import json
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, Union

from ..runtime.errors import UserError
from ..runtime.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from ..runtime.models._responses_build import (
    EventSequence,
    build_response,
    function_call_item,
    message_item,
    reasoning_item,
)
from ..runtime.models.interface import ModelRequest as CallArgs
from ..runtime.models.interface import RequestModel
from ..runtime.retry import ModelRetryAdvice, ModelRetryAdviceRequest
from ..runtime.tools.kinds import kind_for_tool
from ..runtime.tracing import generation_span
from ..runtime.usage import Usage
from ._steps import (
    ModelCall,
    ModelStep,
    UnconsumedModelSteps,
    UnexpectedModelCall,
    coerce_step,
    is_step,
    model_call,
    output_items,
)

__all__ = [
    "ReceivedRequest",
    "ScriptedItem",
    "ScriptedModel",
    "ScriptedOutput",
    "ScriptedReasoning",
    "ScriptedText",
    "ScriptedToolCall",
    "Step",
    "Turn",
    "output_item",
    "reasoning",
    "text",
    "tool_call",
]


@dataclass(frozen=True)
class ScriptedText:
    """The model says ``text``."""

    text: str


@dataclass(frozen=True)
class ScriptedToolCall:
    """The model calls tool ``name`` with ``arguments`` (a dict, or raw JSON text)."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    call_id: str | None = None


@dataclass(frozen=True)
class ScriptedReasoning:
    """The model reports a reasoning summary."""

    summary: str


@dataclass(frozen=True)
class ScriptedItem:
    """The model emits one Responses API output item given as a dict (any type: a
    ``shell_call``, an ``apply_patch_call``, a hosted tool's call, ...)."""

    raw: dict[str, Any]


ScriptedOutput: TypeAlias = Union[ScriptedText, ScriptedToolCall, ScriptedReasoning, ScriptedItem]
Turn: TypeAlias = Union[
    str,
    ScriptedOutput,
    Sequence[Union[str, ScriptedOutput]],
    Callable[["ReceivedRequest"], Any],
    BaseException,
]
"""One model call's outputs: a list of outputs (a string is text), a function of the request
returning such a list, or an exception to raise."""

Step: TypeAlias = Union[ModelStep, ModelResponse, Mapping[str, Any], Sequence[Any], BaseException]
"""One model call in the form of the SDK's ``agents.testing``: a ``ModelStep``, its dict form, a
``ModelResponse``, a list of Responses API output items, or an exception."""


def text(value: str) -> ScriptedText:
    """A text output."""
    return ScriptedText(value)


def tool_call(
    name: str, arguments: dict[str, Any] | str | None = None, call_id: str | None = None
) -> ScriptedToolCall:
    """A function call output; ``arguments`` may be a dict or raw (even invalid) JSON text."""
    return ScriptedToolCall(name, {} if arguments is None else arguments, call_id)


def reasoning(summary: str) -> ScriptedReasoning:
    """A reasoning summary output."""
    return ScriptedReasoning(summary)


def output_item(raw: dict[str, Any]) -> ScriptedItem:
    """Any Responses API output item, as the API would send it (checked against its type)."""
    return ScriptedItem(dict(raw))


@dataclass
class ReceivedRequest(CallArgs):
    """One request the scripted model received: the call's arguments (``input`` a copy, as a
    list) and whether it was streamed."""

    input: list[dict[str, Any]]
    """What the model was sent, copied: the items as plain dicts."""

    stream: bool = False
    """Whether the request was streamed."""

    @property
    def user_text(self) -> str:
        """The text of the last user message (a batch row's prompt, say)."""
        for item in reversed(self.input):
            if isinstance(item, dict) and item.get("role") == "user":
                content = item.get("content")
                if isinstance(content, str):
                    return content
                return "".join(p.get("text", "") for p in content or () if isinstance(p, dict))
        return ""

    @property
    def handoff_names(self) -> list[str]:
        """Tool names of the handoffs offered."""
        return [h.tool_name for h in self.handoffs]

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered."""
        return [t.name for t in self.tools]

    @property
    def tool_schemas(self) -> list[dict[str, Any]]:
        """The tools as the model would see them."""
        schemas: list[dict[str, Any]] = []
        for t in self.tools:
            kind = kind_for_tool(t)
            if kind is None:
                continue
            param = kind.responses_param(t)
            if param.get("type") == "function":
                param = {k: v for k, v in param.items() if k != "type"}
            schemas.append(param)
        return schemas


def _estimate_tokens(value: Any) -> int:
    return max(1, len(value) // 4) if isinstance(value, str) else 1


class ScriptedModel(RequestModel):
    """A model that plays back scripted turns. See the module docstring."""

    def __init__(
        self,
        turns: Sequence[Turn | Step] = (),
        *,
        steps: Sequence[Step] | None = None,
        emit_traces: bool = False,
        default_usage: Usage | None = None,
        delay: float = 0.0,
        chunk_size: int = 4,
        name: str = "scripted-model",
        respond: Callable[[ReceivedRequest], Turn] | None = None,
        usage: Usage | Callable[[ReceivedRequest], Usage] | None = None,
        price_provider: str | None = None,
    ) -> None:
        if chunk_size < 1:
            raise UserError("ScriptedModel: chunk_size must be at least 1.")
        script = [*turns, *(steps or ())]
        self._sdk = steps is not None or emit_traces or default_usage is not None
        self._turns: list[Any] = []
        self._calls: list[ModelCall] = []
        self._advice: dict[int, tuple[Exception, ModelRetryAdvice]] = {}
        self._sdk = self._sdk or any(is_step(t) for t in script)
        self._turns.extend(coerce_step(t, i) if is_step(t) else t for i, t in enumerate(script))
        self.emit_traces = emit_traces
        """Played the SDK's way (steps, ``extend``, ``emit_traces``, ``default_usage``), the
        model records its calls' spans itself, as the SDK's does: a generation span per call
        with ``emit_traces=True``, none without. Played with this project's turns, the run
        records a generation span for each call."""
        self.default_usage = copy.deepcopy(default_usage)
        """The usage of SDK-form steps that give none (None: one request, no tokens)."""
        self.respond_with = respond
        """Answers every request from the request itself (``respond=``), instead of the script:
        for batches, where rows come in any order."""
        self.delay = delay
        """Seconds between streamed deltas (and before a non-streamed answer)."""
        self.chunk_size = chunk_size
        """Characters per streamed delta."""
        self.name = name
        """The model name reported in responses (and priced: ``name="gpt-4o-mini"`` costs
        what that model would)."""
        self.usage = usage
        """The usage each response reports, or a function of the request giving it (default:
        the characters of the request and the answer, divided by 4)."""
        self.price_provider = price_provider
        self.requests: list[ReceivedRequest] = []
        """Every request received, in order."""
        self._ids = itertools.count(1)

    def add_turns(self, *turns: Turn) -> None:
        """Append turns to the script."""
        self._turns.extend(turns)

    # -- the SDK's ScriptedModel API (agents.testing): steps beside turns --------------------

    def enqueue(self, step: Any) -> None:
        """Append one step in the SDK's form (``ModelStep``, a dict, a ``ModelResponse``, a
        list of output items, an exception)."""
        self.extend([step])

    def extend(self, steps: Iterable[Any]) -> None:
        """Append steps in the SDK's form (checked now: ``InvalidModelStep``)."""
        self._sdk = True
        checked = [
            step if isinstance(step, BaseException) else coerce_step(step, index)
            for index, step in enumerate(steps)
        ]
        self._turns.extend(checked)

    def set_default_usage(self, usage: Usage | None) -> None:
        """The usage of steps that give none."""
        self._sdk = True
        self.default_usage = copy.deepcopy(usage)

    @property
    def remaining_steps(self) -> int:
        """How many steps (turns) have not been played yet."""
        return self.turns_left

    @property
    def calls(self) -> tuple[ModelCall, ...]:
        """Every call received, in order, as the SDK records them."""
        return tuple(self._calls)

    @property
    def first_call(self) -> ModelCall | None:
        """The first call received, or None."""
        return self._calls[0] if self._calls else None

    @property
    def last_call(self) -> ModelCall | None:
        """The latest call received, or None."""
        return self._calls[-1] if self._calls else None

    def assert_complete(self) -> None:
        """Raise ``UnconsumedModelSteps`` when steps are left."""
        if self.turns_left > 0:
            raise UnconsumedModelSteps(
                f"{self.turns_left} scripted model step(s) were not consumed.",
                remaining_steps=self.turns_left,
            )

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        """The retry advice a ``ModelStep.raise_error(..., retry_advice=)`` gave its error."""
        given = self._advice.get(id(request.error))
        return copy.deepcopy(given[1]) if given is not None and given[0] is request.error else None

    @property
    def traces_own_calls(self) -> bool:
        """True when played the SDK's way (see ``emit_traces``)."""
        return self._sdk

    @property
    def turns_left(self) -> int:
        """How many turns have not been played yet."""
        return len(self._turns) - len(self.requests)

    def __repr__(self) -> str:
        return f"ScriptedModel({len(self._turns)} turns, {self.turns_left} left)"

    def _record(self, request: ReceivedRequest, call: ModelCall) -> list[Any] | ModelStep:
        """The next turn's outputs built, or the next step in the SDK's form."""
        index = len(self.requests)
        self.requests.append(request)
        self._calls.append(call)
        if self.respond_with is not None:
            return [self._build(output) for output in _as_outputs(self.respond_with(request))]
        if index >= len(self._turns):
            raise UnexpectedModelCall(self._ran_out(index, call), call=call, call_index=index)
        turn = self._turns[index]
        if isinstance(turn, ModelStep):
            return turn
        if self._sdk and isinstance(turn, Sequence) and not isinstance(turn, str) and not turn:
            return ModelStep(output=())  # the SDK's empty step (with its default usage)
        if isinstance(turn, BaseException):
            raise turn
        if callable(turn) and not isinstance(turn, (ScriptedText, ScriptedToolCall, ScriptedItem)):
            turn = turn(request)
        return [self._build(output) for output in _as_outputs(turn)]

    def _ran_out(self, index: int, call: ModelCall) -> str:
        if self._sdk:
            mode = "streaming" if call.streamed else "non-streaming"
            return f"Unexpected {mode} model call #{index + 1}: no scripted steps remain."
        return (
            f"ScriptedModel ran out of turns: it was given {len(self._turns)} and the run "
            f"asked for turn {index + 1}. Add turns (model.add_turns(...)) or check why the "
            "run made another model call (for example a tool call the script did not expect)."
        )

    async def _resolve(self, step: ModelStep, call: ModelCall) -> ModelStep:
        """The step's answer (its responder called until it gives one); its error raised."""
        while step.responder is not None:
            answer = step.responder(call)
            step = coerce_step(await answer if inspect.isawaitable(answer) else answer)
        if step.error is not None:
            if step.retry_advice is not None:
                self._advice[id(step.error)] = (step.error, copy.deepcopy(step.retry_advice))
            raise step.error
        usage = step.usage if step.usage != Usage() else self.default_usage or Usage(requests=1)
        return dataclasses.replace(step, usage=copy.deepcopy(usage))

    def _build(self, output: Any) -> Any:
        n = next(self._ids)
        if isinstance(output, ScriptedText):
            return message_item(output.text, f"msg_{n}")
        if isinstance(output, ScriptedToolCall):
            arguments = output.arguments
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments)
            return function_call_item(
                output.name, arguments, output.call_id or f"call_{n}", f"fc_{n}"
            )
        if isinstance(output, ScriptedReasoning):
            return reasoning_item(output.summary, f"rs_{n}")
        if isinstance(output, ScriptedItem):
            from openai.types.responses import ResponseOutputItem
            from pydantic import TypeAdapter, ValidationError

            try:
                return TypeAdapter(ResponseOutputItem).validate_python(output.raw)
            except ValidationError as e:
                first = e.errors(include_url=False)[0]
                raise UserError(
                    f"ScriptedModel: output_item({output.raw.get('type')!r}) is not a valid "
                    f"Responses API output item ({first['msg']} at {first['loc']})."
                ) from None
        raise UserError(
            f"ScriptedModel: a turn holds {output!r}; use text(), tool_call(), reasoning() or "
            "output_item()."
        )

    def _usage(self, request: ReceivedRequest, output: list[Any]) -> Usage:
        if self.usage is not None:
            given = self.usage(request) if callable(self.usage) else self.usage
            usage = copy.deepcopy(given)
            usage.requests, usage.request_usage_entries = 1, []
            usage.total_tokens = usage.total_tokens or usage.input_tokens + usage.output_tokens
            return usage
        tokens_in = _estimate_tokens(request.system_instructions) + sum(
            _estimate_tokens(item.get("content") or item.get("output") or item.get("arguments"))
            for item in request.input
        )
        tokens_out = sum(
            _estimate_tokens(getattr(o, "arguments", None) or _text_of(o)) for o in output
        )
        return Usage(
            requests=1,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            total_tokens=tokens_in + tokens_out,
        )

    def _request(self, call: CallArgs, stream: bool) -> ReceivedRequest:
        fields = {f.name: getattr(call, f.name) for f in dataclasses.fields(CallArgs)}
        fields.update(input=_copy_input(call.input), tools=list(call.tools))
        fields.update(handoffs=list(call.handoffs or []), stream=stream)
        return ReceivedRequest(**fields)

    async def respond(self, request: CallArgs) -> ModelResponse:
        """The next scripted turn as one response."""
        if self._sdk:
            with generation_span(disabled=not self.emit_traces):
                return await self._respond(request)
        return await self._respond(request)

    async def _respond(self, request: CallArgs) -> ModelResponse:
        if _over_http():
            from .scripted_http import respond_over_http

            return await respond_over_http(self, request)
        call = model_call(request, streamed=False)
        request = self._request(request, stream=False)
        output = self._record(request, call)
        if isinstance(output, ModelStep):
            step = await self._resolve(output, call)
            return ModelResponse(
                output=output_items(step),
                usage=step.usage,
                response_id=step.response_id,
                request_id=step.request_id,
            )
        if self.delay:
            await asyncio.sleep(self.delay)
        return ModelResponse(
            output=output, usage=self._usage(request, output), response_id=f"resp_{next(self._ids)}"
        )

    async def stream(self, request: CallArgs) -> AsyncIterator[TResponseStreamEvent]:
        """The next scripted turn as streamed events."""
        if not self._sdk:
            async for event in self._stream(request):
                yield event
            return
        span = generation_span(disabled=not self.emit_traces)
        span.start()
        try:
            async for event in self._stream(request):
                yield event
        except Exception as error:
            span.set_error(str(error) or type(error).__name__, {"type": type(error).__name__})
            raise
        finally:
            span.finish()

    async def _stream(self, request: CallArgs) -> AsyncIterator[TResponseStreamEvent]:
        if _over_http():
            from .scripted_http import stream_over_http

            async for event in stream_over_http(self, request):
                yield event
            return
        call = model_call(request, streamed=True)
        request = self._request(request, stream=True)
        output = self._record(request, call)
        if isinstance(output, ModelStep):
            step = await self._resolve(output, call)
            async for event in _step_events(step, call, self.name, self.chunk_size):
                yield event
            return
        response_id = f"resp_{next(self._ids)}"
        seq = EventSequence()
        yield seq.created(build_response(response_id, self.name, [], None, "in_progress"))
        yield seq.in_progress(build_response(response_id, self.name, [], None, "in_progress"))
        for index, item in enumerate(output):
            for event in seq.item_events(index, item, self.chunk_size):
                if self.delay and event.type.endswith(".delta"):
                    await asyncio.sleep(self.delay)
                yield event
        usage = self._usage(request, output)
        yield seq.completed(build_response(response_id, self.name, output, usage))


async def _step_events(
    step: ModelStep, call: ModelCall, name: str, chunk_size: int
) -> AsyncIterator[TResponseStreamEvent]:
    """A step's stream: its own events (or its factory's), else the events of its output."""
    given = step.stream_events
    if callable(given):
        async for event in given(call):
            yield event
        return
    if given is not None:
        for event in given:
            yield event
        return
    output, response_id, seq = output_items(step), step.response_id or "", EventSequence()
    yield seq.created(build_response(response_id, name, [], None, "in_progress"))
    yield seq.in_progress(build_response(response_id, name, [], None, "in_progress"))
    for index, item in enumerate(output):
        for event in seq.item_events(index, item, chunk_size):
            yield event
    yield seq.completed(build_response(response_id, name, output, step.usage))


def _over_http() -> bool:
    """Whether requests go over HTTP (``JUPYTER_AGENTS_SCRIPTED_HTTP``; the server and the
    client are imported only then)."""
    return os.environ.get("JUPYTER_AGENTS_SCRIPTED_HTTP", "").strip() not in ("", "0")


def _copy_input(items: Sequence[TResponseInputItem] | str) -> list[TResponseInputItem]:
    """A shallow copy of the input as a list (a string input becomes one user message)."""
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    return list(items)


def _as_outputs(turn: Any) -> list[Any]:
    if isinstance(turn, str):
        return [ScriptedText(turn)]
    if isinstance(turn, (ScriptedText, ScriptedToolCall, ScriptedReasoning, ScriptedItem)):
        return [turn]
    return [ScriptedText(o) if isinstance(o, str) else o for o in turn]


def _text_of(item: Any) -> str:
    content = getattr(item, "content", None) or []
    return "".join(getattr(part, "text", "") for part in content)
