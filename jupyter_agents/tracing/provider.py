"""The SDK's ``agents.tracing.provider``: the trace provider interface and the default one."""

from __future__ import annotations

from ..runtime.tracing.provider import (
    DefaultTraceProvider,
    SynchronousMultiTracingProcessor,
    TraceProvider,
)

__all__ = ["DefaultTraceProvider", "SynchronousMultiTracingProcessor", "TraceProvider"]
