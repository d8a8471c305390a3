"""What an agent offers the model on a turn: its tools (those its run's mode allows) and
handoffs, one per name (``RunConfig.tool_name_collision_policy``)."""

from __future__ import annotations

import logging
from typing import Any, Literal

from ..agent import Agent
from ..context import RunContextWrapper
from ..errors import UserError
from ..handoffs import Handoff
from ..modes import Mode, offered_in
from ..tools import Tool

__all__ = ["tools_for"]

logger = logging.getLogger("jupyter_agents")


async def tools_for(
    agent: Agent[Any],
    context_wrapper: RunContextWrapper[Any],
    mode: Mode = "agent",
    collisions: Literal["warn", "error"] = "warn",
) -> tuple[list[Tool], list[Handoff[Any]]]:
    """``agent``'s tools a run in ``mode`` offers, and its handoffs, sorted by name (a
    namespaced function tool's name is ``namespace.name``).

    Two with one name, as in the SDK: with ``collisions="warn"`` a warning, and only the one a
    call would reach is offered (the last handoff of that name, else the last tool); with
    ``"error"`` a ``UserError``.
    """
    visible = offered_in(mode, await agent.get_all_tools(context_wrapper))
    handoffs = await agent.get_handoffs(context_wrapper)
    names: dict[str, Any] = {}
    clash = False
    for item in [*visible, *handoffs]:
        clash = names.setdefault(_name(item), item) is not item or clash
    if clash:
        visible, handoffs = _one_per_name(agent, visible, handoffs, collisions)
    visible.sort(key=lambda t: t.name)
    handoffs.sort(key=lambda h: h.tool_name)
    return visible, handoffs


def _name(item: Tool | Handoff[Any]) -> str:
    return item.tool_name if isinstance(item, Handoff) else item.lookup_name


def _one_per_name(
    agent: Agent[Any],
    tools: list[Tool],
    handoffs: list[Handoff[Any]],
    collisions: Literal["warn", "error"],
) -> tuple[list[Tool], list[Handoff[Any]]]:
    """The tools and handoffs left when each name keeps its winner (or the ``UserError``)."""
    owners: dict[str, list[Tool | Handoff[Any]]] = {}
    for item in [*tools, *handoffs]:
        same = owners.setdefault(_name(item), [])
        if all(other is not item for other in same):
            same.append(item)
    losers: set[int] = set()
    for name, same in owners.items():
        if len(same) < 2:
            continue
        message = _collision_message(agent, name, same)
        if collisions == "error":
            raise UserError(message)
        logger.warning("%s Only the last one is offered.", message)
        kept = [h for h in same if isinstance(h, Handoff)] or same
        losers.update(id(item) for item in same if item is not kept[-1])
    return (
        [t for t in tools if id(t) not in losers],
        [h for h in handoffs if id(h) not in losers],
    )


def _collision_message(agent: Agent[Any], name: str, same: list[Tool | Handoff[Any]]) -> str:
    handoffs = sum(isinstance(item, Handoff) for item in same)
    what = "handoffs" if handoffs == len(same) else "tools and handoffs" if handoffs else "tools"
    return (
        f"Agent {agent.name!r} has {len(same)} {what} named {name!r}; give each a unique "
        "name (name_override=, tool_name= or tool_name_override=)."
    )
