"""Listeners told about every tool ``@function_tool`` creates.

A module of its own, importing nothing, so that the notebook extension can start listening when
it loads without importing the function-tool machinery (pydantic, griffe) before a cell needs
it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from .function_tool import FunctionTool

__all__ = ["ToolListener", "add_tool_listener", "remove_tool_listener", "tool_created"]

ToolListener: TypeAlias = Callable[["FunctionTool"], None]
_tool_listeners: list[ToolListener] = []


def add_tool_listener(listener: ToolListener) -> None:
    """Call ``listener`` with every tool ``@function_tool`` creates from now on.

    The notebook layer uses this to collect the tools defined in cells; the runtime itself
    knows nothing about notebooks.
    """
    if listener not in _tool_listeners:
        _tool_listeners.append(listener)


def remove_tool_listener(listener: ToolListener) -> None:
    """Stop calling ``listener``."""
    if listener in _tool_listeners:
        _tool_listeners.remove(listener)


def tool_created(tool: FunctionTool) -> None:
    """Tell every listener about ``tool`` (``@function_tool`` calls this)."""
    for listener in list(_tool_listeners):
        listener(tool)
