"""The SDK's ``agents.mcp.manager``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from ..runtime.mcp.manager import MCPServerManager

__all__ = ["MCPServerManager"]
