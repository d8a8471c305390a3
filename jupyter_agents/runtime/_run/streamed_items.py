"""The items a streamed model call announced before its response was complete, so that the
turn records each of them once, whatever the stream's output indexes say."""

from __future__ import annotations

from typing import Any

from ..items import RunItem

__all__ = ["StreamedItems"]


def _key(raw: Any) -> tuple[Any, Any, Any]:
    """What tells one output item from another: its type, call id and id (a stream's output
    indexes do not: some providers send every item at index 0)."""
    return raw.type, getattr(raw, "call_id", None), getattr(raw, "id", None)


class StreamedItems:
    """The finished items of one streamed response (``response.output_item.done``), in order."""

    __slots__ = ("_announced", "raw")

    def __init__(self) -> None:
        self.raw: list[Any] = []
        """Every finished output item as it came: the response's output when the stream's
        last event brings none (some providers only send the items one by one)."""
        self._announced: dict[tuple[Any, Any, Any], list[RunItem]] = {}

    def add(self, raw: Any, item: RunItem | None) -> None:
        """``raw`` is finished; ``item`` is its run item, already announced (None: none)."""
        self.raw.append(raw)
        if item is not None:
            self._announced.setdefault(_key(raw), []).append(item)

    def take(self, raw: Any) -> RunItem | None:
        """The announced run item for the response's output item ``raw`` (each is given once),
        None when the stream did not announce it."""
        if not self._announced:
            return None
        waiting = self._announced.get(_key(raw))
        return waiting.pop(0) if waiting else None
