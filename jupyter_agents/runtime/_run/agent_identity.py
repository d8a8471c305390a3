"""Which agent of a handoff graph a saved ``RunState`` names.

A state is resumed with the agent the run started with (as in the SDK): the agent that was
running is found among the agents reachable through handoffs. Agents that share a name are told
apart by their configuration (``#2``, ``#3``, ... after the name, in the order of a signature
of that configuration, the starting agent first), never by the order the graph lists them in
nor by a hook object's own attributes (they change as a run goes). Same-name agents that nothing
else tells apart are refused: a saved decision must never go to another agent's tools.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections import deque
from typing import TYPE_CHECKING, Any

from ..errors import UserError

if TYPE_CHECKING:
    from ..agent import Agent

__all__ = [
    "AMBIGUOUS",
    "LEGACY_AMBIGUOUS",
    "agent_graph",
    "ambiguous",
    "find_agent",
    "identity_of",
    "legacy_ambiguous",
]

AMBIGUOUS = (
    "RunState cannot distinguish same-name agents without hook instance state. "
    "Use unique agent names before starting a persistable run."
)
"""The SDK's words for a saved agent that nothing but graph order tells apart."""
LEGACY_AMBIGUOUS = (
    "Cannot safely restore legacy duplicate-agent identities with hooks. "
    "Start a new run with unique agent names; the saved hook ordering is unavailable."
)
"""The SDK's words for a state of its schema before 1.21 whose same-name agents with hooks
were numbered by the hooks' own attributes (which are not known any more)."""


def agent_graph(root: Agent[Any]) -> list[Agent[Any]]:
    """The agents reachable from ``root`` through handoffs, breadth first, each once."""
    from ..agent import Agent

    seen: set[int] = set()
    found: list[Agent[Any]] = []
    queue: deque[Agent[Any]] = deque([root])
    while queue:
        agent = queue.popleft()
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        found.append(agent)
        for h in agent.handoffs:
            target = h if isinstance(h, Agent) else getattr(h, "_agent", None)
            if isinstance(target, Agent):
                queue.append(target)
    return found


def _name_of(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, type) or callable(value):
        module = getattr(value, "__module__", "")
        return f"{module}.{getattr(value, '__qualname__', type(value).__qualname__)}"
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _hooks_kind(hooks: Any) -> Any:
    """The hooks' kind and class, not the object's own state; spelt as the SDK spells it
    (``{"dataclass": ...}``, ``{"model": ...}``, ``{"object": ...}``), so that same-name
    agents are numbered in the SDK's order."""
    if hooks is None:
        return None
    if callable(hooks):
        return {"callable": _name_of(hooks)}
    if dataclasses.is_dataclass(hooks):
        return {"dataclass": _name_of(type(hooks))}
    if hasattr(hooks, "model_dump"):
        return {"model": _name_of(type(hooks))}
    return {"object": _name_of(type(hooks))}


def _signature(agent: Agent[Any]) -> str:
    model = agent.model
    signature = {
        "type": _name_of(type(agent)),
        "handoff_description": agent.handoff_description,
        "instructions": _name_of(agent.instructions),
        "model": model if isinstance(model, str) or model is None else _name_of(type(model)),
        "hooks": _hooks_kind(agent.hooks),
        "output_type": _name_of(agent.output_type),
        "tools": sorted(str(t.name) for t in agent.tools),
        "handoffs": sorted(
            str(getattr(h, "tool_name", None) or getattr(h, "name", "")) for h in agent.handoffs
        ),
    }
    return json.dumps(signature, sort_keys=True, default=str)


def legacy_ambiguous(root: Agent[Any]) -> bool:
    """Whether a state of the SDK's schema before 1.21 may have numbered same-name agents of
    ``root``'s graph by their hooks' attributes: two of them (not the starting agent, both with
    hook objects) whose class, handoff description and hooks' class are all the same (what
    came before the hooks' attributes in those versions' order)."""
    seen: set[tuple[str, str]] = set()
    for agent in agent_graph(root):
        if agent is root or agent.hooks is None or callable(agent.hooks):
            continue
        prefix = json.dumps(
            [_name_of(type(agent)), agent.handoff_description, _hooks_kind(agent.hooks)],
            default=str,
        )
        if (agent.name, prefix) in seen:
            return True
        seen.add((agent.name, prefix))
    return False


def _identities(root: Agent[Any]) -> tuple[dict[int, str], set[int]]:
    """Each reachable agent's identity (by ``id``), and the agents only graph order tells
    apart."""
    graph = agent_graph(root)
    names = {a.name for a in graph}
    groups: dict[str, list[tuple[int, str, int, Agent[Any]]]] = {}
    for index, a in enumerate(graph):
        groups.setdefault(a.name, []).append((0 if a is root else 1, _signature(a), index, a))
    identities: dict[int, str] = {}
    used: set[str] = set()
    unclear: set[int] = set()
    for name, group in groups.items():
        group.sort(key=lambda entry: entry[:3])
        for first, second in itertools.pairwise(group):
            if first[:2] == second[:2]:
                unclear.update((id(first[3]), id(second[3])))
        number = 1
        for entry in group:
            key = name
            while key in used or (key != name and key in names):
                number += 1
                key = f"{name}#{number}"
            used.add(key)
            identities[id(entry[3])] = key
    return identities, unclear


def identity_of(root: Agent[Any], agent: Agent[Any]) -> str | None:
    """``agent``'s identity in ``root``'s graph (None when it is not in it); ``UserError``
    when only graph order tells it from a same-name agent."""
    identities, unclear = _identities(root)
    if id(agent) in unclear:
        raise UserError(AMBIGUOUS)
    return identities.get(id(agent))


def ambiguous(root: Agent[Any], agent: Agent[Any]) -> bool:
    """Whether only graph order tells ``agent`` from a same-name agent of ``root``'s graph."""
    return id(agent) in _identities(root)[1]


def find_agent(root: Agent[Any], name: str, identity: str | None) -> Agent[Any]:
    """The agent a saved state names: ``root`` itself, or the one of its graph with that
    identity; ``UserError`` when there is none or it cannot be told apart."""
    if root.name == name and identity in (None, name):
        return root
    graph = agent_graph(root)
    identities, unclear = _identities(root)
    wanted = identity or name
    found = next((a for a in graph if identities[id(a)] == wanted and a.name == name), None)
    if found is None:
        raise UserError(
            f"This state was saved while agent {wanted!r} was running; pass that agent, or "
            f"the agent the run started with, to RunState.from_json, not {root.name!r}."
        )
    if id(found) in unclear:
        raise UserError(AMBIGUOUS.replace("RunState cannot", "RunState.from_json cannot"))
    return found
