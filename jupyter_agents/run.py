"""The SDK's ``agents.run``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.context import RunContextWrapper
from .runtime.run import (
    DEFAULT_AGENT_RUNNER,
    DEFAULT_MAX_TURNS,
    AgentRunner,
    Runner,
    RunOptions,
    get_default_agent_runner,
    set_default_agent_runner,
)
from .runtime.run_config import (
    CallModelData,
    CallModelInputFilter,
    ModelInputData,
    RunConfig,
    ToolErrorFormatter,
    ToolErrorFormatterArgs,
    ToolNotFoundBehavior,
)
from .runtime.run_state import RunState

__all__ = [
    "DEFAULT_AGENT_RUNNER",
    "DEFAULT_MAX_TURNS",
    "AgentRunner",
    "CallModelData",
    "CallModelInputFilter",
    "ModelInputData",
    "RunConfig",
    "RunContextWrapper",
    "RunOptions",
    "RunState",
    "Runner",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
    "ToolNotFoundBehavior",
    "get_default_agent_runner",
    "set_default_agent_runner",
]
