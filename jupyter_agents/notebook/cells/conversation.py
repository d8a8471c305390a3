"""Notebook conversations: one session per agent, organised by the cell that added each turn.

The history lives in a runtime ``Session`` (in memory by
default). Re-running a cell re-asks from the conversation as it was before that cell, so the
history never holds a duplicated turn; a failed or cancelled run adds nothing. The new turn
replaces the cell's old one (and the turns after it) in one transaction where the store has one
(the database stores of ``%agent session`` do): a kernel killed meanwhile leaves the old turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...runtime.compaction import SUMMARY_PREFIX
from ...runtime.sessions import InMemorySession, Session
from ...runtime.sessions.replace import replace_after

__all__ = ["Conversation"]


@dataclass
class _Turn:
    cell: str
    size: int
    """How many session items the turn added."""


@dataclass
class Conversation:
    """The turns of one agent's conversation in this notebook."""

    session: Session = field(default_factory=lambda: InMemorySession("notebook"))
    """Where the items are stored."""

    turns: list[_Turn] = field(default_factory=list)

    base: int | None = None
    """How many items the session held before this kernel's first turn: a database keeps
    the conversation of earlier kernels (``%agent session``), in front of this one's turns."""

    summary: tuple[int, str] | None = None
    """``%agent compact``: the first items of the session (how many) that a summary (its text)
    stands for in what later turns are given; the items themselves stay in the session."""

    def _offset(self, cell: str) -> int | None:
        offset = self.base or 0
        for turn in self.turns:
            if turn.cell == cell:
                return offset
            offset += turn.size
        return None

    async def history_before(self, cell: str) -> list[dict[str, Any]]:
        """Input items of every turn before ``cell``'s own (all turns if it has none)."""
        items = await self.session.get_items()
        offset = self._offset(cell)
        before = items if offset is None else items[:offset]
        if self.summary is not None and self.summary[0] <= len(before):
            upto, text = self.summary
            return [{"role": "user", "content": SUMMARY_PREFIX + text}, *before[upto:]]
        return before

    async def record(self, cell: str, items: list[dict[str, Any]]) -> None:
        """Store ``cell``'s turn, dropping that cell's earlier turn and every turn after it."""
        offset = self._offset(cell)
        if offset is not None:
            await replace_after(self.session, offset, list(items))
            self.turns = self.turns[: [t.cell for t in self.turns].index(cell)]
        else:
            if not self.turns:
                self.base = len(await self.session.get_items())
            await self.session.add_items(list(items))
        self.turns.append(_Turn(cell, len(items)))

    async def clear(self) -> None:
        """Forget everything."""
        await self.session.clear_session()
        self.turns.clear()
        self.base = None
        self.summary = None

    async def items(self) -> list[dict[str, Any]]:
        """Every item of the conversation."""
        return await self.session.get_items()

    def __len__(self) -> int:
        return len(self.turns)
