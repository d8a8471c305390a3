"""Notebook conversations: one history per agent, organised by the cell that added each turn.

Re-running a cell re-asks from the conversation as it was before that cell, so the history
never holds a duplicated turn. A failed or cancelled run adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Conversation"]


@dataclass
class _Turn:
    cell: str
    items: list[dict[str, Any]]


@dataclass
class Conversation:
    """The turns of one agent's conversation in this notebook."""

    turns: list[_Turn] = field(default_factory=list)

    def history_before(self, cell: str) -> list[dict[str, Any]]:
        """Input items of every turn before ``cell``'s own (all turns if it has none)."""
        items: list[dict[str, Any]] = []
        for turn in self.turns:
            if turn.cell == cell:
                break
            items.extend(turn.items)
        return items

    def record(self, cell: str, items: list[dict[str, Any]]) -> None:
        """Store ``cell``'s turn, dropping that cell's earlier turn and every turn after it."""
        for index, turn in enumerate(self.turns):
            if turn.cell == cell:
                del self.turns[index:]
                break
        self.turns.append(_Turn(cell, list(items)))

    def clear(self) -> None:
        """Forget everything."""
        self.turns.clear()

    def __len__(self) -> int:
        return len(self.turns)
