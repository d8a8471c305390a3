"""The rows in flight: futures that report to one queue when they finish, so waiting for the
next one costs the same with 4 rows in flight or 400 (``asyncio.wait`` walks them all)."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["Window"]


class Window:
    """Futures in flight, each with a tag; ``next`` gives them back as they finish."""

    def __init__(self) -> None:
        self._done: asyncio.Queue[tuple[asyncio.Future[Any], Any]] = asyncio.Queue()
        self._open: dict[asyncio.Future[Any], Any] = {}

    def __len__(self) -> int:
        return len(self._open)

    def add(self, future: asyncio.Future[Any], tag: Any) -> None:
        """Watch ``future``; ``next`` gives it back with ``tag`` once it is done."""
        self._open[future] = tag
        future.add_done_callback(lambda f: self._done.put_nowait((f, tag)))

    async def next(self) -> tuple[asyncio.Future[Any], Any]:
        """The next future to finish, and its tag."""
        while True:
            future, tag = await self._done.get()
            if future in self._open:  # else take_finished gave it already
                del self._open[future]
                return future, tag

    def take_finished(self) -> list[tuple[asyncio.Future[Any], Any]]:
        """The futures already done and not yet given back, with their tags."""
        done = [(future, tag) for future, tag in self._open.items() if future.done()]
        for future, _ in done:
            del self._open[future]
        return done

    async def cancel_all(self) -> None:
        """Cancel what is still in flight and wait for it to end."""
        pending = list(self._open)
        for future in pending:
            future.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        self._open.clear()
