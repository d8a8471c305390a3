"""Handoffs: an agent passes the conversation to another agent.

Each handoff is offered to the model as a function tool named ``transfer_to_<agent_name>``.
When the model calls one, the run switches to the target agent, which sees the conversation
(after the handoff's input filter, if any).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, Union

import pydantic

from ._util import accepts_positional, call_maybe_async
from .context import RunContextWrapper, TContext
from .errors import ModelBehaviorError, UserError
from .tools.function.strict_schema import ensure_strict_json_schema
from .tools.kinds import tool_item_types

if TYPE_CHECKING:
    from .agent import Agent
    from .items import RunItem, TResponseInputItem

__all__ = ["Handoff", "HandoffInputData", "HandoffInputFilter", "handoff", "handoff_filters"]


@dataclass(frozen=True)
class HandoffInputData:
    """The conversation a handoff passes on, for an input filter to trim."""

    input_history: str | tuple[TResponseInputItem, ...]
    """The run's original input."""

    pre_handoff_items: tuple[RunItem, ...]
    """Items produced before the turn that handed off."""

    new_items: tuple[RunItem, ...]
    """Items of the turn that handed off (the handoff call and its output included)."""

    run_context: RunContextWrapper[Any] | None = None
    """The run context."""

    input_items: tuple[RunItem, ...] | None = None
    """What the next agent gets in place of ``new_items`` when set (``new_items`` still goes
    to the session's history): a filter can hide items from the model without losing them."""

    def clone(self, **changes: Any) -> HandoffInputData:
        """A copy with ``changes`` applied."""
        return replace(self, **changes)


HandoffInputFilter: TypeAlias = Callable[
    [HandoffInputData], Union[HandoffInputData, Awaitable[HandoffInputData]]
]
"""Trims what the next agent sees (sync or async)."""


def _snake(name: str) -> str:
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower() or "agent"


@dataclass
class Handoff(Generic[TContext]):
    """A handoff to one agent, as the model sees it (a function tool) and as the run executes it."""

    tool_name: str
    """The tool name the model calls (``transfer_to_<agent>``)."""

    tool_description: str
    """The tool's description."""

    input_json_schema: dict[str, Any]
    """The JSON schema of the handoff's arguments (empty object without ``input_type``)."""

    on_invoke_handoff: Callable[[RunContextWrapper[Any], str], Awaitable[Agent[Any]]]
    """Runs the handoff with the raw JSON arguments; returns the agent to switch to."""

    agent_name: str
    """The target agent's name."""

    input_filter: HandoffInputFilter | None = None
    """Trims the conversation the target sees; overrides ``RunConfig.handoff_input_filter``."""

    strict_json_schema: bool = True
    """Whether the schema is strict."""

    is_enabled: bool | Callable[[RunContextWrapper[Any], Agent[Any]], Any] = True
    """Whether the model is offered this handoff (a callable decides per turn)."""

    _agent: Agent[Any] | None = field(default=None, repr=False, compare=False)
    """The target agent, when ``handoff()`` made it: a saved ``RunState`` finds its agent
    through the graph of handoffs."""

    def get_transfer_message(self, agent: Agent[Any]) -> str:
        """The output the model sees for the handoff call."""
        return json.dumps({"assistant": agent.name})

    @classmethod
    def default_tool_name(cls, agent: Agent[Any]) -> str:
        """``transfer_to_<agent name in snake case>``."""
        return f"transfer_to_{_snake(agent.name)}"

    @classmethod
    def default_tool_description(cls, agent: Agent[Any]) -> str:
        """A description built from the agent's name and ``handoff_description``."""
        more = f" {agent.handoff_description}" if agent.handoff_description else ""
        return f"Handoff to the {agent.name} agent to handle the request.{more}"


def handoff(
    agent: Agent[Any],
    tool_name_override: str | None = None,
    tool_description_override: str | None = None,
    on_handoff: Callable[..., Any] | None = None,
    input_type: Any = None,
    input_filter: HandoffInputFilter | None = None,
    is_enabled: bool | Callable[[RunContextWrapper[Any], Agent[Any]], Any] = True,
) -> Handoff[Any]:
    """A handoff to ``agent``.

    Args:
        agent: The agent to hand off to.
        tool_name_override: The tool name (default ``transfer_to_<agent>``).
        tool_description_override: The tool description.
        on_handoff: Called when the handoff happens: ``(run_context)``, or
            ``(run_context, input)`` with ``input_type`` (sync or async).
        input_type: The type of the arguments the model passes (validated).
        input_filter: Trims the conversation the target agent sees.
        is_enabled: Whether the model is offered the handoff.
    """
    if input_type is not None and on_handoff is None:
        raise UserError("handoff(input_type=...) needs on_handoff(run_context, input) too.")
    if on_handoff is not None:
        arity = 2 if input_type is not None else 1
        if not accepts_positional(on_handoff, arity):
            shape = "(run_context, input)" if arity == 2 else "(run_context)"
            raise UserError(f"on_handoff must take {shape}.")
    adapter = pydantic.TypeAdapter(input_type) if input_type is not None else None
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    if adapter is not None:
        schema = ensure_strict_json_schema(adapter.json_schema())

    async def invoke(context: RunContextWrapper[Any], arguments: str) -> Agent[Any]:
        if adapter is not None and on_handoff is not None:
            try:
                value = adapter.validate_json(arguments or "{}")
            except pydantic.ValidationError as e:
                raise ModelBehaviorError(
                    f"Invalid handoff arguments for {agent.name!r}: {e}"
                ) from None
            await call_maybe_async(on_handoff, context, value)
        elif on_handoff is not None:
            await call_maybe_async(on_handoff, context)
        return agent

    schema.setdefault("additionalProperties", False)
    return Handoff(
        tool_name=tool_name_override or Handoff.default_tool_name(agent),
        tool_description=tool_description_override or Handoff.default_tool_description(agent),
        input_json_schema=schema,
        on_invoke_handoff=invoke,
        agent_name=agent.name,
        input_filter=input_filter,
        is_enabled=is_enabled,
        _agent=agent,
    )


class handoff_filters:
    """Ready-made input filters."""

    _MCP_TYPES = frozenset({"mcp_list_tools", "mcp_approval_request", "mcp_approval_response"})
    """MCP traffic that is not a tool call (listings and approvals of hosted MCP servers)."""

    @staticmethod
    def remove_all_tools(data: HandoffInputData) -> HandoffInputData:
        """Drop every tool call and tool output (handoffs, tool searches, hosted MCP traffic
        and approvals included), and reasoning items, which would be orphaned without their
        calls; messages stay. ``input_items``, when set, is filtered too."""
        history = data.input_history
        if not isinstance(history, str):
            # Every registered tool kind's calls and outputs (shells, patches, computers,
            # kinds added later), not a list written here that misses new ones.
            dropped = tool_item_types() | handoff_filters._DROPPED_INPUT_TYPES
            history = tuple(i for i in history if i.get("type") not in dropped)
        kept = handoff_filters._keep_item
        input_items = data.input_items
        return data.clone(
            input_history=history,
            pre_handoff_items=tuple(i for i in data.pre_handoff_items if kept(i)),
            new_items=tuple(i for i in data.new_items if kept(i)),
            input_items=None if input_items is None else tuple(i for i in input_items if kept(i)),
        )

    _DROPPED_ITEM_TYPES = frozenset(
        {
            "tool_call_item",
            "tool_call_output_item",
            "handoff_call_item",
            "handoff_output_item",
            "tool_search_call_item",
            "tool_search_output_item",
            "reasoning_item",
            "mcp_list_tools_item",
            "mcp_approval_request_item",
            "mcp_approval_response_item",
            "tool_approval_item",
        }
    )

    _DROPPED_INPUT_TYPES = _MCP_TYPES | {
        # Function calls and hosted calls whose kind may not be registered here, and the
        # transcript items of a hosted program.
        "function_call",
        "function_call_output",
        "computer_call",
        "computer_call_output",
        "file_search_call",
        "web_search_call",
        "mcp_call",
        "tool_search_call",
        "tool_search_output",
        "reasoning",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "hosted_tool_call",
        "program",
        "program_output",
    }

    @staticmethod
    def _keep_item(item: RunItem) -> bool:
        return item.type not in handoff_filters._DROPPED_ITEM_TYPES
