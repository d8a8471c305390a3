"""``AgentBase``: what every agent has and does with its tools (the SDK's base class of
``Agent``; its ``RealtimeAgent`` has no counterpart here). ``isinstance(x, AgentBase)`` tells an
agent from anything else, and the tool lookups below are shared by every kind of agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

from ._util import call_maybe_async
from .context import RunContextWrapper, TContext

if TYPE_CHECKING:
    from .tools import Tool

__all__ = ["AgentBase", "is_tool_enabled"]


class AgentBase(Generic[TContext]):
    """The base of every agent: a name, a description for handoffs, tools and MCP servers.

    Subclasses (``Agent``) are dataclasses that define these fields; this class adds no field
    of its own, so an ``Agent``'s fields and their order are its own.
    """

    name: str
    """A name for people and logs (and for handoffs)."""

    handoff_description: str | None
    """What the agent does, for a model choosing whom to hand off to."""

    tools: list[Tool]
    """The agent's own tools."""

    mcp_servers: list[Any]
    """MCP servers whose tools the agent offers too."""

    async def get_mcp_tools(self, run_context: RunContextWrapper[TContext]) -> list[Tool]:
        """The tools of this agent's MCP servers, as function tools."""
        if not self.mcp_servers:
            return []
        from .mcp.agent_tools import mcp_tools  # the mcp package only when servers are used

        return list(await mcp_tools(self, run_context))  # type: ignore[arg-type]

    async def get_all_tools(self, run_context: RunContextWrapper[TContext]) -> list[Tool]:
        """The tools enabled for this turn (the agent's own, then its MCP servers').

        The agent's tool list is read once, before any ``is_enabled`` runs: a callback that
        reorders or replaces ``agent.tools`` changes the next call's tools, not this one's."""
        enabled: list[Tool] = []
        for item in list(self.tools):
            if await is_tool_enabled(item, run_context, self):
                enabled.append(item)
        if self.mcp_servers:
            enabled.extend(await self.get_mcp_tools(run_context))
        return enabled

    def tool_named(self, name: str) -> Tool | None:
        """The agent's tool called ``name``: its own, or one its MCP servers offered last."""
        found = next((t for t in self.tools if t.name == name), None)
        if found is None and self.mcp_servers:
            from .mcp.agent_tools import last_mcp_tool

            found = last_mcp_tool(self, name)  # type: ignore[arg-type]
        return found


async def is_tool_enabled(
    item: Tool, run_context: RunContextWrapper[Any], agent: AgentBase[Any]
) -> bool:
    """Evaluate a tool's ``is_enabled`` (a bool or a sync/async callable)."""
    flag = getattr(item, "is_enabled", True)
    if isinstance(flag, bool):
        return flag
    return bool(await call_maybe_async(flag, run_context, agent))
