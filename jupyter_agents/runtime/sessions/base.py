"""The session contract: where a run loads its history from and saves its new items to.

A session stores one conversation as an ordered list of Responses API input items (plain,
JSON-serialisable dicts). ``Runner.run(..., session=...)`` reads the history with
``Session.get_items`` before the first turn and saves the run's new items with one
``Session.add_items`` call at the end, so a run's items are stored all or nothing.

Any object with these four coroutines and a ``session_id`` is a session (``Session`` is a
structural ``Protocol``); ``SessionABC`` is the same contract as an abstract
base class, for those who prefer to subclass.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

from ..items import TResponseInputItem

__all__ = ["Session", "SessionABC"]


@runtime_checkable
class Session(Protocol):
    """Storage for one conversation's history (structural: any matching object is a session).

    Implementations must keep the items of one ``add_items`` call together: stored
    completely, contiguously and in order, or not at all, even when several runs share the
    session concurrently.
    """

    session_id: str
    """The conversation this session stores; unique within its storage."""

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the stored items, oldest first.

        Args:
            limit: When given, return only the latest ``limit`` items (still oldest first).

        Returns:
            Fresh copies of the stored items; changing them does not change the session.
        """
        ...

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` after the stored ones, all or nothing.

        Args:
            items: Responses API input item dicts, JSON-serialisable.
        """
        ...

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item.

        Returns:
            The removed item, or ``None`` when the session is empty.
        """
        ...

    async def clear_session(self) -> None:
        """Remove every item of this session."""
        ...


class SessionABC(ABC):
    """The ``Session`` contract as an abstract base class.

    Subclass it to have missing methods reported when the class is instantiated rather than
    when a run first uses the session. Instances satisfy ``Session``.
    """

    session_id: str
    """The conversation this session stores; unique within its storage."""

    @abstractmethod
    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """Return the stored items, oldest first.

        Args:
            limit: When given, return only the latest ``limit`` items (still oldest first).

        Returns:
            Fresh copies of the stored items; changing them does not change the session.
        """

    @abstractmethod
    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Append ``items`` after the stored ones, all or nothing.

        Args:
            items: Responses API input item dicts, JSON-serialisable.
        """

    @abstractmethod
    async def pop_item(self) -> TResponseInputItem | None:
        """Remove and return the most recent item.

        Returns:
            The removed item, or ``None`` when the session is empty.
        """

    @abstractmethod
    async def clear_session(self) -> None:
        """Remove every item of this session."""
