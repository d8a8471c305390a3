"""Send traces to OpenTelemetry: a processor that mirrors each trace and span as an OTel span.

Needs the optional extra: ``pip install "jupyter_agents[otel]"``. OpenTelemetry is imported
when the exporter is constructed, not when this module is imported. Where the spans go (an
OTLP collector, the console, memory) is the tracer provider's business::

    from jupyter_agents.runtime.tracing import add_trace_processor
    from jupyter_agents.runtime.tracing.otel import OpenTelemetryExporter

    add_trace_processor(OpenTelemetryExporter())  # uses the global OTel tracer provider

Mapping: a trace becomes a root span named after its workflow (a child of whatever OTel span
is current when the trace starts); each span becomes a child of its parent's OTel span, named
after the GenAI semantic conventions (``invoke_agent <name>``, ``chat <model>``,
``execute_tool <name>``, ...), with the same start and end times, the exported span data as
``jupyter_agents.*`` attributes (so sensitive fields stay out when the trace says so), a few
``gen_ai.*`` attributes, and an ERROR status carrying the span's error message.
"""

from __future__ import annotations

import importlib
import json
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .processors import TracingProcessor

if TYPE_CHECKING:
    from opentelemetry import trace as otel_api  # type: ignore[import-not-found,unused-ignore]

    from .spans import Span
    from .traces import Trace

__all__ = ["OpenTelemetryExporter"]

_INSTALL_HINT = (
    "OpenTelemetryExporter needs the OpenTelemetry SDK, which is not installed. "
    'Install it with: pip install "jupyter_agents[otel]"'
)

_OPERATIONS = {"agent": "invoke_agent", "generation": "chat", "function": "execute_tool"}


def _load_otel() -> Any:
    try:
        importlib.import_module("opentelemetry.sdk.trace")
        return importlib.import_module("opentelemetry.trace")
    except ImportError as exc:
        raise UserError(_INSTALL_HINT) from exc


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _ns(when: str | None) -> int | None:
    """Nanoseconds since the epoch, from a span's or trace's ISO 8601 time."""
    if when is None:
        return None
    moment = datetime.fromisoformat(when)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _attribute(value: Any) -> Any:
    """An OTel attribute value: primitives and lists of strings as they are, else JSON."""
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, default=str, ensure_ascii=False)


def _span_name(data: dict[str, Any]) -> str:
    kind = data.get("type", "span")
    if kind == "generation":
        return f"chat {data.get('model') or 'model'}"
    if kind == "handoff":
        return f"handoff {data.get('from_agent')} -> {data.get('to_agent')}"
    if kind == "custom":
        return str(data.get("name", "custom"))
    prefix = _OPERATIONS.get(kind, kind)
    return f"{prefix} {data.get('name')}" if data.get("name") else prefix


def _span_attributes(span: Span[Any]) -> dict[str, Any]:
    record = span.export() or {}
    data: dict[str, Any] = record.get("span_data") or {}
    attributes: dict[str, Any] = {
        "jupyter_agents.span_id": span.span_id,
        "jupyter_agents.trace_id": span.trace_id,
        "jupyter_agents.span_type": data.get("type", "span"),
    }
    for key, value in data.items():
        if key != "type" and value is not None:
            attributes[f"jupyter_agents.{key}"] = _attribute(value)
    kind = data.get("type")
    if kind in _OPERATIONS:
        attributes["gen_ai.operation.name"] = _OPERATIONS[kind]
    if kind == "agent":
        attributes["gen_ai.agent.name"] = data["name"]
    elif kind == "function":
        attributes["gen_ai.tool.name"] = data["name"]
    elif kind == "generation":
        if data.get("model"):
            attributes["gen_ai.request.model"] = data["model"]
        usage = data.get("usage") or {}
        for key in ("input_tokens", "output_tokens"):
            if isinstance(usage.get(key), int):
                attributes[f"gen_ai.usage.{key}"] = usage[key]
    return attributes


class OpenTelemetryExporter(TracingProcessor):
    """A processor that mirrors traces and spans as OpenTelemetry spans.

    Args:
        tracer_provider: Where to create the spans; the global OTel tracer provider by default.
        tracer_name: The instrumentation scope name of the tracer.

    Raises:
        UserError: OpenTelemetry's SDK is not installed.
    """

    def __init__(
        self,
        tracer_provider: otel_api.TracerProvider | None = None,
        tracer_name: str = "jupyter_agents",
    ) -> None:
        self._otel = _load_otel()
        self._provider = tracer_provider or self._otel.get_tracer_provider()
        self._tracer: otel_api.Tracer = self._provider.get_tracer(tracer_name)
        # Open OTel spans by our trace id (the root) or span id (the others).
        self._open: dict[str, otel_api.Span] = {}
        self._lock = threading.Lock()

    def on_trace_start(self, trace: Trace) -> None:
        """Open the root OTel span of the trace."""
        attributes = {"jupyter_agents.trace_id": trace.trace_id}
        if trace.group_id is not None:
            attributes["jupyter_agents.group_id"] = trace.group_id
        for key, value in (trace.metadata or {}).items():
            if value is not None:
                attributes[f"jupyter_agents.metadata.{key}"] = _attribute(value)
        otel_span = self._tracer.start_span(
            trace.workflow_name, attributes=attributes, start_time=_ns(trace.started_at)
        )
        with self._lock:
            self._open[trace.trace_id] = otel_span

    def on_trace_end(self, trace: Trace) -> None:
        """Close the root OTel span of the trace."""
        with self._lock:
            otel_span = self._open.pop(trace.trace_id, None)
        if otel_span is not None:
            otel_span.end(end_time=_ns(trace.ended_at))

    def on_span_start(self, span: Span[Any]) -> None:
        """Open an OTel span under the OTel span of the parent (or of the trace)."""
        with self._lock:
            parent = self._open.get(span.parent_id or span.trace_id)
        context = None if parent is None else self._otel.set_span_in_context(parent)
        otel_span = self._tracer.start_span(
            _span_name(span.span_data.export()), context=context, start_time=_ns(span.started_at)
        )
        with self._lock:
            self._open[span.span_id] = otel_span

    def on_span_end(self, span: Span[Any]) -> None:
        """Copy the final data and error onto the OTel span and close it."""
        with self._lock:
            otel_span = self._open.pop(span.span_id, None)
        if otel_span is None:
            return
        otel_span.update_name(_span_name(span.span_data.export()))
        otel_span.set_attributes(_span_attributes(span))
        if span.error is not None:
            status = self._otel.Status(self._otel.StatusCode.ERROR, span.error["message"])
            otel_span.set_status(status)
        otel_span.end(end_time=_ns(span.ended_at))

    def force_flush(self) -> None:
        """Ask the tracer provider to export what it holds (when it can)."""
        flush = getattr(self._provider, "force_flush", None)
        if flush is not None:
            flush()

    def shutdown(self) -> None:
        """Flush; the tracer provider itself belongs to the caller and stays open."""
        self.force_flush()
