"""A page that connects while an agent cell runs can still talk to the kernel.

ipykernel >= 7.4 answers comm messages while an async cell awaits (what Approve and Reject
ride on), but a new connection first asks ``kernel_info_request`` and the widget manager
``comm_info_request``, and those wait for the running cell. A page reloaded, or a notebook
reopened, during a foreground ``%%agent`` run waiting for its person would never connect, and
the person could not reach the approval that the run waits for. These two requests only read,
so while the main shell is busy they are answered at once, as comm messages are.

This reaches into ipykernel's shell dispatch (its receive callback and main lock), so it is
installed only where those are exactly as ipykernel 7.4 has them; elsewhere nothing changes
and such a page connects when the cell ends (``--background`` runs never hold the shell).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["ANSWERED_AT_ONCE", "answer_reads_while_busy"]

logger = logging.getLogger("jupyter_agents")

ANSWERED_AT_ONCE = frozenset({"kernel_info_request", "comm_info_request"})
"""Shell requests answered while a cell runs (besides comm messages, which ipykernel does)."""

_PARTS = (
    "shell_main",
    "dispatch_shell",
    "_main_asyncio_lock",
    "_parent_ident",
    "get_parent",
    "set_parent",
    "shell_channel_thread",
)


def answer_reads_while_busy(kernel: Any) -> bool:
    """Install the shell callback on ``kernel`` (once); whether it is installed."""
    if kernel is None or getattr(kernel, "_jupyter_agents_reads", False):
        return bool(kernel is not None)
    if not all(hasattr(kernel, part) for part in _PARTS) or kernel.session is None:
        return False
    thread = kernel.shell_channel_thread
    if thread is None:  # no shell channel thread: the shell is dispatched another way
        return False
    try:
        thread.manager.set_on_recv_callback(_receiver(kernel))
    except Exception:  # an ipykernel that differs: leave its dispatch as it is
        logger.debug("could not install the shell callback", exc_info=True)
        return False
    kernel._jupyter_agents_reads = True
    return True


def _receiver(kernel: Any) -> Callable[[str | None, Any], Awaitable[None]]:
    original = kernel.shell_main

    async def receive(subshell_id: str | None, msg: Any) -> None:
        if subshell_id is None and kernel._main_asyncio_lock.locked() and _reads(kernel, msg):
            ident, parent = kernel._parent_ident["shell"], kernel.get_parent("shell")
            try:
                answer = kernel.dispatch_shell(msg, subshell_id=None, concurrent=True)
                await contextvars.copy_context().run(asyncio.ensure_future, answer)
            finally:  # the running cell's outputs keep going to its cell
                kernel.set_parent(ident, parent, "shell")
            return
        await original(subshell_id, msg)

    return receive


def _reads(kernel: Any, msg: Any) -> bool:
    """Whether ``msg`` (raw frames) is one of the requests answered at once."""
    try:
        _, frames = kernel.session.feed_identities(msg, copy=False)
        header = kernel.session.deserialize(frames, content=False, copy=False)["header"]
    except Exception:
        return False
    return header.get("msg_type") in ANSWERED_AT_ONCE
