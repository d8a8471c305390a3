"""The SDK's ``agents.tracing.traces``, at the same path."""

from __future__ import annotations

from ..runtime.tracing.traces import (
    NoOpTrace,
    ReattachedTrace,
    Trace,
    TraceImpl,
    TraceState,
    reattach_trace,
)

__all__ = ["NoOpTrace", "ReattachedTrace", "Trace", "TraceImpl", "TraceState", "reattach_trace"]
