"""Tool calls that go on after the run stopped waiting for them, for whoever shows the run.

A plain (sync) function tool runs on a worker thread, and Python cannot stop a thread: when the
run stops waiting for such a call (Stop, an interrupt, the call's timeout), the function goes on
and its side effects still happen, later. The invoke step reports each such call to
``background_call_sink`` as a ``BackgroundCall``, which tells when the function really
ends (``BackgroundCall.when_done``). A user interface sets the sink around a run (the
notebook's card says "still running in the background", then what the call did); without one,
the runtime logs a warning, and what the call returned once it ends.

Async tools are cancelled and ``@tool(killable=True)`` tools are killed, so neither is ever
reported here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import reprlib
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "BackgroundCall",
    "BackgroundEnd",
    "BackgroundReason",
    "background_call_sink",
    "report_background",
]

logger = logging.getLogger("jupyter_agents")

BackgroundReason: TypeAlias = Literal["stopped", "timeout"]
"""Why the run stopped waiting: it was stopped (Stop, an interrupt), or the call timed out."""


@dataclass(frozen=True)
class BackgroundEnd:
    """How a call that went on in the background ended."""

    output: Any = None
    """What the function returned (None when it raised)."""

    error: BaseException | None = None
    """What the function raised, if it did."""


@dataclass(frozen=True)
class BackgroundCall:
    """A sync tool call whose function goes on, on its worker thread, after the run stopped
    waiting for it."""

    call_id: str
    """The model's id of the call."""

    tool_name: str
    """The tool's name."""

    reason: BackgroundReason
    """Why the run stopped waiting for it."""

    future: concurrent.futures.Future[Any] = field(repr=False)
    """The function's run on its worker thread."""

    loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)
    """The event loop the run ran on: ``when_done`` calls back there."""

    @property
    def done(self) -> bool:
        """Whether the function has returned or raised."""
        return self.future.done()

    def when_done(self, callback: Callable[[BackgroundEnd], object]) -> None:
        """Call ``callback(end)`` once the function returned or raised: on the run's event loop
        (at once when it has already ended), or on the worker thread when that loop is closed."""

        def ended(future: concurrent.futures.Future[Any]) -> None:
            end = _end_of(future)
            loop = self.loop
            if loop is not None and not loop.is_closed():
                try:
                    loop.call_soon_threadsafe(callback, end)
                    return
                except RuntimeError:  # closed meanwhile
                    pass
            callback(end)

        self.future.add_done_callback(ended)


def _end_of(future: concurrent.futures.Future[Any]) -> BackgroundEnd:
    if future.cancelled():
        return BackgroundEnd(error=concurrent.futures.CancelledError())
    error = future.exception()
    return BackgroundEnd(error=error) if error is not None else BackgroundEnd(future.result())


background_call_sink: ContextVar[Callable[[BackgroundCall], None] | None] = ContextVar(
    "jupyter_agents_background_call_sink", default=None
)
"""Where the runtime reports calls that go on in the background (set around a run)."""


def report_background(call: BackgroundCall) -> None:
    """Hand ``call`` to the ``background_call_sink``, or log it when nobody listens."""
    sink = background_call_sink.get()
    if sink is not None:
        try:
            sink(call)
        except Exception:  # showing it must never change how the run ends
            logger.exception("could not report tool call %s going on in the background", call)
        return
    logger.warning(
        "Tool %r (call %s) is still running in the background: the run stopped waiting for it "
        "(%s), but a thread cannot be stopped. Use @tool(killable=True) for a tool that must "
        "stop.",
        call.tool_name,
        call.call_id,
        call.reason,
    )

    def ended(end: BackgroundEnd) -> None:
        if end.error is not None:
            what = f"raised {reprlib.repr(end.error)}"
        else:
            what = f"returned {reprlib.repr(end.output)}"
        logger.warning(
            "Tool %r (call %s) finished in the background: it %s.",
            call.tool_name,
            call.call_id,
            what,
        )

    call.when_done(ended)
