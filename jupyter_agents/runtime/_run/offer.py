"""What an agent offers the model on a turn: its tools (those its run's mode allows) and
handoffs, their names checked."""

from __future__ import annotations

from typing import Any

from ..agent import Agent
from ..context import RunContextWrapper
from ..errors import UserError
from ..handoffs import Handoff
from ..modes import Mode, offered_in
from ..tools import Tool

__all__ = ["tools_for"]


async def tools_for(
    agent: Agent[Any], context_wrapper: RunContextWrapper[Any], mode: Mode = "agent"
) -> tuple[list[Tool], list[Handoff[Any]]]:
    """``agent``'s tools a run in ``mode`` offers, and its handoffs, sorted by name; two with
    one name are a ``UserError`` (a namespaced function tool's name is ``namespace.name``)."""
    visible = offered_in(mode, await agent.get_all_tools(context_wrapper))
    visible.sort(key=lambda t: t.name)
    handoffs = sorted(await agent.get_handoffs(context_wrapper), key=lambda h: h.tool_name)
    names: dict[str, Any] = {}
    for item in [*visible, *handoffs]:
        name = item.lookup_name if not isinstance(item, Handoff) else item.tool_name
        other = names.setdefault(name, item)
        if other is not item:
            raise UserError(
                f"Agent {agent.name!r} has two different tools named {name!r}: "
                f"{other!r} and {item!r}. Rename one with name_override."
            )
    return visible, handoffs
