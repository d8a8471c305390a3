"""Small helpers shared by the runtime modules."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any


async def call_maybe_async(func: Callable[..., Any], *args: Any) -> Any:
    """Call ``func`` and await the result when it is awaitable."""
    result = func(*args)
    if inspect.isawaitable(result):
        result = await result
    return result


def accepts_positional(func: Callable[..., Any], count: int) -> bool:
    """Whether ``func`` can be called with exactly ``count`` positional arguments."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return True
    try:
        signature.bind(*range(count))
    except TypeError:
        return False
    return True


STATE_FOLDER = ".jupyter_agents"
"""The folder of this project's own state in a workspace (indexes, batch results)."""


def make_state_folder(folder: Path) -> None:
    """Make ``folder`` (a ``STATE_FOLDER``) if missing, with a ``.gitignore`` that keeps it
    out of ``git status``: it appears in people's repositories without their asking."""
    if os.path.lexists(folder):
        return
    folder.mkdir(parents=True)
    (folder / ".gitignore").write_text("# made by jupyter_agents: its state, not your files\n*\n")
