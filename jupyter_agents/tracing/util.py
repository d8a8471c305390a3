"""The SDK's ``agents.tracing.util``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.tracing import gen_span_id, gen_trace_id

__all__ = ["gen_span_id", "gen_trace_id"]
