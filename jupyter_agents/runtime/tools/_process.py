"""Killable tools: a sync function run in a forked child process that a timeout or Stop ends.

A thread cannot be stopped from outside, so a sync tool that times out on a thread goes on to
finish its side effects. ``@tool(killable=True)`` runs the function in a child process instead
(``fork``, so functions defined in notebook cells need no pickling); when the run stops waiting
(a timeout, Stop, an interrupt) the child is killed with every program it started: it leads its
own process group, and the whole group gets SIGKILL. Being its own group also keeps the
kernel's interrupt (SIGINT to the kernel's group) out of it: the parent decides. The return
value (or the exception) travels back pickled; what the child prints is captured and printed by
the parent, so it lands in the cell's output.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any

from ..errors import UserError
from ..tool_errors import user_traceback

__all__ = ["ChildToolError", "can_fork", "run_in_process"]


class ChildToolError(Exception):
    """A killable tool raised in its child process; carries the child's traceback text."""

    def __init__(self, type_name: str, message: str, traceback_text: str) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.traceback_text = traceback_text

    def __str__(self) -> str:
        return f"{self.type_name}: {self.args[0]}" if self.args[0] else self.type_name


def can_fork() -> bool:
    """Whether this platform can run killable tools."""
    return "fork" in multiprocessing.get_all_start_methods()


def _child(conn: Any, func: Callable[..., Any], args: Any, kwargs: Any) -> None:
    os.setpgid(0, 0)  # a group of its own: killing the group stops what it starts too
    printed = io.StringIO()
    sys.stdout = sys.stderr = printed
    try:
        value = func(*args, **kwargs)
        payload: tuple[Any, ...] = ("ok", value, printed.getvalue())
        try:
            data = pickle.dumps(payload)
        except Exception as e:
            data = pickle.dumps(
                ("error", "TypeError", f"the tool's result cannot be sent back ({e})", "", "")
            )
    except BaseException as e:
        text = user_traceback(e) or ""
        data = pickle.dumps(("error", type(e).__name__, str(e), text, printed.getvalue()))
    conn.send_bytes(data)
    conn.close()
    os._exit(0)  # skip the parent's atexit handlers and open files: this is a fork


def _kill_group(process: Any) -> None:
    """SIGKILL the child's process group (itself and what it started), or the child alone when
    it has not made its group yet (then it has started nothing)."""
    pid = process.pid
    if pid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # the group's id is the child's pid, while it lives
    process.kill()


async def run_in_process(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Run ``func(*args, **kwargs)`` in a forked child; cancelling the await kills the child."""
    if not can_fork():
        raise UserError("Killable tools need a platform with fork() (Linux or macOS).")
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(writer, func, args, kwargs), daemon=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    process.start()
    writer.close()
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(reader.fileno(), readable)
    try:
        await ready
        try:
            data = reader.recv_bytes()
        except EOFError:
            raise ChildToolError(
                "ProcessExit", "the tool's process ended without a result", ""
            ) from None
    finally:
        loop.remove_reader(reader.fileno())
        reader.close()
        if process.is_alive():
            _kill_group(process)
        await asyncio.get_running_loop().run_in_executor(None, process.join)
    payload = pickle.loads(data)
    printed = payload[-1]
    if printed:
        print(printed, end="")
    if payload[0] == "ok":
        return payload[1]
    raise ChildToolError(payload[1], payload[2], payload[3])
