"""The SDK's ``agents.testing.model``, at the same path: ``ScriptedModel`` and its steps."""

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
from .scripted import ScriptedModel

__all__ = [
    "InvalidModelStep",
    "ModelCall",
    "ModelScriptError",
    "ModelStep",
    "ModelStepSpec",
    "ScriptedModel",
    "UnconsumedModelSteps",
    "UnexpectedModelCall",
    "assistant_message",
    "function_call",
]
