"""A session kept in this process's memory."""

from __future__ import annotations

import json
import threading

from ..items import TResponseInputItem
from ._common import check_limit, check_session_id, encode_items
from .base import SessionABC
from .replace import check_keep

__all__ = ["InMemorySession"]


class InMemorySession(SessionABC):
    """A session held in memory, lost when the process ends.

    Items are stored as JSON text, so they are checked, copied and returned exactly as a
    ``SQLiteSession`` would return them. A lock keeps each
    ``add_items`` batch contiguous even when runs on several threads or event loops share
    the session.

    Example:
        >>> session = InMemorySession("demo")
    """

    def __init__(self, session_id: str) -> None:
        """Create an empty session.

        Args:
            session_id: The conversation's id; a non-empty string.

        Raises:
            UserError: ``session_id`` is empty or not a string.
        """
        self.session_id = check_session_id(session_id)
        self._items: list[str] = []
        # A threading lock rather than an asyncio one: runs on different threads (run_sync,
        # worker loops) may share the session. It is never held across an await, and each
        # critical section is a list operation, so holding it on the event loop is harmless.
        self._lock = threading.Lock()

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the stored items, oldest first.

        Args:
            limit: When given, return only the latest ``limit`` items (still oldest first).

        Returns:
            Fresh copies of the stored items.

        Raises:
            UserError: ``limit`` is negative or not an int.
        """
        limit = check_limit(limit)
        with self._lock:
            stored = (
                self._items if limit is None else self._items[max(0, len(self._items) - limit) :]
            )
            stored = list(stored)
        return [json.loads(data) for data in stored]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` after the stored ones, all or nothing.

        Args:
            items: Responses API input item dicts, JSON-serialisable.

        Raises:
            UserError: ``items`` is not a list of JSON-serialisable dicts; nothing is stored.
        """
        encoded = encode_items(items)
        with self._lock:
            self._items.extend(encoded)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item.

        Returns:
            The removed item, or ``None`` when the session is empty.
        """
        with self._lock:
            data = self._items.pop() if self._items else None
        return None if data is None else json.loads(data)

    async def replace_after(self, keep: int, items: list[TResponseInputItem]) -> None:
        """Keep the first ``keep`` items and store ``items`` in place of the rest, in one step.

        Raises:
            UserError: ``keep`` is not an int >= 0, or ``items`` is not a list of
                JSON-serialisable dicts; nothing changes.
        """
        keep = check_keep(keep)
        encoded = encode_items(items)
        with self._lock:
            self._items[keep:] = encoded

    async def clear_session(self) -> None:
        """Remove every item of this session."""
        with self._lock:
            self._items.clear()

    def __repr__(self) -> str:
        return f"InMemorySession({self.session_id!r}, items={len(self._items)})"
