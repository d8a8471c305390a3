"""Testing helpers: ``ScriptedModel`` and a local OpenAI-compatible server.

Public: use them in your own tests. Nothing here calls the internet. ``ScriptedModel`` also
plays scripts in the form of the OpenAI Agents SDK's ``agents.testing`` (``ModelStep``,
``function_call``, ``assistant_message``, ``enqueue``, ``calls``, ...), so the SDK's tests and
test doubles run here unchanged.
"""

from __future__ import annotations

from ._steps import (
    InvalidModelStep,
    ModelCall,
    ModelScriptError,
    ModelStep,
    ModelStepSpec,
    UnconsumedModelSteps,
    UnexpectedModelCall,
    assistant_message,
    function_call,
)
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
    "InvalidModelStep",
    "ModelCall",
    "ModelScriptError",
    "ModelStep",
    "ModelStepSpec",
    "ReceivedRequest",
    "ScriptedItem",
    "ScriptedModel",
    "ScriptedReasoning",
    "ScriptedText",
    "ScriptedToolCall",
    "UnconsumedModelSteps",
    "UnexpectedModelCall",
    "assistant_message",
    "function_call",
    "output_item",
    "reasoning",
    "text",
    "tool_call",
]
