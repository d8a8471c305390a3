"""Running a coroutine to completion from synchronous code, even inside a running loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from .background_loop import daemon_loop

T = TypeVar("T")

_local = threading.local()
_worker_lock = threading.Lock()
_worker_loop: asyncio.AbstractEventLoop | None = None


def _thread_loop() -> asyncio.AbstractEventLoop:
    # One loop per thread, kept between calls, so connection pools stay valid.
    loop: asyncio.AbstractEventLoop | None = getattr(_local, "loop", None)
    if loop is None or loop.is_closed():
        loop = asyncio.new_event_loop()
        _local.loop = loop
    return loop


def _worker() -> asyncio.AbstractEventLoop:
    global _worker_loop
    with _worker_lock:
        if _worker_loop is None:  # not the background loop: runs may block on connections there
            _worker_loop = daemon_loop("jupyter_agents-run_sync")
        return _worker_loop


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion and return its result, blocking the calling thread.

    Without a running loop in this thread, the coroutine runs on this thread's own loop. Inside a
    running loop (a notebook cell), it runs on a worker thread's loop, in a copy of the caller's
    context so prints and context variables follow it; the running loop is never patched or
    re-entered. Ctrl-C (or a kernel interrupt) cancels the run and waits for it to clean up.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_here(coro)
    return _run_on_worker(coro)


_TICK = 0.2  # seconds; how often a waiting thread looks for Ctrl-C


def _tick(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
    # A signal delivered to another thread does not wake a loop idle in select(); a periodic
    # wake-up lets Python notice KeyboardInterrupt within _TICK seconds.
    if not task.done():
        loop.call_later(_TICK, _tick, loop, task)


def _run_here(coro: Coroutine[Any, Any, T]) -> T:
    return _run_until_complete(_thread_loop(), coro)


def _run_until_complete(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    """``coro`` to its end on ``loop`` (not running), ticking for Ctrl-C; cancelled (and
    awaited) when it is interrupted."""
    task = loop.create_task(coro)
    loop.call_later(_TICK, _tick, loop, task)
    try:
        return loop.run_until_complete(task)
    except BaseException:
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                loop.run_until_complete(task)
        raise


def _run_on_worker(coro: Coroutine[Any, Any, T]) -> T:
    loop = _worker()
    ctx = contextvars.copy_context()
    result: concurrent.futures.Future[T] = concurrent.futures.Future()
    holder: list[asyncio.Task[T]] = []

    def start() -> None:
        task = ctx.run(loop.create_task, coro)
        holder.append(task)

        def done(t: asyncio.Task[T]) -> None:
            if t.cancelled():
                result.cancel()
            elif t.exception() is not None:
                result.set_exception(t.exception())
            else:
                result.set_result(t.result())

        task.add_done_callback(done)

    loop.call_soon_threadsafe(start)
    try:
        while not result.done():
            concurrent.futures.wait([result], timeout=_TICK)
        return result.result()
    except BaseException:
        if not result.done():
            loop.call_soon_threadsafe(lambda: holder and holder[0].cancel())
            with contextlib.suppress(BaseException):
                result.result(timeout=5)
        raise


def run_on_default_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Like ``run_blocking``, but outside a running loop the coroutine runs on this thread's
    default event loop (the policy's; made, or replaced when closed, if needed), which stays
    open and set afterwards, as the SDK's ``run_sync`` does: objects that keep loop-bound
    primitives between runs (a session's lock) find the same loop each time. Its async
    generators are finalized before this returns; Ctrl-C cancels the run and waits for it."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        return _run_on_worker(coro)
    policy = asyncio.get_event_loop_policy()
    try:
        loop = policy.get_event_loop()
    except RuntimeError:
        loop = None
    if loop is None or loop.is_closed():
        loop = policy.new_event_loop()
        policy.set_event_loop(loop)
    try:
        return _run_until_complete(loop, coro)
    finally:
        if not loop.is_closed():
            with contextlib.suppress(BaseException):
                loop.run_until_complete(loop.shutdown_asyncgens())
