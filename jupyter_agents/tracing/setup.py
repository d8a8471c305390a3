"""The SDK's ``agents.tracing.setup``: the process-wide trace provider."""

from __future__ import annotations

from ..runtime.tracing.setup import get_trace_provider, set_trace_provider

__all__ = ["get_trace_provider", "set_trace_provider"]
