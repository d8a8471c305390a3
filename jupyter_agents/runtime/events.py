"""Stream events: what ``RunResultStreaming.stream_events()`` yields.

The event names of ``RunItemStreamEvent`` are permanent public API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, Union

from .items import RunItem, TResponseStreamEvent

if TYPE_CHECKING:
    from .agent import Agent
    from .compaction import Compacted

__all__ = [
    "AgentUpdatedStreamEvent",
    "ContextCompactedStreamEvent",
    "RawResponsesStreamEvent",
    "RunItemEventName",
    "RunItemStreamEvent",
    "StreamEvent",
]

RunItemEventName: TypeAlias = Literal[
    "message_output_created",
    "tool_called",
    "tool_output",
    "reasoning_item_created",
    "handoff_requested",
    "handoff_occured",
    "tool_approval_requested",
    "mcp_approval_requested",
    "mcp_list_tools",
]
"""Names of run item events."""


@dataclass(slots=True)
class RawResponsesStreamEvent:
    """A raw event from the model, passed through as it arrived (text deltas and the like)."""

    data: TResponseStreamEvent
    """The Responses API streaming event."""

    type: Literal["raw_response_event"] = "raw_response_event"


@dataclass(slots=True)
class RunItemStreamEvent:
    """A run item was created: a message, a tool call, a tool output, a reasoning item."""

    name: RunItemEventName
    """What happened."""

    item: RunItem
    """The item."""

    type: Literal["run_item_stream_event"] = "run_item_stream_event"


@dataclass(slots=True)
class AgentUpdatedStreamEvent:
    """The run's current agent changed (at the start of a run, or after a handoff)."""

    new_agent: Agent[Any]
    """The agent now running."""

    type: Literal["agent_updated_stream_event"] = "agent_updated_stream_event"


@dataclass(slots=True)
class ContextCompactedStreamEvent:
    """The conversation was compacted before a model call (``RunConfig.compaction``): its older
    part is now a summary. Not in the OpenAI Agents SDK."""

    compacted: Compacted
    """What was done: items and estimated tokens before and after, the window, the summary."""

    type: Literal["context_compacted_event"] = "context_compacted_event"


StreamEvent: TypeAlias = Union[
    RawResponsesStreamEvent,
    RunItemStreamEvent,
    AgentUpdatedStreamEvent,
    ContextCompactedStreamEvent,
]
"""Any event of a streamed run."""
