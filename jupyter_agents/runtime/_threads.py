"""A worker-thread pool for sync tools, keeping the caller's context variables."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["left_running", "run_in_thread"]

T = TypeVar("T")

_MAX_WORKERS = 64
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()

left_running: contextvars.ContextVar[Callable[[Future[Any]], None] | None] = contextvars.ContextVar(
    "jupyter_agents_left_running", default=None
)
"""Told of each function whose await ``run_in_thread`` stopped while the function had
started: it goes on (or has just finished) on its thread. The tool-invoke step sets it."""


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
    the run's output goes. A cancelled await leaves the thread to finish on its own (a function
    that had not started yet never starts); ``left_running`` hears of it.
    """
    ctx = contextvars.copy_context()
    future: Future[T] = _get_pool().submit(ctx.run, func, *args, **kwargs)
    try:
        return await asyncio.wrap_future(future)
    except (asyncio.CancelledError, KeyboardInterrupt):
        if not future.cancel():  # it started: the thread cannot be stopped
            report = left_running.get()
            if report is not None:
                report(future)
        raise
