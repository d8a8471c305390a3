"""The SDK's ``agents.tracing.processors``: the processors that ship (no OpenAI backend
exporter here: nothing is sent anywhere unless you add a processor)."""

from __future__ import annotations

from ..runtime.tracing import BatchTraceProcessor, JSONLinesExporter, OpenTelemetryExporter

__all__ = ["BatchTraceProcessor", "JSONLinesExporter", "OpenTelemetryExporter"]
