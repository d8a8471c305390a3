"""Which of a server's tools an agent sees: a static allow / block list or a function."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, Union

from mcp import types as mcp_types

from ..errors import UserError

if TYPE_CHECKING:
    from ..agent import Agent
    from ..context import RunContextWrapper
    from .server import MCPServer

__all__ = [
    "ToolFilter",
    "ToolFilterCallable",
    "ToolFilterContext",
    "ToolFilterStatic",
    "create_static_tool_filter",
]

logger = logging.getLogger("jupyter_agents.mcp")


@dataclass(frozen=True)
class ToolFilterContext:
    """What a filter function is told besides the tool."""

    run_context: RunContextWrapper[Any]
    """The run's context."""
    agent: Agent[Any]
    """The agent asking for tools."""
    server_name: str
    """The server the tool comes from."""


class ToolFilterStatic(TypedDict, total=False):
    """Tool names to allow (only these) and to block (never these)."""

    allowed_tool_names: list[str]
    blocked_tool_names: list[str]


ToolFilterCallable = Callable[[ToolFilterContext, mcp_types.Tool], Union[bool, Awaitable[bool]]]
"""``(context, tool) -> bool``, sync or async: True keeps the tool."""

ToolFilter = Union[ToolFilterStatic, ToolFilterCallable, None]


def create_static_tool_filter(
    allowed_tool_names: list[str] | None = None,
    blocked_tool_names: list[str] | None = None,
) -> ToolFilterStatic | None:
    """A filter keeping only ``allowed_tool_names`` (when given) minus ``blocked_tool_names``
    (the server's own tool names); None when both are empty."""
    made: ToolFilterStatic = {}
    if allowed_tool_names:
        made["allowed_tool_names"] = list(allowed_tool_names)
    if blocked_tool_names:
        made["blocked_tool_names"] = list(blocked_tool_names)
    return made or None


async def filter_tools(
    server: MCPServer,
    tools: list[mcp_types.Tool],
    run_context: RunContextWrapper[Any],
    agent: Agent[Any],
) -> list[mcp_types.Tool]:
    """The tools ``server.tool_filter`` keeps. A filter function that raises drops the tool
    (and the error is logged), as in the SDK."""
    chosen = server.tool_filter
    if chosen is None:
        return list(tools)
    if isinstance(chosen, dict):
        allowed = chosen.get("allowed_tool_names")
        blocked = set(chosen.get("blocked_tool_names") or ())
        return [
            t for t in tools if (allowed is None or t.name in allowed) and t.name not in blocked
        ]
    if not callable(chosen):
        raise UserError(
            f"MCP server {server.name!r}: tool_filter must be create_static_tool_filter(...) "
            f"or a function (context, tool) -> bool, got {type(chosen).__name__}."
        )
    context = ToolFilterContext(run_context, agent, server.name)
    kept = []
    for tool in tools:
        try:
            verdict = chosen(context, tool)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except Exception:
            logger.exception(
                "the tool_filter of MCP server %r raised on %r", server.name, tool.name
            )
            continue
        if verdict:
            kept.append(tool)
    return kept
