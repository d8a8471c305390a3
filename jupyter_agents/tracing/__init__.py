"""Tracing, at the path the OpenAI Agents SDK uses (``agents.tracing``).

The names the SDK's module offers, where this project has them (and its submodules
``processor_interface`` and ``processors``); everything here (and the
exporters, ``JSONLinesExporter`` and
``OpenTelemetryExporter``) is also importable from ``jupyter_agents``.
"""

from __future__ import annotations

from ..runtime.tracing import (
    AgentSpanData,
    BatchTraceProcessor,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    Span,
    SpanData,
    SpanError,
    Trace,
    TraceProvider,
    TracingConfig,
    TracingExporter,
    TracingProcessor,
    add_trace_processor,
    agent_span,
    custom_span,
    flush_traces,
    function_span,
    gen_span_id,
    gen_trace_id,
    generation_span,
    get_current_span,
    get_current_trace,
    get_trace_provider,
    guardrail_span,
    handoff_span,
    set_trace_processors,
    set_trace_provider,
    set_tracing_disabled,
    trace,
)

__all__ = [
    "AgentSpanData",
    "BatchTraceProcessor",
    "CustomSpanData",
    "FunctionSpanData",
    "GenerationSpanData",
    "GuardrailSpanData",
    "HandoffSpanData",
    "Span",
    "SpanData",
    "SpanError",
    "Trace",
    "TraceProvider",
    "TracingConfig",
    "TracingExporter",
    "TracingProcessor",
    "add_trace_processor",
    "agent_span",
    "custom_span",
    "flush_traces",
    "function_span",
    "gen_span_id",
    "gen_trace_id",
    "generation_span",
    "get_current_span",
    "get_current_trace",
    "get_trace_provider",
    "guardrail_span",
    "handoff_span",
    "set_trace_processors",
    "set_trace_provider",
    "set_tracing_disabled",
    "trace",
]
