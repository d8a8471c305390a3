"""``compare``: two reports of the same cases side by side: each scorer's average before and
after, and the cases that got better or worse (an assertion that flipped, a score that moved).
Higher is better, as for the gate."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Literal

from .._render.terminal import terminal_safe
from ._text import comparison_text
from .report import CaseResult, EvalReport

__all__ = ["CaseChange", "Comparison", "ScorerDelta", "compare"]


@dataclass(frozen=True)
class ScorerDelta:
    """One scorer's average in both reports."""

    name: str
    """The scorer's result name."""
    a: float | None
    """Its average in report A (None: A has no such result)."""
    b: float | None
    """Its average in report B (None: B has no such result)."""

    @property
    def delta(self) -> float | None:
        """B minus A (None when either is missing)."""
        return self.b - self.a if self.a is not None and self.b is not None else None


@dataclass(frozen=True)
class CaseChange:
    """One case whose result for one scorer changed from A to B."""

    case: str
    """The case's name."""
    scorer: str
    """The result's name."""
    a: Any
    """The value in A (``error`` for a case that failed to run there)."""
    b: Any
    """The value in B."""
    direction: Literal["better", "worse", "changed"]
    """``changed``: a label (no better or worse)."""
    reason: str | None = None
    """B's reason, when it gave one."""

    def __str__(self) -> str:
        why = f" ({self.reason})" if self.reason else ""
        line = f"{self.case}: {self.scorer} {_show(self.a)} -> {_show(self.b)}{why}"
        return " ".join(terminal_safe(line).split())  # names and reasons are untrusted text


@dataclass
class Comparison:
    """What changed between report A and report B (``str()`` is a short text table)."""

    a_name: str
    """Report A's name."""
    b_name: str
    """Report B's name."""
    scorers: list[ScorerDelta]
    """Per scorer: average in A, in B, and the change."""
    changes: list[CaseChange]
    """Every per-case change, in A's case order."""
    only_a: list[str] = field(default_factory=list)
    """Cases in A only (by name)."""
    only_b: list[str] = field(default_factory=list)
    """Cases in B only (by name)."""
    report_a: EvalReport | None = field(default=None, repr=False, compare=False)
    """Report A itself (its cases, for a side-by-side view)."""
    report_b: EvalReport | None = field(default=None, repr=False, compare=False)
    """Report B itself."""

    @property
    def better(self) -> list[CaseChange]:
        """The changes for the better (an assertion now holds, a score went up)."""
        return [c for c in self.changes if c.direction == "better"]

    @property
    def worse(self) -> list[CaseChange]:
        """The changes for the worse (an assertion now fails, a score went down, an error)."""
        return [c for c in self.changes if c.direction == "worse"]

    def to_pandas(self, by: Literal["case", "scorer"] = "case") -> Any:
        """A DataFrame: one row per changed case and scorer (``by="case"``: case, scorer,
        a, b, direction, reason), or one per scorer (``by="scorer"``: a, b, delta)."""
        pd: Any = importlib.import_module("pandas")  # optional; untyped
        if by == "scorer":
            records = [{"a": d.a, "b": d.b, "delta": d.delta} for d in self.scorers]
            return pd.DataFrame.from_records(
                records, index=pd.Index([d.name for d in self.scorers], name="scorer")
            )
        columns = ["case", "scorer", "a", "b", "direction", "reason"]
        return pd.DataFrame.from_records([vars(c) for c in self.changes], columns=columns)

    def __str__(self) -> str:
        return comparison_text(self)

    def __repr__(self) -> str:
        return (
            f"<Comparison {self.a_name!r} -> {self.b_name!r}: {len(self.better)} better, "
            f"{len(self.worse)} worse>"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self) if cycle else str(self))


def compare(report_a: EvalReport, report_b: EvalReport) -> Comparison:
    """Compare two reports of the same dataset, case by case (matched by name).

    Returns:
        The scorers' averages in A and B with their change, and every case whose result
        changed: better, worse, or (a label) changed.
    """
    avg_a, avg_b = report_a.averages(), report_b.averages()
    names = list(dict.fromkeys([*avg_a, *avg_b]))
    scorers = [ScorerDelta(n, avg_a.get(n), avg_b.get(n)) for n in names]
    by_name = {c.name: c for c in report_b.cases}
    changes: list[CaseChange] = []
    for case_a in report_a.cases:
        case_b = by_name.get(case_a.name)
        if case_b is not None:
            changes += _case_changes(case_a, case_b)
    names_a = {c.name for c in report_a.cases}
    return Comparison(
        a_name=report_a.name,
        b_name=report_b.name,
        scorers=scorers,
        changes=changes,
        only_a=[c.name for c in report_a.cases if c.name not in by_name],
        only_b=[c.name for c in report_b.cases if c.name not in names_a],
        report_a=report_a,
        report_b=report_b,
    )


def _case_changes(a: CaseResult, b: CaseResult) -> list[CaseChange]:
    changes = []
    for name in dict.fromkeys([*a.scores, *b.scores]):
        before, after = _value(a, name), _value(b, name)
        if before == after or (before is None and after is None):
            continue
        reason = b.scores[name].reason if name in b.scores else b.error
        changes.append(CaseChange(a.name, name, before, after, _direction(a, b, name), reason))
    return changes


def _value(case: CaseResult, name: str) -> Any:
    if case.error is not None:
        return "error"
    score = case.scores.get(name)
    return score.value if score is not None else None


def _direction(a: CaseResult, b: CaseResult, name: str) -> Literal["better", "worse", "changed"]:
    before, after = a.value(name), b.value(name)
    if before is None or after is None:
        return "changed"
    if after == before:  # an error in one and a score of 0 in the other
        return "worse" if b.error is not None else "better" if a.error is not None else "changed"
    return "better" if after > before else "worse"


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "✔" if value else "✗"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
