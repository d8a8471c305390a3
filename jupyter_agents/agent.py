"""The SDK's ``agents.agent``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.agent import (
    Agent,
    MCPConfig,
    StopAtTools,
    ToolsToFinalOutputFunction,
    ToolsToFinalOutputResult,
)
from .runtime.agent_base import AgentBase
from .runtime.agent_tool import AgentToolStreamEvent

__all__ = [
    "Agent",
    "AgentBase",
    "AgentToolStreamEvent",
    "MCPConfig",
    "StopAtTools",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
]
