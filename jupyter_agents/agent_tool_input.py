"""The SDK's ``agents.agent_tool_input``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.agent_tool_input import (
    StructuredToolInputBuilder,
    StructuredToolInputBuilderOptions,
    default_tool_input_builder,
)

__all__ = [
    "StructuredToolInputBuilder",
    "StructuredToolInputBuilderOptions",
    "default_tool_input_builder",
]
