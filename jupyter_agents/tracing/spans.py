"""The SDK's ``agents.tracing.spans``, at the same path.

``util`` is the module the spans read their clock and ids from (as in the SDK, where a test
may replace ``agents.tracing.spans.util.time_iso``).
"""

from __future__ import annotations

from ..runtime.tracing import util
from ..runtime.tracing.spans import NoOpSpan, Span, SpanError, SpanImpl, TSpanData

__all__ = ["NoOpSpan", "Span", "SpanError", "SpanImpl", "TSpanData", "util"]
