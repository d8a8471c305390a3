"""MCP servers for agents, at the path the OpenAI Agents SDK uses (``agents.mcp``).

Needs the ``mcp`` package: ``pip install 'jupyter_agents[mcp]'``.
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "jupyter_agents.mcp needs the mcp package: pip install 'jupyter_agents[mcp]'"
    ) from e

from ..runtime.mcp.filters import (
    ToolFilter,
    ToolFilterCallable,
    ToolFilterContext,
    ToolFilterStatic,
    create_static_tool_filter,
)
from ..runtime.mcp.http import (
    MCPServerSse,
    MCPServerSseParams,
    MCPServerStreamableHttp,
    MCPServerStreamableHttpParams,
)
from ..runtime.mcp.manager import MCPServerManager
from ..runtime.mcp.server import MCPServer, MCPServerError, RequireApproval
from ..runtime.mcp.stdio import MCPServerStdio, MCPServerStdioParams
from ..runtime.mcp.tool import MCPTool, MCPToolError
from ..runtime.mcp.util import MCPUtil

__all__ = [
    "MCPServer",
    "MCPServerError",
    "MCPServerManager",
    "MCPServerSse",
    "MCPServerSseParams",
    "MCPServerStdio",
    "MCPServerStdioParams",
    "MCPServerStreamableHttp",
    "MCPServerStreamableHttpParams",
    "MCPTool",
    "MCPToolError",
    "MCPUtil",
    "RequireApproval",
    "ToolFilter",
    "ToolFilterCallable",
    "ToolFilterContext",
    "ToolFilterStatic",
    "create_static_tool_filter",
]
