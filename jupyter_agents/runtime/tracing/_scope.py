"""The current trace and span, and ids (kept for imports; see ``scope`` and ``util``)."""

from __future__ import annotations

from .scope import current_span, current_trace
from .util import gen_span_id, gen_trace_id

__all__ = ["current_span", "current_trace", "gen_span_id", "gen_trace_id"]
