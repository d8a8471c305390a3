"""The SDK's ``agents.tracing.processor_interface``: the processor and exporter interfaces."""

from __future__ import annotations

from ..runtime.tracing import TracingExporter, TracingProcessor

__all__ = ["TracingExporter", "TracingProcessor"]
