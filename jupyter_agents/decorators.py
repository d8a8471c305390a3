"""The decorators, at the path the OpenAI Agents SDK uses (``agents.decorators``).

Everything here is also importable from ``jupyter_agents``; ``tool`` is ``function_tool``.
"""

from __future__ import annotations

from .runtime.guardrails import input_guardrail, output_guardrail
from .runtime.tool_guardrails import tool_input_guardrail, tool_output_guardrail
from .runtime.tools import function_tool, tool

__all__ = [
    "function_tool",
    "input_guardrail",
    "output_guardrail",
    "tool",
    "tool_input_guardrail",
    "tool_output_guardrail",
]
