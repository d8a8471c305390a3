"""Span helpers: each returns a span (not started yet) in the current trace.

The parent of a new span is the current span (a ContextVar, so ``asyncio`` tasks and
``asyncio.to_thread`` calls inherit it) or, with ``parent=``, the span or trace given. When
tracing records nothing (no current trace, a disabled trace, no processors,
``set_tracing_disabled(True)``), every helper returns the shared ``NO_OP_SPAN`` before
building any span data: no ids, no clock reads, no allocation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, Union

from ._scope import current_span, current_trace, gen_span_id
from .processors import _registry
from .span_data import (
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    SpanData,
)
from .spans import NO_OP_SPAN, Span
from .traces import Trace

__all__ = [
    "agent_span",
    "custom_span",
    "function_span",
    "generation_span",
    "get_current_span",
    "guardrail_span",
    "handoff_span",
]

Parent = Union[Trace, Span[Any], None]
"""Where a new span goes: under this span, at the top of this trace, or (``None``) under the
current span of the current trace."""

TData = TypeVar("TData", bound=SpanData)


def _recording_trace(parent: Parent, disabled: bool) -> Trace | None:
    if disabled or _registry.disabled:
        return None
    if parent is None:
        trace = current_trace.get()
    elif isinstance(parent, Span):
        trace = None if parent is NO_OP_SPAN else parent._trace
    else:
        trace = parent
    if trace is None or not trace._processors:
        return None
    return trace


def _new(trace: Trace, parent: Parent, data: TData, span_id: str | None) -> Span[TData]:
    if parent is None:
        span = current_span.get()
        parent_id = span.span_id if span is not None and span.trace_id == trace.trace_id else None
    elif isinstance(parent, Span):
        parent_id = parent.span_id
    else:
        parent_id = None
    return Span(trace, span_id or gen_span_id(), parent_id, data)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    return _new(trace, parent, AgentSpanData(name, handoffs, tools, output_type), span_id)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    config = None if model_config is None else dict(model_config)
    return _new(trace, parent, GenerationSpanData(model, input, output, config, usage), span_id)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    return _new(trace, parent, FunctionSpanData(name, input, output), span_id)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    return _new(trace, parent, GuardrailSpanData(name, triggered), span_id)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    return _new(trace, parent, HandoffSpanData(from_agent, to_agent), span_id)


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
        disabled: Record nothing: the shared no-op span is returned.
    """
    trace = _recording_trace(parent, disabled)
    if trace is None:
        return NO_OP_SPAN
    return _new(trace, parent, CustomSpanData(name, {} if data is None else data), span_id)


def get_current_span() -> Span[Any] | None:
    """The span current in this context, or ``None``."""
    return current_span.get()
