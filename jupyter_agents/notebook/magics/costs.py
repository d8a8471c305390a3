"""What the notebook's runs cost, and its budgets: ``%agent cost`` and ``%agent budget``.

``%agent budget 0.50`` caps each ``%%agent`` cell; ``%agent budget --notebook 5`` caps the
notebook's total across cells (a cell then gets what is left of it, at most the per-cell
budget); ``%agent budget off`` clears both (``--notebook off`` only the notebook's);
``%agent budget`` shows the setting and what is spent. A cell whose next model call would go
over stops before it (``BudgetExceeded``). Prices come from genai-prices; a model without a
known price says "price unknown" and cannot run under a budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.display import Markdown, display

from ..._render import escape_markdown

if TYPE_CHECKING:  # the cost book is made when the extension loads, before any run
    from ...runtime.cost import RunCost

__all__ = ["CostBook", "CostEntry", "budget_magic", "cost_magic"]

BUDGET_USAGE = "%agent budget [DOLLARS | --notebook DOLLARS | off | --notebook off]"


@dataclass(frozen=True)
class CostEntry:
    """One ``%%agent`` run and what it cost."""

    cell: str
    agent: str
    model: str
    status: str
    tokens: int
    cost: RunCost


@dataclass
class CostBook:
    """The notebook's runs with their cost, and its budgets."""

    entries: list[CostEntry] = field(default_factory=list)
    cell_budget: Decimal | None = None
    """``%agent budget N``: at most this per cell."""
    notebook_budget: Decimal | None = None
    """``%agent budget --notebook N``: at most this across the notebook's cells."""

    def add(self, entry: CostEntry) -> None:
        """Record a finished (or failed, or stopped) run."""
        self.entries.append(entry)

    def spent(self) -> tuple[Decimal, bool]:
        """What the runs with a known price cost, and whether every run's price is known."""
        total = sum((e.cost.priced_usd for e in self.entries), Decimal(0))
        return total, all(e.cost.known for e in self.entries)

    def total(self) -> str:
        """The notebook's total as shown ("$1.23", or with "+ price unknown")."""
        from ...runtime.cost import RunCost

        priced, known = self.spent()
        return str(RunCost(priced if known else None, priced, known))

    def budget_for_cell(self) -> Decimal | None:
        """The ``max_cost_usd`` of the next cell: the per-cell budget, or what is left of the
        notebook's if that is less; a ``UsageError`` when the notebook's is spent."""
        if self.notebook_budget is None:
            return self.cell_budget
        left = self.notebook_budget - self.spent()[0]
        if left <= 0:
            from ...runtime.cost import format_usd

            raise UsageError(
                f"%%agent: the notebook's budget of {format_usd(self.notebook_budget)} is spent "
                f"({self.total()}); raise it with %agent budget --notebook DOLLARS, or turn it "
                "off with %agent budget --notebook off."
            )
        return left if self.cell_budget is None else min(left, self.cell_budget)

    def describe(self) -> str:
        """The budgets and what is spent, in one line."""
        from ...runtime.cost import format_usd

        cell = format_usd(self.cell_budget) if self.cell_budget is not None else "off"
        notebook = format_usd(self.notebook_budget) if self.notebook_budget is not None else "off"
        return (
            f"budget per cell {cell} · notebook budget {notebook} · spent {self.total()} "
            f"in {len(self.entries)} run{'s' if len(self.entries) != 1 else ''}"
        )


def _dollars(word: str) -> Decimal:
    try:
        value = Decimal(word.lstrip("$"))
    except InvalidOperation:
        value = Decimal(0)
    if not value.is_finite() or value <= 0:
        raise UsageError(f"%agent budget: {word!r} is not a positive number of dollars.")
    return value


def budget_magic(
    book: CostBook,
    words: list[str],
    check: Callable[[str, Any, str], None] = lambda name, value, where: None,
) -> None:
    """``%agent budget ...``: change the budgets as the words say, then print them (``check``
    refuses what the site's locks do not allow)."""
    cell, notebook = book.cell_budget, book.notebook_budget
    if words == ["off"]:
        cell = notebook = None
    elif words[:1] == ["--notebook"] and len(words) == 2:
        notebook = None if words[1] == "off" else _dollars(words[1])
    elif len(words) == 1 and not words[0].startswith("-"):
        cell = _dollars(words[0])
    elif words:
        raise UsageError(f"Usage: {BUDGET_USAGE}")
    check("budget_per_cell", cell, "%agent budget")
    check("budget_per_notebook", notebook, "%agent budget")
    book.cell_budget, book.notebook_budget = cell, notebook
    print(f"jupyter_agents: {book.describe()}")


def cost_magic(book: CostBook, words: list[str]) -> None:
    """``%agent cost``: the notebook's runs, what each cost, and the total."""
    if words:
        raise UsageError("Usage: %agent cost")
    if not book.entries:
        print("jupyter_agents: no %%agent run yet in this notebook.")
        return
    lines = ["| cell | agent | model | status | tokens | cost |", "|---|---|---|---|---:|---:|"]
    for n, e in enumerate(book.entries, 1):
        facts = [e.cell or f"run {n}", e.agent, e.model, e.status, f"{e.tokens:,}", str(e.cost)]
        lines.append("| " + " | ".join(_md(f) for f in facts) + " |")
    lines.append(f"\n**total**: {_md(book.total())} ({_md(book.describe())})")
    display(Markdown("\n".join(lines)))


_DOLLAR = re.compile(r"\\\$(?:[\d,]|\\\.)*")
"""An escaped ``$`` in escaped Markdown, with the amount after it (``\\$0\\.0123``)."""


def _md(text: str) -> str:
    """Literal Markdown text whose ``$`` never starts math in JupyterLab: each is escaped (for
    its Markdown step) and in an element of its own with the amount after it, since MathJax then
    pairs any two ``$`` in one run of text (an escaped ``$`` is a plain one by the time it
    looks)."""
    escaped = escape_markdown(text).replace("$", "\\$")
    return _DOLLAR.sub(lambda dollar: f"<span>{dollar.group()}</span>", escaped)
