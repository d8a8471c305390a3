"""Small helpers shared by the runtime modules."""

from __future__ import annotations

import inspect
from collections.abc import Callable
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
