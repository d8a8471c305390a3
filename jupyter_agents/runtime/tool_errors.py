"""What people (not the model) are told about a failed tool call."""

from __future__ import annotations

import os
import sysconfig
import traceback
from typing import TYPE_CHECKING

from .items import ToolError

if TYPE_CHECKING:
    from .tools.kinds import LocalTool

__all__ = ["timeout_message", "tool_error", "user_traceback"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIRS = tuple(
    {os.path.abspath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")}
)


def timeout_message(tool: LocalTool, timeout: float) -> str:
    """What the model sees when ``tool`` ran out of time; truthful about a thread that goes on."""
    seconds = f"{timeout:g} s"
    if tool.runs_in_thread and not tool.killable:
        return (
            f"Tool {tool.name!r} did not finish within {seconds}; the run stopped waiting for "
            "it, but it may still complete in the background."
        )
    return f"Tool {tool.name!r} did not finish within {seconds} and was stopped."


def tool_error(error: BaseException) -> ToolError:
    """The exception as a ``ToolError``, with the traceback of the user's own frames."""
    child = getattr(error, "traceback_text", None)  # a killable tool's child process
    if isinstance(child, str):
        return ToolError(
            getattr(error, "type_name", "Exception"), str(error.args[0]), child or None
        )
    return ToolError(type(error).__name__, str(error), user_traceback(error))


def user_traceback(error: BaseException) -> str | None:
    """The traceback of ``error`` through the user's own code (this library's frames and the
    standard library's left out); None when no such frame exists."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not _is_internal(frame.filename)
    ]
    if not frames:
        return None
    text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
    return text + "".join(traceback.format_exception_only(type(error), error))


def _is_internal(filename: str) -> bool:
    """This library's frames and the standard library's (threads, asyncio) are not the user's."""
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(_STDLIB_DIRS)
