"""Checks and JSON encoding shared by the session implementations."""

from __future__ import annotations

import asyncio
import json
import logging
import reprlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ..errors import UserError
from ..items import TResponseInputItem

T = TypeVar("T")

logger = logging.getLogger("jupyter_agents")

_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60


def check_session_id(session_id: object) -> str:
    """Return ``session_id`` if it is a non-empty string, else raise ``UserError``."""
    if not isinstance(session_id, str) or not session_id.strip():
        raise UserError(
            f"session_id must be a non-empty string, got {session_id!r}. Use a stable id per "
            "conversation, for example 'user-42' or a UUID."
        )
    return session_id


def check_limit(limit: object) -> int | None:
    """Return ``limit`` if it is ``None`` or an int >= 0, else raise ``UserError``."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise UserError(
            f"limit must be None (all items) or an int >= 0 (the latest items), got {limit!r}."
        )
    return limit


def encode_items(items: object, *, ensure_ascii: bool = False) -> list[str]:
    """Check ``items`` and encode each one as compact JSON text.

    Every item is encoded before anything is stored, so a bad item anywhere in the list stores
    nothing.

    Args:
        items: What the caller passed to ``add_items``.
        ensure_ascii: Escape non-ASCII characters (``\\uXXXX``), as some stores of the SDK do.

    Returns:
        One JSON text per item, in order.

    Raises:
        UserError: ``items`` is not a list, an item is not a dict, or an item cannot be encoded
            as JSON (the message names the item).
    """
    if not isinstance(items, list):
        raise UserError(
            f"add_items() takes a list of input item dicts, got {type(items).__name__}. "
            "Wrap a single item in a list: add_items([item])."
        )
    encoded: list[str] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise UserError(
                f"Session items must be dicts (Responses API input items); item {index} is a "
                f"{type(item).__name__}: {_short.repr(item)}. Convert run items with "
                "to_input_item() first."
            )
        try:
            # allow_nan=False: NaN is not JSON, and neither the model API nor SQLite's JSON
            # functions would read it back.
            encoded.append(
                json.dumps(item, ensure_ascii=ensure_ascii, allow_nan=False, separators=(",", ":"))
            )
        except (TypeError, ValueError, RecursionError) as exc:
            raise UserError(
                f"Session item {index} ({_describe(item)}) is not JSON-serialisable: {exc}. "
                "Store plain JSON values, for example model.model_dump(mode='json')."
            ) from exc
    return encoded


def decode_item(data: object) -> TResponseInputItem | None:
    """Decode one stored item, or log and return ``None`` if the stored text is not an object.

    Only a hand-edited or foreign database holds such rows; skipping them keeps the rest of the
    conversation usable.
    """
    try:
        item = json.loads(data) if isinstance(data, (str, bytes)) else None
    except ValueError:
        item = None
    if isinstance(item, dict):
        return item
    logger.warning(
        "Skipping a stored session item that is not a JSON object: %s", _short.repr(data)
    )
    return None


def _describe(item: dict[object, object]) -> str:
    kind = item.get("type", item.get("role"))
    return f"type {kind!r}" if isinstance(kind, str) else f"keys {_short.repr(list(item))}"


async def settle(write: Awaitable[T]) -> T:
    """Await ``write`` to its end even when the caller is cancelled, then re-raise that.

    A caller that returned at cancellation would not know whether its items were stored, and
    its next write could overtake this one. So the write always finishes first; a cancellation
    is re-raised afterwards.
    """
    task = asyncio.ensure_future(write)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError as exc:
            cancelled = cancelled or exc
    if cancelled is not None:
        if not task.cancelled():
            task.exception()  # retrieved: the cancellation is the caller's answer
        raise cancelled
    return task.result()


async def run_write(func: Callable[[], T]) -> T:
    """Run a blocking write on a worker thread and wait for its outcome, even when cancelled
    (see ``settle``)."""
    return await settle(asyncio.to_thread(func))
