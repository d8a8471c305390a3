"""Replacing the end of a conversation: keep its first items, put new ones after them.

A notebook re-runs a cell: that cell's turn and every later one give way to the new turn.
Stores that can do it in one transaction have a ``replace_after(keep, items)`` coroutine (the
in-memory session, the SQLAlchemy and Redis stores, the encrypting wrapper): a writer that dies
half way leaves the conversation as it was. For any other session, ``replace_after`` pops
the replaced items one by one and then adds the new ones; a writer that dies half way then
loses only items that were being replaced, never the kept ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import UserError
from ..items import TResponseInputItem
from ._common import decode_item
from .base import Session

__all__ = ["check_keep", "cut_position", "replace_after"]


def check_keep(keep: object) -> int:
    """Return ``keep`` if it is an int >= 0, else raise ``UserError``."""
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 0:
        raise UserError(f"keep must be an int >= 0 (the items kept), got {keep!r}.")
    return keep


def cut_position(stored: Sequence[object], keep: int) -> int:
    """How many stored entries hold the first ``keep`` readable items.

    ``stored`` is a history as stored (JSON texts, oldest first), unreadable entries included:
    they count towards the position but not towards ``keep``, as ``Session.get_items``
    skips them. Entries between the last kept item and the next readable one go with the
    replaced part. When fewer than ``keep`` items are readable, every entry is kept.
    """
    if keep == 0:
        return 0
    seen = 0
    for position, data in enumerate(stored, start=1):
        if decode_item(data) is not None:
            seen += 1
            if seen == keep:
                return position
    return len(stored)


async def replace_after(session: Session, keep: int, items: list[TResponseInputItem]) -> None:
    """Keep the first ``keep`` items of ``session`` and store ``items`` after them, replacing
    the rest: in one transaction when the session has ``replace_after``, else item by item."""
    keep = check_keep(keep)
    own = getattr(session, "replace_after", None)
    if callable(own):
        await own(keep, items)
        return
    count = len(await session.get_items())
    for _ in range(max(0, count - keep)):
        if await session.pop_item() is None:
            break
    if items:
        await session.add_items(items)
