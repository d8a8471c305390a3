"""The SDK's ``agents.tracing.create``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.tracing import (
    agent_span,
    custom_span,
    function_span,
    generation_span,
    get_current_span,
    get_current_trace,
    guardrail_span,
    handoff_span,
    task_span,
    trace,
    turn_span,
)

__all__ = [
    "agent_span",
    "custom_span",
    "function_span",
    "generation_span",
    "get_current_span",
    "get_current_trace",
    "guardrail_span",
    "handoff_span",
    "task_span",
    "trace",
    "turn_span",
]
