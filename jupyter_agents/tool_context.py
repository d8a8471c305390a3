"""The tool context, at the path the OpenAI Agents SDK uses (``agents.tool_context``).

Everything here is also importable from ``jupyter_agents``.
"""

from __future__ import annotations

from .runtime.context import ToolContext

__all__ = ["ToolContext"]
