"""The SDK's ``agents.tracing.spans``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.tracing import Span, SpanError
from ..runtime.tracing.spans import TSpanData

__all__ = ["Span", "SpanError", "TSpanData"]
