"""The SDK's ``agents.tracing.span_data``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.tracing import (
    AgentSpanData,
    CustomSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    SpanData,
    TaskSpanData,
    TurnSpanData,
)

__all__ = [
    "AgentSpanData",
    "CustomSpanData",
    "FunctionSpanData",
    "GenerationSpanData",
    "GuardrailSpanData",
    "HandoffSpanData",
    "SpanData",
    "TaskSpanData",
    "TurnSpanData",
]
