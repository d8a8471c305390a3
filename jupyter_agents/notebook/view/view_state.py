"""``ViewState``: the header and blocks a run widget shows, and what goes over the wire.

Blocks are edited in place; ``ViewState.changed`` bumps a block's rev. Tool cards get
internal ids (``k1``, ``k2``, ...) tied to the run's call item objects, so two calls that share
a model-chosen call id (a model may reuse ids across turns; a nested agent tool's calls may
clash with the outer run's) are two cards, and no model-chosen id can collide with a block id.

Text is cheap to stream: while the run is live, the synced ``blocks`` trait carries no text
for text blocks; the text travels as ``append`` messages holding only
what is new (see ``take_text_messages``), and a view that opens later asks for the whole
text with ``hello``. A 10 MB answer therefore costs about 10 MB on the wire, not the sum of
every prefix. At the end the final state carries everything (cut to ``SAVED_TEXT_CHARS``
per block, with a note, so saved notebooks stay small).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, cast

from .widget_state import Block, Header, KernelMessage, TextBlock, ToolBlock

__all__ = ["SAVED_TEXT_CHARS", "ViewState"]

SAVED_TEXT_CHARS = 200_000
"""Characters of one text block kept in the final (saved) widget state."""

_DEFAULTS = {"kind": "tool", "status": "done"}
"""Fields left out of the synced state: the frontend assumes them (tool cards are the most
numerous blocks, so saved notebooks stay small)."""


def _copy(block: Any) -> Any:
    """A copy for syncing, without empty or default fields."""
    out = {}
    for key, value in block.items():
        if value is None or value is False or value in ("", []) or _DEFAULTS.get(key) == value:
            continue
        out[key] = _copy(value) if key == "approval" else value
    return out


class ViewState:
    """The state of one run view: header, ordered blocks, and streamed text."""

    def __init__(self, header: Header, on_change: Callable[[], None]) -> None:
        """Create the state.

        Args:
            header: The initial header.
            on_change: Called after every change (with the owner's lock held).
        """
        self.header = header
        self.blocks: dict[str, Block] = {}
        self.final = False
        """Set when the run ended: snapshots then carry all text and no revs."""
        self._on_change = on_change
        self._copies: dict[str, Block] = {}
        self._texts: dict[str, list[str]] = {}
        self._sent: dict[str, int] = {}
        """Characters of each text block already sent to the frontend."""
        self._replaced: set[str] = set()
        self.text_dirty = False
        """Text not sent yet (see ``take_text_messages``)."""
        self.state_dirty = False
        """Header or blocks changed since the last ``wire``."""
        self._ids = itertools.count(1)
        self._cards: dict[int, str] = {}
        self._keep: list[object] = []
        self._by_call_id: dict[str, str] = {}

    def next_id(self) -> str:
        """A fresh number, for blocks whose source has no id."""
        return str(next(self._ids))

    # -- tool cards ------------------------------------------------------------------------

    def card(
        self, source: object | None, call_id: str | None, name: str | None = None
    ) -> ToolBlock:
        """The tool card of the call ``source`` (a run's call item), created if new.

        Without a source object, the newest card with the model's ``call_id`` is used.
        """
        key = self._cards.get(id(source)) if source is not None else None
        if key is None and source is None and call_id is not None:
            key = self._by_call_id.get(call_id)
        card = self.card_by_id(key) if key is not None else None
        if card is None:
            card = {"id": f"k{self.next_id()}", "kind": "tool", "rev": 0, "name": name or "tool"}
            card["status"], card["call_id"] = "running", call_id
            self.blocks[card["id"]] = card
            if source is not None:
                self._cards[id(source)] = card["id"]
                self._keep.append(source)  # ids stay unique while the view lives
        elif name and card.get("name") == "tool":
            card["name"] = name
        if call_id is not None:
            self._by_call_id[call_id] = card["id"]
        return card

    def card_by_id(self, key: str) -> ToolBlock | None:
        """The tool card with block id ``key``."""
        card = self.blocks.get(key)
        return cast(ToolBlock, card) if card is not None and card.get("kind") == "tool" else None

    # -- text ------------------------------------------------------------------------------

    def text(self, key: str) -> TextBlock:
        """The text block ``key``, created empty if new."""
        block = self.blocks.get(key)
        if block is None or block.get("kind") != "text":
            block = self.blocks[key] = {"id": key, "kind": "text", "rev": 0, "text": ""}
        return cast(TextBlock, block)

    def append_text(self, key: str, chunk: str) -> None:
        """Stream ``chunk`` into text block ``key`` (it travels as an ``append`` message; the
        synced blocks do not change unless the block is new)."""
        if key not in self.blocks:
            self.changed(self.text(key))
        self._texts.setdefault(key, []).append(chunk)
        self.text_dirty = True
        self._on_change()

    def set_text(self, key: str, text: str, agent: str | None) -> None:
        """Replace the text of block ``key`` (the exact text of a finished message by
        ``agent``)."""
        block = self.text(key)
        if self.full_text(key) != text:
            self._texts[key] = [text]
            self._replaced.add(key)
            self.text_dirty = True
        block["agent"] = agent
        self.changed(block)

    def full_text(self, key: str) -> str:
        """All text of block ``key`` so far."""
        chunks = self._texts.get(key)
        if chunks is None:
            block: Any = self.blocks.get(key, {})
            return str(block.get("text", ""))
        if len(chunks) > 1:
            chunks[:] = ["".join(chunks)]
        return chunks[0] if chunks else ""

    def take_text_messages(self) -> list[KernelMessage]:
        """Custom messages carrying the text not sent yet: ``append`` (the new tail, with the
        offset it starts at) or ``text`` (the whole text, when it was replaced)."""
        messages: list[KernelMessage] = []
        self.text_dirty = False
        for key in self._texts:
            text = self.full_text(key)
            sent = self._sent.get(key, 0)
            if key in self._replaced:
                messages.append({"type": "text", "id": key, "text": text})
            elif len(text) > sent:
                messages.append({"type": "append", "id": key, "at": sent, "text": text[sent:]})
            self._sent[key] = len(text)
        self._replaced.clear()
        return messages

    def all_text_messages(self) -> list[KernelMessage]:
        """One ``text`` message per text block: what a newly opened view needs."""
        return [{"type": "text", "id": k, "text": self.full_text(k)} for k in self._texts]

    # -- blocks ----------------------------------------------------------------------------

    def add(self, kind: str, key: str | None = None, **fields: Any) -> None:
        """Append a block (or replace block ``key``; its rev keeps growing)."""
        key = key or f"{kind[0]}:{self.next_id()}"
        old = self.blocks.get(key)
        block = cast(Block, {"id": key, "kind": kind, "rev": old.get("rev", 0) if old else 0})
        block.update(fields)  # type: ignore[typeddict-item]
        self.blocks[key] = block
        self.changed(block)

    def changed(self, block: Block | None = None) -> None:
        """Report a change (of ``block``, or of the header)."""
        if block is not None:
            block["rev"] = block.get("rev", 0) + 1
        self.state_dirty = True
        self._on_change()

    def wire(self) -> tuple[Header, list[Block]]:
        """Header and blocks for the synced traits: while live, text blocks carry no text (it
        travels in messages); at the end, everything, without revs."""
        self.state_dirty = False
        blocks = []
        for block in self.blocks.values():
            copy = self._copies.get(block["id"])
            if copy is None or copy.get("rev") != block.get("rev"):
                copy = self._copies[block["id"]] = _copy(block)
            blocks.append(copy)
        if self.final:
            blocks = [self._final(b) for b in blocks]
        return self._header_copy(), blocks

    def snapshot(self) -> tuple[Header, list[Block]]:
        """Exact header and blocks with all text (for transcripts and tests)."""
        blocks = []
        for block in self.blocks.values():
            copy = _copy(block)
            if block.get("kind") == "text":
                copy["text"] = self.full_text(block["id"])
            if self.final:
                copy.pop("rev", None)
            blocks.append(copy)
        return self._header_copy(), blocks

    def _final(self, block: Block) -> Block:
        out: Any = {k: v for k, v in block.items() if k != "rev"}
        if out.get("kind") == "text":
            text = self.full_text(out["id"])
            if len(text) > SAVED_TEXT_CHARS:
                more = len(text) - SAVED_TEXT_CHARS
                text = text[:SAVED_TEXT_CHARS] + f"\n\n… {more:,} more characters in the result."
            out["text"] = text
        return cast(Block, out)

    def _header_copy(self) -> Header:
        header = self.header.copy()
        if header["tokens"] is not None:
            header["tokens"] = header["tokens"].copy()
        return header
