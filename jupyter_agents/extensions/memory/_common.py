"""What the server-backed stores share: finishing a write despite a cancellation, one client per
event loop, and reading the latest valid items of a history with unreadable entries in it."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from ...runtime.items import TResponseInputItem
from ...runtime.sessions._common import check_limit, decode_item, settle
from ...runtime.sessions.base import SessionABC
from ...runtime.sessions.settings import SessionSettings, resolve_session_limit

__all__ = ["PerLoop", "ServerHistory", "latest_valid", "settle"]

T = TypeVar("T")


class PerLoop(Generic[T]):
    """One client (an engine, a Redis client) per event loop.

    Network connections belong to the loop that opened them; a session made by ``from_url``
    may be used from ``Runner.run_sync`` and from a notebook cell, which run different loops.
    The first loop that asks gets ``first``; each other loop gets its own from ``make``.
    Without ``make`` (a client the caller passed in), every loop gets ``first``.
    """

    def __init__(self, first: T, make: Callable[[], T] | None) -> None:
        self.first = first
        self._make = make
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T] = (
            weakref.WeakKeyDictionary()
        )
        self._first_taken = False

    def get(self) -> T:
        """The client for the running loop."""
        if self._make is None:
            return self.first
        loop = asyncio.get_running_loop()
        client = self._by_loop.get(loop)
        if client is None:
            if not self._first_taken:
                self._first_taken = True
                client = self.first
            else:
                client = self._make()
            self._by_loop[loop] = client
        return client

    def current(self) -> T:
        """The running loop's client when there is one, else ``first``."""
        try:
            return self.get()
        except RuntimeError:  # no running loop
            return self.first

    def take_all(self) -> tuple[list[T], list[T]]:
        """Forget every client made so far; return those this loop may close (its own, or
        one no loop used yet) and those it may only drop (another loop's connections)."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        here: list[T] = [] if self._first_taken else [self.first]
        elsewhere: list[T] = []
        for loop, client in list(self._by_loop.items()):
            (here if loop is running else elsewhere).append(client)
        self._by_loop.clear()
        self._first_taken = True
        return here, elsewhere


async def latest_valid(
    read: Callable[[int], Awaitable[list[object]]], limit: int
) -> list[TResponseInputItem]:
    """The latest ``limit`` readable items, oldest first.

    ``read(n)`` returns the stored texts of the latest ``n`` entries, oldest first. An entry
    that is not a JSON object does not count towards ``limit``: the window doubles until it
    holds ``limit`` readable items or the whole history.
    """
    window = limit
    while True:
        raw = await read(window)
        items = [item for data in raw if (item := decode_item(data)) is not None]
        if len(items) >= limit or len(raw) < window:
            return items[-limit:] if limit else []
        window *= 2


class ServerHistory(SessionABC):
    """How the server-backed stores read a history: all of it, or the latest ``limit``
    readable items (the session settings' limit by default), skipping unreadable entries."""

    session_settings: SessionSettings | None

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the stored items, oldest first.

        Args:
            limit: Return only the latest ``limit`` items; by default the session settings'
                ``limit`` (``None``: all).
        """
        limit = resolve_session_limit(check_limit(limit), self.session_settings)
        if limit == 0:
            return []
        await self._ready()
        if limit is None:
            return [item for data in await self._all() if (item := decode_item(data)) is not None]
        return await latest_valid(self._latest, limit)

    async def _ready(self) -> None:
        """Prepare the store before a read (create tables, ...)."""

    async def _all(self) -> list[object]:
        """The stored texts of every entry, oldest first."""
        raise NotImplementedError

    async def _latest(self, count: int) -> list[object]:
        """The stored texts of the latest ``count`` entries, oldest first."""
        raise NotImplementedError
