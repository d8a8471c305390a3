"""What a batch gives back: one ``RowResult`` per row, counts, a DataFrame, and the calls
waiting for review (decide them, then ``resume()``)."""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from ..errors import UserError

if TYPE_CHECKING:
    from .budget import CostProjection

__all__ = ["BatchResult", "RowResult", "RowStatus"]

RowStatus = Literal["ok", "failed", "rejected", "waiting", "pending"]
"""``ok``; ``failed`` (an error: its message is in ``error``); ``rejected`` (a tool call was
refused, the run still answered); ``waiting`` (paused for review); ``pending`` (not run: the
batch was stopped first)."""


@dataclass
class RowResult:
    """One row's outcome."""

    key: str
    """The row's key (its index label as JSON, or its position)."""
    label: Any
    """The row's index label (or position)."""
    status: RowStatus
    output: Any = None
    """The final output (a structured output as a dict)."""
    error: str | None = None
    tokens: int = 0
    seconds: float = 0.0
    waiting: list[dict[str, Any]] | None = None
    """For a row waiting for review: its calls (``call_id``, ``tool``, ``arguments``, and
    ``question`` for a question to answer with ``BatchResult.answer``)."""
    from_store: bool = False
    """Read back from the results store (done by an earlier run of this batch)."""
    replayed: bool = False
    """Replayed to the end from the batch's cassette (``run_batch(cassette=...)``): no model
    call."""
    cost_usd: Decimal | None = None
    """What the row's model calls cost (None: failed, or no known price)."""
    tool_calls: list[dict[str, Any]] | None = None
    """The run's tool calls in order: ``name``, ``arguments`` (parsed JSON when it parses),
    ``call_id`` and ``status`` (how the call ended; None: no output yet). None: not known (a
    failed row, or a row stored before tool calls were kept)."""


@dataclass
class BatchResult:
    """The rows of a batch, in input order."""

    rows: list[RowResult]
    batch_id: str
    index_name: Any = None
    stopped: bool = False
    """Whether the batch was stopped before every row ran."""
    rate_limited: int = 0
    """How many 429 answers the provider gave (each halved the concurrency for a while)."""
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Review decisions not yet used, by row key: ``{call_id: (approved, message)}``."""
    cost: CostProjection | None = None
    """What the rows run this time cost, and the whole batch at that rate; with a budget,
    whether it stopped the batch (``str()`` is one line)."""
    _resume: Callable[[BatchResult], BatchResult] | None = field(default=None, repr=False)

    @property
    def counts(self) -> dict[str, int]:
        """How many rows have each status."""
        return dict(Counter(r.status for r in self.rows))

    @property
    def tokens(self) -> int:
        return sum(r.tokens for r in self.rows)

    @property
    def waiting(self) -> list[RowResult]:
        """The rows paused for review."""
        return [r for r in self.rows if r.status == "waiting"]

    def review_table(self) -> list[dict[str, Any]]:
        """One line per waiting call: row key and label, call id, tool and arguments."""
        return [
            {"key": r.key, "row": r.label, **call} for r in self.waiting for call in r.waiting or ()
        ]

    def approve(self, rows: Iterable[Any] | None = None, *, always: bool = False) -> None:
        """Approve the waiting calls of ``rows`` (labels or keys; None: every waiting row)."""
        self._decide(rows, True, None, always)

    def reject(self, rows: Iterable[Any] | None = None, message: str | None = None) -> None:
        """Reject the waiting calls of ``rows`` (labels or keys; None: every waiting row)."""
        self._decide(rows, False, message, False)

    def answer(self, rows: Iterable[Any] | Any, answer: Any) -> None:
        """Answer the waiting questions (``ask_user``) of ``rows`` (a label or key, or a list
        of them) with ``answer``; their other waiting calls are approved. The answer is
        checked against each question when the row resumes."""
        chosen = rows if isinstance(rows, (list, tuple, set)) else [rows]
        self._decide(chosen, True, None, False)
        for row in map(self._row, chosen):
            for call in row.waiting or ():
                if "question" in call:
                    self.decisions[row.key][call["call_id"]]["answer"] = answer

    def resume(self) -> BatchResult:
        """Run the decided rows on (and only those) and return the updated result."""
        if not self.decisions:
            raise UserError("Nothing to resume: approve() or reject() some waiting rows first.")
        if self._resume is None:
            raise UserError("This result cannot be resumed (it was not made by run_batch).")
        return self._resume(self)

    def to_pandas(self) -> Any:
        """A DataFrame indexed like the input: ``output`` (or one column per field of a
        structured output), ``status``, ``error``, ``tokens`` and ``seconds``."""
        pd: Any = importlib.import_module("pandas")  # optional; untyped

        structured = (
            bool(self.rows)
            and all(isinstance(r.output, dict) for r in self.rows if r.status in ("ok", "rejected"))
            and any(isinstance(r.output, dict) for r in self.rows)
        )
        records = []
        for r in self.rows:
            record: dict[str, Any] = {}
            if structured:
                record.update(r.output if isinstance(r.output, dict) else {})
            else:
                record["output"] = r.output
            record.update(status=r.status, error=r.error, tokens=r.tokens, seconds=r.seconds)
            records.append(record)
        index = pd.Index([r.label for r in self.rows], name=self.index_name)
        return pd.DataFrame.from_records(records, index=index)

    def _repr_html_(self) -> str:
        from ..._render import escape_html

        frame = self.to_pandas()
        counts = ", ".join(f"{n} {s}" for s, n in sorted(self.counts.items()))
        head = f"<p><b>Batch</b> · {len(self.rows)} rows · {escape_html(counts)}</p>"
        return head + str(frame.head(20).to_html(escape=True))

    def __repr__(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(self.counts.items()))
        return f"<BatchResult {len(self.rows)} rows: {counts}>"

    def _decide(
        self, rows: Iterable[Any] | None, approved: bool, message: str | None, always: bool
    ) -> None:
        chosen = self.waiting if rows is None else [self._row(r) for r in rows]
        for row in chosen:
            if row.status != "waiting":
                raise UserError(f"Row {row.label!r} is not waiting for review ({row.status}).")
            self.decisions[row.key] = {
                call["call_id"]: {"approved": approved, "message": message, "always": always}
                for call in row.waiting or ()
            }

    def _row(self, wanted: Any) -> RowResult:
        for row in self.rows:
            if wanted == row.key or wanted == row.label:
                return row
        raise UserError(f"No row {wanted!r} in this batch.")
