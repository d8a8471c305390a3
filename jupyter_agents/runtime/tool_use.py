"""What happens after a turn's tool calls (``Agent.tool_use_behavior``): the model runs again,
the first tool's output is the final output, or certain tools (or your function) end the run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, Union

from .context import RunContextWrapper

__all__ = [
    "FunctionToolResult",
    "StopAtTools",
    "ToolUseBehavior",
    "ToolsToFinalOutputFunction",
    "ToolsToFinalOutputResult",
]


@dataclass(frozen=True)
class StopAtTools:
    """Stop after a call to one of these tools; its output is the final output."""

    stop_at_tool_names: list[str]
    """The tools that end the run."""


@dataclass(frozen=True)
class FunctionToolResult:
    """One tool call of a turn and what it returned (any kind the run executes: a function
    tool, a class-based tool, a shell, a patch, a computer)."""

    tool: Any
    """The tool called (a ``FunctionTool`` for function calls, as in the SDK)."""
    output: Any
    """What the tool returned."""
    run_item: Any
    """The ``ToolCallOutputItem``."""


@dataclass(frozen=True)
class ToolsToFinalOutputResult:
    """What a ``tool_use_behavior`` function returns."""

    is_final_output: bool
    """True ends the run with ``final_output``."""

    final_output: Any = None
    """The final output (when ``is_final_output``)."""


ToolsToFinalOutputFunction: TypeAlias = Callable[
    [RunContextWrapper[Any], list[FunctionToolResult]],
    Union[ToolsToFinalOutputResult, Awaitable[ToolsToFinalOutputResult]],
]
"""A ``tool_use_behavior`` function: after tool calls, decide whether the run ends."""

ToolUseBehavior: TypeAlias = Union[
    Literal["run_llm_again", "stop_on_first_tool"],
    StopAtTools,
    ToolsToFinalOutputFunction,
]
"""What happens after tool calls; see ``Agent.tool_use_behavior``."""
