"""One background event loop for every kernel this process drives.

Kernel clients are bound to the event loop they were made on, and a kernel started with
bubblewrap dies when the thread that started it ends. So kernels live on one daemon thread with
its own loop, for the life of the process, whatever loop (or ``run_sync``) the caller uses.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["on_kernel_loop"]

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()


def kernel_loop() -> asyncio.AbstractEventLoop:
    """The kernels' loop, started on first use."""
    global _loop
    with _lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="jupyter_agents-kernels", daemon=True
            )
            thread.start()
            _loop = loop
        return _loop


async def on_kernel_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` run on the kernels' loop; cancelling the caller cancels it there."""
    future = asyncio.run_coroutine_threadsafe(coro, kernel_loop())
    return await asyncio.wrap_future(future)


def run_on_kernel_loop(coro: Coroutine[Any, Any, T], timeout: float) -> T:
    """Run ``coro`` on the kernels' loop from any thread that is not it, and wait."""
    return asyncio.run_coroutine_threadsafe(coro, kernel_loop()).result(timeout)
