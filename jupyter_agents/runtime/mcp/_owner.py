"""The task that owns one MCP client session, from the transport's start to its end.

The ``mcp`` SDK's sessions and transports are anyio context managers: they must be entered and
left by the same task. ``SessionOwner`` runs that task: ``SessionOwner.start`` begins
it and waits until the session is initialised, ``SessionOwner.stop`` tells it to leave and
waits for it. The task also notices when the connection ends by itself (the server exited).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any

from mcp import ClientSession
from mcp import types as mcp_types
from mcp.client.session import ElicitationFnT, MessageHandlerFnT

__all__ = ["SessionOwner", "closed", "describe"]

logger = logging.getLogger("jupyter_agents.mcp")

_WATCH_SECONDS = 0.25
"""How often an idle session checks that its connection is still there."""


class SessionOwner:
    """One session of the server called ``name``, in its own task (see the module)."""

    def __init__(
        self,
        name: str,
        transport: Callable[[], AbstractAsyncContextManager[Any]],
        timeout: float | None,
        on_message: MessageHandlerFnT,
        on_elicit: ElicitationFnT | None = None,
    ) -> None:
        self.name = name
        self._on_elicit = on_elicit
        self._transport = transport
        self._timeout = timeout
        self._on_message = on_message
        self.session: ClientSession | None = None
        """The session while it is open (None once the connection ended or was closed)."""
        self.initialized: mcp_types.InitializeResult | None = None
        """What the server said when the session started."""
        self._task: asyncio.Task[None] | None = None
        self._closing = asyncio.Event()

    async def start(self) -> ClientSession:
        """Start the task and return its session once initialised.

        Raises:
            asyncio.TimeoutError: It did not start within the timeout.
            Exception: What the transport or the session raised while starting.
        """
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._own(ready), name=f"mcp server {self.name}")
        try:
            self.session = await asyncio.wait_for(asyncio.shield(ready), self._timeout)
        except BaseException:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            raise
        return self.session

    async def stop(self) -> None:
        """Tell the task to leave the session and transport; wait (5 s at most, then cancel)."""
        task, self._task, self.session = self._task, None, None
        if task is None:
            return
        self._closing.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), 5)
        except (asyncio.TimeoutError, Exception):
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _own(self, ready: asyncio.Future[ClientSession]) -> None:
        try:
            async with AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    ClientSession(
                        streams[0],
                        streams[1],
                        read_timeout_seconds=self._timeout,
                        message_handler=self._on_message,
                        elicitation_callback=self._on_elicit,
                    )
                )
                self.initialized = await session.initialize()
                if not ready.done():
                    ready.set_result(session)
                await self._until_closed(session)
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as e:  # the transport's task groups raise groups
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else RuntimeError(str(e)))
            else:
                logger.info("MCP server %r stopped: %s", self.name, describe(e))
        finally:
            opened = ready.done() and not ready.cancelled() and ready.exception() is None
            if opened and self.session is ready.result():
                self.session = None

    async def _until_closed(self, session: ClientSession) -> None:
        """Wait until told to close, or until the connection ends by itself (the server
        exited): then the session is gone and the next request starts the server again."""
        while not self._closing.is_set() and not closed(session):
            try:
                await asyncio.wait_for(self._closing.wait(), _WATCH_SECONDS)
            except asyncio.TimeoutError:
                pass


def closed(session: ClientSession) -> bool:
    """Whether the session's connection has ended (the server exited or hung up)."""
    dispatcher = getattr(session, "_dispatcher", None)
    return bool(getattr(dispatcher, "_closed", False))


def describe(error: BaseException) -> str:
    """The innermost meaningful message of ``error`` (task groups wrap the real one)."""
    while getattr(error, "exceptions", None):  # an exception group
        error = error.exceptions[0]  # type: ignore[attr-defined]
    text = str(error).strip().rstrip(".")
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
