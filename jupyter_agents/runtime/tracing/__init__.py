"""Tracing: record what a run did as a tree of timed spans, and hand it to processors.

A trace covers one workflow; spans inside it cover agents, model calls, tool calls,
guardrails and handoffs. Processors (``TracingProcessor``) receive them as they start
and end; ``JSONLinesExporter`` writes them to a file and ``otel.OpenTelemetryExporter``
mirrors them to OpenTelemetry. Nothing is sent anywhere by default: with no processor
registered, or with ``set_tracing_disabled(True)``, every helper returns one shared no-op span.

Example::

    add_trace_processor(JSONLinesExporter("traces.jsonl"))
    with trace("weather bot", include_sensitive_data=False):
        with agent_span("assistant", tools=["get_weather"]):
            with function_span("get_weather", input='{"city": "Paris"}') as span:
                span.span_data.output = "sunny"
"""

from __future__ import annotations

from .batch import BatchTraceProcessor, TracingExporter
from .config import TracingConfig
from .create import (
    agent_span,
    custom_span,
    function_span,
    generation_span,
    get_current_span,
    guardrail_span,
    handoff_span,
    task_span,
    turn_span,
)
from .otel import OpenTelemetryExporter
from .processors import (
    JSONLinesExporter,
    TracingProcessor,
    add_trace_processor,
    flush_traces,
    get_trace_processors,
    set_trace_processors,
    set_tracing_disabled,
    set_tracing_export_api_key,
)
from .provider import DefaultTraceProvider, TraceProvider
from .scope import Scope
from .setup import get_trace_provider, set_trace_provider
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
from .spans import NO_OP_SPAN, NoOpSpan, Span, SpanError, SpanImpl
from .traces import (
    NoOpTrace,
    ReattachedTrace,
    Trace,
    TraceImpl,
    TraceState,
    get_current_trace,
    reattach_trace,
    trace,
)
from .util import gen_group_id, gen_span_id, gen_trace_id, time_iso

__all__ = [
    "NO_OP_SPAN",
    "AgentSpanData",
    "BatchTraceProcessor",
    "CustomSpanData",
    "DefaultTraceProvider",
    "FunctionSpanData",
    "GenerationSpanData",
    "GuardrailSpanData",
    "HandoffSpanData",
    "JSONLinesExporter",
    "NoOpSpan",
    "NoOpTrace",
    "OpenTelemetryExporter",
    "ReattachedTrace",
    "Scope",
    "Span",
    "SpanData",
    "SpanError",
    "SpanImpl",
    "TaskSpanData",
    "Trace",
    "TraceImpl",
    "TraceProvider",
    "TraceState",
    "TracingConfig",
    "TracingExporter",
    "TracingProcessor",
    "TurnSpanData",
    "add_trace_processor",
    "agent_span",
    "custom_span",
    "flush_traces",
    "function_span",
    "gen_group_id",
    "gen_span_id",
    "gen_trace_id",
    "generation_span",
    "get_current_span",
    "get_current_trace",
    "get_trace_processors",
    "get_trace_provider",
    "guardrail_span",
    "handoff_span",
    "reattach_trace",
    "set_trace_processors",
    "set_trace_provider",
    "set_tracing_disabled",
    "set_tracing_export_api_key",
    "task_span",
    "time_iso",
    "trace",
    "turn_span",
]
