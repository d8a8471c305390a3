"""The SDK's ``agents.tracing.util``: the clock and ids of the current trace provider."""

from __future__ import annotations

from ..runtime.tracing.util import gen_group_id, gen_span_id, gen_trace_id, time_iso

__all__ = ["gen_group_id", "gen_span_id", "gen_trace_id", "time_iso"]
