"""The open comms of one target in this kernel: adopted as they open (by either side), dropped
when they close or fail, and a way back onto the kernel's event loop for their messages."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["CommSet"]

logger = logging.getLogger("jupyter_agents")


class CommSet:
    """Comms of one target; ``on_msg(comm, msg)`` gets each message a frontend sends."""

    def __init__(self, what: str, on_msg: Callable[[Any, dict[str, Any]], None]) -> None:
        self.what = what
        """What the comms carry, for the log (``"runs"``, ``"document"``)."""
        self.comms: list[Any] = []
        self._on_msg = on_msg
        self._forgotten: list[Callable[[Any], object]] = []
        self.loop: asyncio.AbstractEventLoop | None = None

    def bind_loop(self) -> None:
        """Remember the kernel's event loop (call on it, when opening)."""
        try:
            self.loop = asyncio.get_event_loop()
        except RuntimeError:
            self.loop = None

    def adopt(self, comm: Any) -> None:
        self.comms.append(comm)
        comm.on_msg(lambda msg, comm=comm: self._on_msg(comm, msg))
        comm.on_close(lambda _msg, comm=comm: self.forget(comm))

    def on_forget(self, callback: Callable[[Any], object]) -> None:
        """Also call ``callback(comm)`` when a comm is dropped."""
        self._forgotten.append(callback)

    def forget(self, comm: Any) -> None:
        if comm in self.comms:
            self.comms.remove(comm)
        for callback in self._forgotten:
            callback(comm)

    def send(self, comm: Any, data: Mapping[str, object]) -> None:
        """Send ``data``; a closed or broken comm is dropped, the others kept."""
        try:
            comm.send(data)
        except Exception:
            logger.debug("a %s comm could not send", self.what, exc_info=True)
            self.forget(comm)

    def close(self) -> None:
        for comm in list(self.comms):
            try:
                comm.close()
            except Exception:
                logger.debug("closing a %s comm failed", self.what, exc_info=True)
        self.comms.clear()

    def on_loop(self, work: Callable[[], Any]) -> None:
        """Run ``work`` on the kernel's event loop, whatever thread delivered the message (at
        once when there is no loop); a failure is logged, never raised into the comm."""

        def guarded() -> None:
            try:
                work()
            except Exception:
                logger.exception("a %s comm request failed", self.what)

        loop = self.loop
        if loop is None or loop.is_closed():
            guarded()
        else:
            loop.call_soon_threadsafe(guarded)
