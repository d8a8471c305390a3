"""One background event loop for the long-lived connections this process keeps.

Kernel clients are bound to the event loop they were made on, a kernel started with bubblewrap
dies when the thread that started it ends, and an MCP session must be closed by the task that
opened it. So kernels and MCP sessions live on one daemon thread with its own loop, for the life
of the process, whatever loop (or ``run_sync``) the caller uses, and whichever cell connects or
closes them.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["background_loop", "daemon_loop", "on_background_loop", "run_on_background_loop"]

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def daemon_loop(name: str) -> asyncio.AbstractEventLoop:
    """A new event loop, running forever on a daemon thread called ``name``."""
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name=name, daemon=True).start()
    return loop


def background_loop() -> asyncio.AbstractEventLoop:
    """The background loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None:
            _loop = daemon_loop("jupyter_agents-background")
        return _loop


async def on_background_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` run on the background loop; cancelling the caller cancels it there.
    Called on the background loop itself, it just awaits ``coro``."""
    loop = background_loop()
    if asyncio.get_running_loop() is loop:
        return await coro
    future = asyncio.run_coroutine_threadsafe(coro, loop)
    return await asyncio.wrap_future(future)


def run_on_background_loop(coro: Coroutine[Any, Any, T], timeout: float) -> T:
    """Run ``coro`` on the background loop from any thread that is not its own, and wait."""
    return asyncio.run_coroutine_threadsafe(coro, background_loop()).result(timeout)
