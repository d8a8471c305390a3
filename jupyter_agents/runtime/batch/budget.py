"""A batch's budget (``run_batch(max_cost_usd=...)``): the cost of the rows so far, projected
over the whole batch, and the rule that stops starting rows before the budget is passed.

Until a row has finished (and so a row's cost is known), rows start one at a time. After that
a row starts only while ``spent + (rows running + 1) * cost per row <= budget``, the cost per
row being the mean of the rows finished in this run of the batch. Rows not started stay
``pending``; the results store keeps the finished ones, so running the batch again with a
larger budget goes on where it stopped.

The projection decides which rows start; the budget itself is kept call by call, as a run's
is (``_run/budget.py``): every row run here is nested in the batch's ``BatchBudget.live``
spend, so its model calls (and those of the agents it runs as tools) count against the
batch's budget as they happen, and a row is stopped before a call that would go over it. A
row run on Ray gets what is left of the budget as it starts (``BatchBudget.left``). A row
the budget stopped is left ``pending`` (not stored), its spend counted, and no row starts
after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .._run.spend import Spend
from ..cost import format_usd
from .result import RowResult

__all__ = ["BatchBudget", "CostProjection"]


@dataclass(frozen=True)
class CostProjection:
    """What a batch's rows cost so far, and what all of them would cost at that rate."""

    rows: int
    """Rows of the batch."""
    priced_rows: int
    """Rows run (in this run of the batch) with a known price."""
    spent_usd: Decimal
    """What those rows cost."""
    budget_usd: Decimal | None
    """The batch's budget (None: none)."""
    stopped: bool = False
    """Whether rows were left unstarted because the budget would have been passed."""
    pending: int = 0
    """Rows not run."""

    @property
    def per_row_usd(self) -> Decimal | None:
        """The mean cost of a priced row (None before the first)."""
        return self.spent_usd / self.priced_rows if self.priced_rows else None

    @property
    def projected_usd(self) -> Decimal | None:
        """What every row of the batch would cost at the mean cost per row."""
        per_row = self.per_row_usd
        return per_row * self.rows if per_row is not None else None

    def __str__(self) -> str:
        if self.per_row_usd is None or self.projected_usd is None:
            text = f"no priced row yet of {self.rows}"
        else:
            text = (
                f"{format_usd(self.spent_usd)} for {self.priced_rows} rows (about "
                f"{format_usd(self.per_row_usd)} a row; all {self.rows} rows: about "
                f"{format_usd(self.projected_usd)})"
            )
        if self.stopped and self.budget_usd is not None:
            text += (
                f"; stopped at the budget of {format_usd(self.budget_usd)} with "
                f"{self.pending} rows not started (run the batch again with a larger budget "
                "to go on)"
            )
        return text


class BatchBudget:
    """The spend of a batch's rows against its budget (None: no budget, only the tally)."""

    def __init__(self, limit: Decimal | None) -> None:
        self.limit = limit
        self.spent = Decimal(0)
        self.priced = 0
        self.stopped = False
        """Set when a row was not started, or was stopped, because of the budget."""
        self.live: Spend | None = None
        """The spend of the rows run here, call by call, under the budget (None: no
        budget)."""
        if limit is not None:
            self.live = Spend()
            self.live.link(limit, None)

    def left(self) -> Decimal | None:
        """What is left of the budget for a row starting now (None: no budget)."""
        if self.limit is None:
            return None
        live = self.live.priced()[0] if self.live is not None else Decimal(0)
        return max(Decimal(0), self.limit - max(self.spent, live))

    def may_start(self, running: int) -> bool:
        """Whether one more row may start while ``running`` rows are in flight."""
        if self.limit is None:
            return True
        if self.stopped:
            return False
        if not self.priced:
            allowed = running == 0
        else:
            allowed = self.spent + (running + 1) * (self.spent / self.priced) <= self.limit
        if not allowed and running == 0:
            self.stopped = True  # nothing in flight can change the projection: the batch stops
        return allowed

    def row_done(self, row: RowResult) -> None:
        """Count a finished row's cost (a row without a known price adds nothing); a row the
        budget stopped (left ``pending``) adds its spend, and stops the batch."""
        if row.status == "pending":
            self.spent += row.cost_usd or 0
            self.stopped = True
        elif row.cost_usd is not None:
            self.spent += row.cost_usd
            self.priced += 1

    def projection(self, rows: list[RowResult | None]) -> CostProjection:
        """Where the batch stands."""
        pending = sum(1 for r in rows if r is None)
        return CostProjection(len(rows), self.priced, self.spent, self.limit, self.stopped, pending)
