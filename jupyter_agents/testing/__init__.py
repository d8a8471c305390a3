"""Testing helpers: ``ScriptedModel`` and a local OpenAI-compatible server.

Public: use them in your own tests. Nothing here calls the internet.
"""

from __future__ import annotations

from .scripted import (
    ReceivedRequest,
    ScriptedItem,
    ScriptedModel,
    ScriptedReasoning,
    ScriptedText,
    ScriptedToolCall,
    output_item,
    reasoning,
    text,
    tool_call,
)

__all__ = [
    "ReceivedRequest",
    "ScriptedItem",
    "ScriptedModel",
    "ScriptedReasoning",
    "ScriptedText",
    "ScriptedToolCall",
    "output_item",
    "reasoning",
    "text",
    "tool_call",
]
