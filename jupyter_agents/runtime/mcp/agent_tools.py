"""An agent's MCP tools for one turn: listed from every server at once, named so they stay
unique and valid across servers, with schemas the API accepts."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from .names import qualified_tool_names
from .schema import sanitize_input_schema, strict_form
from .tool import MCPTool, build_tool

if TYPE_CHECKING:
    from mcp import types as mcp_types

    from ..agent import Agent
    from ..context import RunContextWrapper
    from .server import MCPServer

__all__ = ["last_mcp_tool", "mcp_tools"]

_LAST = "_last_mcp_tools"
"""The attribute holding the MCP tools an agent was last offered (for showing its calls)."""


async def mcp_tools(agent: Agent[Any], run_context: RunContextWrapper[Any]) -> list[MCPTool]:
    """The function tools for ``agent``'s MCP servers (connecting any that are not)."""
    servers: list[MCPServer] = list(agent.mcp_servers)
    seen: dict[str, MCPServer] = {}
    for server in servers:
        other = seen.setdefault(server.name, server)
        if other is not server:
            raise UserError(
                f"Agent {agent.name!r} has two MCP servers named {server.name!r}; "
                "give one of them another name=..."
            )
    listed = await asyncio.gather(*(s.list_tools(run_context, agent) for s in servers))
    names = qualified_tool_names(
        (s.name, t.name) for s, ts in zip(servers, listed, strict=True) for t in ts
    )
    strict = bool(agent.mcp_config.get("convert_schemas_to_strict", True))
    made: list[MCPTool] = []
    for server, tools in zip(servers, listed, strict=True):
        for tool in tools:
            parameters, is_strict, nullable = _converted(server, tool, strict)
            made.append(
                build_tool(
                    server,
                    tool,
                    names[(server.name, tool.name)],
                    parameters,
                    is_strict,
                    nullable,
                    agent,
                )
            )
    made.sort(key=lambda t: t.name)  # a stable order keeps the provider's prompt cache warm
    setattr(agent, _LAST, {t.name: t for t in made})
    return made


def last_mcp_tool(agent: Agent[Any], name: str) -> MCPTool | None:
    """The MCP tool ``name`` as ``agent`` was last offered it (None if it was not)."""
    last: dict[str, MCPTool] = getattr(agent, _LAST, None) or {}
    return last.get(name)


def _converted(
    server: MCPServer, tool: mcp_types.Tool, strict: bool
) -> tuple[dict[str, Any], bool, frozenset[str]]:
    """The tool's parameters as sent, whether strict, and which arguments are optional but
    nullable; kept on the server until its tool list changes."""
    cache = server._converted
    if cache is None:
        cache = server._converted = {}
    key = (tool.name, strict)
    found = cache.get(key)
    if found is not None:
        return found  # type: ignore[no-any-return]
    parameters = sanitize_input_schema(tool.input_schema)
    result: tuple[dict[str, Any], bool, frozenset[str]] = (parameters, False, frozenset())
    if strict:
        made = strict_form(parameters)
        if made is not None:
            result = (made[0], True, made[1])
    cache[key] = result
    return result
