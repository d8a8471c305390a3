"""Span helpers: each returns a span (not started yet) in the current trace.

The parent of a new span is the current span (a ContextVar, so ``asyncio`` tasks and
``asyncio.to_thread`` calls inherit it) or, with ``parent=``, the span or trace given. Each
goes through the current trace provider (``setup.get_trace_provider()``). With the default
provider, when tracing records nothing (no current trace, a disabled trace, no processors,
``set_tracing_disabled(True)``), every helper returns the shared ``NO_OP_SPAN`` before
building any span data: no ids, no clock reads. A span made with
``disabled=True`` records nothing, and neither do the spans created inside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar, Union

from . import setup
from .provider import DefaultTraceProvider
from .scope import Scope, current_trace
from .span_data import (
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    SpanData,
    TaskSpanData,
    TurnSpanData,
)
from .spans import NO_OP_SPAN, NoOpSpan, Span
from .traces import NoOpTrace, Trace

__all__ = [
    "agent_span",
    "custom_span",
    "function_span",
    "generation_span",
    "get_current_span",
    "guardrail_span",
    "handoff_span",
    "task_span",
    "turn_span",
]

Parent = Union[Trace, Span[Any], None]
"""Where a new span goes: under this span, at the top of this trace, or (``None``) under the
current span of the current trace."""

TData = TypeVar("TData", bound=SpanData)


def _span(
    kind: Callable[..., TData],
    args: tuple[Any, ...],
    parent: Parent,
    span_id: str | None,
    disabled: bool,
) -> Span[TData]:
    provider = setup.GLOBAL_TRACE_PROVIDER or setup.get_trace_provider()
    if type(provider) is DefaultTraceProvider:
        if parent is None and (provider._disabled or type(current_trace.get()) in _SILENT):
            return NO_OP_SPAN  # tracing records nothing here: the cheapest way out
    else:
        data = kind(*args)
        return provider.create_span(data, span_id=span_id, parent=parent, disabled=disabled)
    trace = provider.recording_trace(parent, False)
    if trace is None:
        return NO_OP_SPAN
    if disabled:  # silences the spans created inside it too, so it becomes current
        return NoOpSpan(kind(*args))
    return provider.new_span(trace, parent, kind(*args), span_id)


_SILENT = (type(None), NoOpTrace)
"""Current traces under which a span records nothing (no trace, a no-op one)."""


def _generation_data(
    model: str | None,
    input: Any,
    output: Any,
    model_config: Mapping[str, Any] | None,
    usage: dict[str, Any] | None,
) -> GenerationSpanData:
    config = None if model_config is None else dict(model_config)
    return GenerationSpanData(model, input, output, config, usage)


def agent_span(
    name: str,
    tools: list[str] | None = None,
    output_type: str | None = None,
    *,
    handoffs: list[str] | None = None,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[AgentSpanData]:
    """A span for an agent's stretch of the run.

    Args:
        name: The agent's name.
        tools: Names of its tools.
        output_type: Name of its structured output type.
        handoffs: Names of the agents it can hand off to.
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(AgentSpanData, (name, handoffs, tools, output_type), parent, span_id, disabled)


def generation_span(
    model: str | None = None,
    input: Any = None,
    output: Any = None,
    model_config: Mapping[str, Any] | None = None,
    usage: dict[str, Any] | None = None,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[GenerationSpanData]:
    """A span for one model call.

    Args:
        model: The model name.
        input: The messages sent (dropped from exports without sensitive data).
        output: What came back (dropped from exports without sensitive data).
        model_config: Settings of the call.
        usage: Token counts.
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(
        _generation_data, (model, input, output, model_config, usage), parent, span_id, disabled
    )


def function_span(
    name: str,
    input: Any = None,
    output: Any = None,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[FunctionSpanData]:
    """A span for one tool call.

    Args:
        name: The tool's name.
        input: Its arguments (dropped from exports without sensitive data).
        output: What it returned (dropped from exports without sensitive data).
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(FunctionSpanData, (name, input, output), parent, span_id, disabled)


def guardrail_span(
    name: str,
    triggered: bool = False,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[GuardrailSpanData]:
    """A span for one guardrail check.

    Args:
        name: The guardrail's name.
        triggered: Whether its tripwire fired (often set later on ``span.span_data``).
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(GuardrailSpanData, (name, triggered), parent, span_id, disabled)


def handoff_span(
    from_agent: str | None = None,
    to_agent: str | None = None,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[HandoffSpanData]:
    """A span for a handoff between agents.

    Args:
        from_agent: The agent handing off.
        to_agent: The agent taking over.
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(HandoffSpanData, (from_agent, to_agent), parent, span_id, disabled)


def custom_span(
    name: str,
    data: dict[str, Any] | None = None,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[CustomSpanData]:
    """A span for anything else.

    Args:
        name: What the span measures.
        data: Free-form JSON-friendly values (always exported).
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(CustomSpanData, (name, {} if data is None else data), parent, span_id, disabled)


def task_span(
    name: str,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[TaskSpanData]:
    """A span for one ``Runner`` invocation (the run records it unless
    ``RunConfig(tracing={"include_task_and_turn_spans": False})``).

    Args:
        name: The run's workflow name.
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(TaskSpanData, (name,), parent, span_id, disabled)


def turn_span(
    turn: int,
    agent_name: str,
    *,
    parent: Parent = None,
    span_id: str | None = None,
    disabled: bool = False,
) -> Span[TurnSpanData]:
    """A span for one turn of the run loop.

    Args:
        turn: The turn's number in the run, from 1.
        agent_name: The agent taking the turn.
        parent: Put the span under this span or trace instead of the current span.
        span_id: The span's id (default: a new one from ``gen_span_id``).
        disabled: Record nothing, here and in the spans created inside it.
    """
    return _span(TurnSpanData, (turn, agent_name), parent, span_id, disabled)


def get_current_span() -> Span[Any] | None:
    """The span current in this context, or ``None``."""
    return Scope.get_current_span()
