"""A worker-thread pool for sync tools, keeping the caller's context variables."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

_MAX_WORKERS = 64
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(_MAX_WORKERS, thread_name_prefix="jupyter_agents-tool")
    return _pool


async def run_in_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run a blocking ``func`` on a worker thread without blocking the event loop.

    The thread runs in a copy of the caller's context, so context variables (such as the
    notebook kernel's record of which cell is running) follow the call and prints land where
    the run's output goes. A cancelled await leaves the thread to finish on its own.
    """
    loop = asyncio.get_running_loop()
    ctx = contextvars.copy_context()
    call = functools.partial(ctx.run, func, *args, **kwargs)
    return await loop.run_in_executor(_get_pool(), call)
