"""The run items, at the path the OpenAI Agents SDK uses (``agents.items``).

Everything here is also importable from ``jupyter_agents``.
"""

from __future__ import annotations

from .runtime.items import (
    HandoffCallItem,
    HandoffOutputItem,
    ItemHelpers,
    MCPApprovalRequestItem,
    MCPApprovalResponseItem,
    MCPListToolsItem,
    MessageOutputItem,
    ModelResponse,
    ReasoningItem,
    RunItem,
    RunItemBase,
    ToolApprovalItem,
    ToolCallItem,
    ToolCallOutputItem,
    ToolSearchCallItem,
    ToolSearchOutputItem,
    TResponseInputItem,
    TResponseOutputItem,
    TResponseStreamEvent,
)

__all__ = [
    "HandoffCallItem",
    "HandoffOutputItem",
    "ItemHelpers",
    "MCPApprovalRequestItem",
    "MCPApprovalResponseItem",
    "MCPListToolsItem",
    "MessageOutputItem",
    "ModelResponse",
    "ReasoningItem",
    "RunItem",
    "RunItemBase",
    "TResponseInputItem",
    "TResponseOutputItem",
    "TResponseStreamEvent",
    "ToolApprovalItem",
    "ToolCallItem",
    "ToolCallOutputItem",
    "ToolSearchCallItem",
    "ToolSearchOutputItem",
]
