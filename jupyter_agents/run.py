"""The SDK's ``agents.run``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.context import RunContextWrapper
from .runtime.run import DEFAULT_MAX_TURNS, Runner, RunOptions
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
    "DEFAULT_MAX_TURNS",
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
]
