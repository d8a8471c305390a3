"""The SDK's ``agents.mcp.util``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.mcp.filters import ToolFilterContext, ToolFilterStatic, create_static_tool_filter
from ..runtime.mcp.util import MCPUtil

__all__ = ["MCPUtil", "ToolFilterContext", "ToolFilterStatic", "create_static_tool_filter"]
