"""Testing helpers: ``ScriptedModel`` and a local OpenAI-compatible server.

Public: use them in your own tests. Nothing here calls the internet.
"""

from __future__ import annotations

from .scripted import (
    ModelRequest,
    ScriptedModel,
    ScriptedReasoning,
    ScriptedText,
    ScriptedToolCall,
    reasoning,
    text,
    tool_call,
)

__all__ = [
    "ModelRequest",
    "ScriptedModel",
    "ScriptedReasoning",
    "ScriptedText",
    "ScriptedToolCall",
    "reasoning",
    "text",
    "tool_call",
]
