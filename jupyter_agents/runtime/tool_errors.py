"""What people (not the model) are told about a failed tool call."""

from __future__ import annotations

import os
import traceback
from typing import TYPE_CHECKING

from .items import ToolError

if TYPE_CHECKING:
    from .tools import FunctionTool

__all__ = ["timeout_message", "tool_error"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ASYNCIO_DIR = os.path.dirname(os.path.abspath(traceback.__file__)) + os.sep + "asyncio"


def timeout_message(tool: FunctionTool) -> str:
    """What the model sees when ``tool`` ran out of time; truthful about a thread that goes on."""
    seconds = f"{tool.timeout:g} s"
    if getattr(tool, "runs_in_thread", False) and not getattr(tool, "killable", False):
        return (
            f"Tool {tool.name!r} did not finish within {seconds}; the run stopped waiting for "
            "it, but it may still complete in the background."
        )
    return f"Tool {tool.name!r} did not finish within {seconds} and was stopped."


def tool_error(error: BaseException) -> ToolError:
    """The exception as a :class:`ToolError`, with the traceback of the user's own frames."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not _is_internal(frame.filename)
    ]
    text = None
    if frames:
        text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
        text += "".join(traceback.format_exception_only(type(error), error))
    return ToolError(type(error).__name__, str(error), text)


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(_ASYNCIO_DIR)
