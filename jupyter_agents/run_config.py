"""The SDK's ``agents.run_config``, at the same path.

The names that module of the OpenAI Agents SDK defines, where this project has them (the same
objects as ``jupyter_agents``'s).
"""

from __future__ import annotations

from .runtime.run import DEFAULT_MAX_TURNS, RunOptions
from .runtime.run_config import (
    CallModelData,
    CallModelInputFilter,
    ModelInputData,
    RunConfig,
    ToolErrorFormatter,
    ToolErrorFormatterArgs,
)

__all__ = [
    "DEFAULT_MAX_TURNS",
    "CallModelData",
    "CallModelInputFilter",
    "ModelInputData",
    "RunConfig",
    "RunOptions",
    "ToolErrorFormatter",
    "ToolErrorFormatterArgs",
]
