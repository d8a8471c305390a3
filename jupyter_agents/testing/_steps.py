"""The OpenAI Agents SDK's form of a ``ScriptedModel`` script: steps (``ModelStep``, a
``ModelStepSpec`` dict, a ``ModelResponse``, a list of output items, an exception), the calls
recorded (``ModelCall``), the errors, and the helpers that build output items.

``ScriptedModel`` (``scripted.py``) plays these steps as the SDK's ``agents.testing`` does, beside
this project's own turns (``text()``, ``tool_call()``, ...).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, TypedDict

from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputItem,
    ResponseOutputMessage,
    ResponseOutputText,
)
from pydantic import TypeAdapter

from ..runtime.errors import UserError
from ..runtime.items import ModelResponse, TResponseOutputItem, TResponseStreamEvent
from ..runtime.model_settings import ModelSettings
from ..runtime.models.interface import ModelRequest, ModelTracing
from ..runtime.retry import ModelRetryAdvice
from ..runtime.usage import Usage

__all__ = [
    "InvalidModelStep",
    "ModelCall",
    "ModelScriptError",
    "ModelStep",
    "ModelStepSpec",
    "UnconsumedModelSteps",
    "UnexpectedModelCall",
    "assistant_message",
    "coerce_step",
    "function_call",
    "is_step",
    "model_call",
    "output_items",
]


class ModelScriptError(Exception):
    """A scripted model's script was wrong, ran out, or was not used up."""


StepProblem = Literal[
    "invalid_input",
    "unsupported_field",
    "invalid_error",
    "invalid_responder",
    "invalid_stream_events",
    "conflicting_outcomes",
    "invalid_retry_advice",
]


class InvalidModelStep(ModelScriptError):
    """A step of the script is not a step (raised when the model is given it)."""

    def __init__(self, message: str, *, reason: StepProblem, input_index: int) -> None:
        super().__init__(message)
        self.reason = reason
        """What is wrong with it."""
        self.input_index = input_index
        """Its position among the steps given at once."""


class UnexpectedModelCall(ModelScriptError, UserError):
    """The model was called with no step left (also a ``UserError``, as this project's own
    script running out is)."""

    def __init__(self, message: str, *, call: ModelCall | None = None, call_index: int) -> None:
        UserError.__init__(self, message)
        self.call = call
        """The call that found no step."""
        self.call_index = call_index
        """Its position among the model's calls (from 0)."""


class UnconsumedModelSteps(ModelScriptError):
    """``assert_complete()`` found steps the run did not use."""

    def __init__(self, message: str, *, remaining_steps: int) -> None:
        super().__init__(message)
        self.remaining_steps = remaining_steps
        """How many were left."""


@dataclass(frozen=True)
class ModelCall:
    """One call the scripted model received, with the arguments of the SDK's ``Model``
    interface (copied when the call was made)."""

    system_instructions: str | None
    """The system prompt."""
    input: Any
    """The input as given (a string or a list of items)."""
    model_settings: ModelSettings
    """The resolved settings."""
    tools: list[Any]
    """The tools offered."""
    output_schema: Any
    """The final output's schema, or None."""
    handoffs: list[Any]
    """The handoffs offered."""
    tracing: ModelTracing
    """Whether the call is traced."""
    previous_response_id: str | None
    """The stored response the call continues."""
    conversation_id: str | None
    """The stored conversation the call belongs to."""
    prompt: Any
    """The stored prompt, or None."""
    streamed: bool
    """Whether the call was streamed."""


def model_call(request: ModelRequest, *, streamed: bool) -> ModelCall:
    """The call ``request`` as the SDK records it (its input and settings copied)."""
    return ModelCall(
        system_instructions=request.system_instructions,
        input=copy.deepcopy(request.input),
        model_settings=copy.deepcopy(request.model_settings),
        tools=list(request.tools),
        output_schema=request.output_schema,
        handoffs=list(request.handoffs or ()),
        tracing=request.tracing,
        previous_response_id=request.previous_response_id,
        conversation_id=request.conversation_id,
        prompt=copy.deepcopy(request.prompt),
        streamed=streamed,
    )


ModelStepResult: TypeAlias = Any
"""What a step may be: a ``ModelStep``, a ``ModelStepSpec``, a ``ModelResponse``, a list of
output items, or an exception."""
ModelResponder: TypeAlias = Callable[[ModelCall], "ModelStepResult | Awaitable[ModelStepResult]"]
ModelStreamFactory: TypeAlias = Callable[[ModelCall], AsyncIterator[TResponseStreamEvent]]


@dataclass
class ModelStep:
    """One scripted model answer: its output items, usage and ids, or an error to raise, or a
    function of the call that gives the answer, or the exact stream events to send."""

    output: Sequence[Any] = field(default_factory=tuple)
    """The output items (Responses API items, objects or dicts)."""
    usage: Usage = field(default_factory=Usage)
    """The usage reported (an empty one: the model's default usage)."""
    response_id: str | None = "resp-789"
    """The response's id."""
    request_id: str | None = None
    """The provider's request id."""
    raw_usage: dict[str, Any] | None = None
    """The provider's usage as it sent it."""
    error: Exception | None = None
    """Raise this instead of answering."""
    responder: ModelResponder | None = None
    """Give the answer from the call (any step form, or an awaitable of one)."""
    stream_events: Sequence[TResponseStreamEvent] | ModelStreamFactory | None = None
    """Send exactly these events when streamed (or the events this function yields)."""
    retry_advice: ModelRetryAdvice | None = None
    """The retry advice for ``error`` (``Model.get_retry_advice``)."""

    @classmethod
    def raise_error(
        cls, error: Exception, *, retry_advice: ModelRetryAdvice | None = None
    ) -> ModelStep:
        """A step that raises ``error``."""
        return cls(error=error, retry_advice=retry_advice)

    @classmethod
    def respond(cls, responder: ModelResponder) -> ModelStep:
        """A step answered by ``responder(call)``."""
        return cls(responder=responder)

    @classmethod
    def stream(
        cls,
        events: Sequence[TResponseStreamEvent] | ModelStreamFactory,
        *,
        output: Sequence[Any] = (),
        usage: Usage | None = None,
        response_id: str | None = "resp-789",
    ) -> ModelStep:
        """A step streamed as exactly ``events``."""
        given = events if callable(events) else tuple(events)
        return cls(
            output=output, usage=usage or Usage(), response_id=response_id, stream_events=given
        )


class ModelStepSpec(TypedDict, total=False):
    """A ``ModelStep`` as a dict."""

    output: Sequence[Any]
    usage: Usage
    response_id: str | None
    request_id: str | None
    raw_usage: dict[str, Any] | None
    error: Exception | None
    responder: ModelResponder | None
    stream_events: Sequence[TResponseStreamEvent] | ModelStreamFactory | None
    retry_advice: ModelRetryAdvice | None


_STEP_FIELDS = frozenset(ModelStepSpec.__annotations__)


@functools.cache
def _output_item() -> TypeAdapter[Any]:
    """The validator of Responses API output items (built once, when first needed: building it
    takes as long as importing this module)."""
    return TypeAdapter(ResponseOutputItem)


def is_step(value: Any) -> bool:
    """Whether ``value`` is a step in the SDK's form (not one of this project's turns)."""
    if isinstance(value, (ModelStep, ModelResponse, Mapping)):
        return True
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        return False
    return bool(value) and all(
        isinstance(item, Mapping) or hasattr(item, "model_dump") for item in value
    )


def _invalid(index: int, reason: StepProblem, detail: str) -> InvalidModelStep:
    return InvalidModelStep(
        f"Scripted model step #{index + 1} {detail}.", reason=reason, input_index=index
    )


def coerce_step(value: Any, index: int = 0) -> ModelStep:
    """``value`` (any step form) as a checked ``ModelStep`` of its own (copied)."""
    if isinstance(value, ModelStep):
        step = value
    elif isinstance(value, ModelResponse):
        step = ModelStep(
            output=value.output,
            usage=value.usage,
            response_id=value.response_id,
            request_id=getattr(value, "request_id", None),
        )
    elif isinstance(value, Exception):
        step = ModelStep(error=value)
    elif isinstance(value, Mapping):
        if any(key not in _STEP_FIELDS for key in value):
            raise _invalid(index, "unsupported_field", "contains unsupported fields")
        step = ModelStep(**dict(value))
    else:
        step = ModelStep(output=value)
    _check(step, index)
    given = step.stream_events
    return ModelStep(
        output=copy.deepcopy(step.output),
        usage=copy.deepcopy(step.usage),
        response_id=step.response_id,
        request_id=step.request_id,
        raw_usage=copy.deepcopy(step.raw_usage),
        error=step.error,
        responder=step.responder,
        stream_events=given if given is None or callable(given) else copy.deepcopy(given),
        retry_advice=copy.deepcopy(step.retry_advice),
    )


def _check(step: ModelStep, index: int) -> None:
    """Raise ``InvalidModelStep`` for a step whose fields have the wrong kinds."""
    problems: list[tuple[bool, StepProblem, str]] = [
        (
            not isinstance(step.output, Sequence) or isinstance(step.output, (str, bytes)),
            "invalid_input",
            "must use a sequence for output",
        ),
        (not isinstance(step.usage, Usage), "invalid_input", "must use Usage for usage"),
        (
            step.error is not None and not isinstance(step.error, Exception),
            "invalid_error",
            "must use an Exception for error",
        ),
        (
            step.responder is not None and not callable(step.responder),
            "invalid_responder",
            "must use a callable responder",
        ),
        (
            sum(x is not None for x in (step.error, step.responder, step.stream_events)) > 1,
            "conflicting_outcomes",
            "cannot combine error, responder, and stream_events outcomes",
        ),
        (
            step.retry_advice is not None
            and (not isinstance(step.retry_advice, ModelRetryAdvice) or step.error is None),
            "invalid_retry_advice",
            "requires an error and a ModelRetryAdvice value",
        ),
    ]
    for wrong, reason, detail in problems:
        if wrong:
            raise _invalid(index, reason, detail)


def output_items(step: ModelStep) -> list[TResponseOutputItem]:
    """The step's output as Responses API output items (dicts validated into objects)."""
    return [
        _output_item().validate_python(item) if isinstance(item, Mapping) else item
        for item in step.output
    ]


def assistant_message(text: str, *, item_id: str = "scripted-message") -> TResponseOutputItem:
    """An assistant message output item saying ``text``."""
    part = ResponseOutputText(text=text, type="output_text", annotations=[], logprobs=[])
    return ResponseOutputMessage(
        id=item_id, type="message", role="assistant", status="completed", content=[part]
    )


def function_call(
    name: str,
    arguments: str | Mapping[str, Any],
    *,
    call_id: str,
    item_id: str | None = None,
    namespace: str | None = None,
) -> TResponseOutputItem:
    """A function call output item (``arguments`` a JSON string, or a dict to encode); its id
    is ``call_id`` unless ``item_id`` is given."""
    text = (
        arguments
        if isinstance(arguments, str)
        else json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    )
    fields: dict[str, Any] = {"namespace": namespace} if namespace is not None else {}
    return ResponseFunctionToolCall(
        id=item_id if item_id is not None else call_id,
        call_id=call_id,
        type="function_call",
        name=name,
        arguments=text,
        **fields,
    )
