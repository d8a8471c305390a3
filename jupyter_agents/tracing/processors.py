"""The SDK's ``agents.tracing.processors``: the processors and exporters that ship.

``default_processor()`` (a ``BatchTraceProcessor`` over ``BackendSpanExporter``, which posts to
OpenAI's traces endpoint) is not registered here: nothing leaves the process unless you add it
(``add_trace_processor(default_processor())``) or another processor.
"""

from __future__ import annotations

from ..runtime.tracing import BatchTraceProcessor, JSONLinesExporter, OpenTelemetryExporter
from ..runtime.tracing.backend import (
    BackendSpanExporter,
    ConsoleSpanExporter,
    default_exporter,
    default_processor,
)

__all__ = [
    "BackendSpanExporter",
    "BatchTraceProcessor",
    "ConsoleSpanExporter",
    "JSONLinesExporter",
    "OpenTelemetryExporter",
    "default_exporter",
    "default_processor",
]
