"""Plain-text tables for a report and a comparison: short enough for a notebook cell's text
output or a CI log, failing cases first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._render.terminal import terminal_safe

if TYPE_CHECKING:
    from .compare import Comparison
    from .report import CaseResult, EvalReport

__all__ = ["comparison_text", "report_text"]

MAX_ROWS = 20
"""Case rows shown before ``... and N more``."""
NAME_WIDTH = 28


def report_text(report: EvalReport) -> str:
    """The report as a table: one line per case (failing first), then the averages."""
    names = list(dict.fromkeys(n for c in report.cases for n in c.scores))
    cost = report.cost_usd
    head = (
        f"Evaluation {report.name!r}: {len(report.cases)} cases, "
        f"{len(report.cases) - len(report.failures)} passed, {len(report.failures)} failing"
        + (f", {len(report.errors)} errors" if report.errors else "")
        + (f", ${cost:.4f}" if cost is not None else "")
    )
    header = ["case", *names, "duration", "cost"]
    rows = [_case_row(c, names) for c in report.failures_first()[:MAX_ROWS]]
    averages = report.averages()
    footer = ["averages", *(_percent_or_number(n, averages, report) for n in names), "", ""]
    lines = [head, *_table(header, [*rows, footer])]
    if len(report.cases) > MAX_ROWS:
        lines.insert(-1, f"... and {len(report.cases) - MAX_ROWS} more cases")
    return "\n".join(lines)


def comparison_text(comparison: Comparison) -> str:
    """Averages A, B and the change per scorer, then the cases that got better or worse."""
    a, b = comparison.a_name, comparison.b_name
    lines = [f"Comparison {a!r} (A) -> {b!r} (B)"]
    rows = [
        [d.name, _num(d.a), _num(d.b), f"{d.delta:+.3f}" if d.delta is not None else "-"]
        for d in comparison.scorers
    ]
    lines += _table(["scorer", "A", "B", "delta"], rows)
    for word, changes in (("worse", comparison.worse), ("better", comparison.better)):
        if changes:
            lines.append(f"{len(changes)} {word}:")
            lines += [f"  {ch}" for ch in changes[:MAX_ROWS]]
            if len(changes) > MAX_ROWS:
                lines.append(f"  ... and {len(changes) - MAX_ROWS} more")
    if not comparison.worse and not comparison.better:
        lines.append("No case changed.")
    return "\n".join(lines)


def _case_row(case: CaseResult, names: Sequence[str]) -> list[str]:
    cells = [_short(case.name)]
    for name in names:
        score = case.scores.get(name)
        cells.append("-" if score is None else _cell(score.value))
    if case.error is not None and names:
        cells[1:] = ["error: " + _short(case.error, 40)] + [""] * (len(names) - 1)
    cost = f"${case.cost_usd:.4f}" if case.cost_usd is not None else "-"
    return [*cells, f"{case.duration:.2f}s", cost]


def _cell(value: Any) -> str:
    if isinstance(value, bool):
        return "✔" if value else "✗"
    if isinstance(value, float):
        return f"{value:.3f}"
    return _short(str(value), 16)


def _percent_or_number(name: str, averages: dict[str, float], report: EvalReport) -> str:
    if name not in averages:
        return ""
    kinds = {c.scores[name].kind for c in report.cases if name in c.scores}
    value = averages[name]
    return f"{value:.1%}" if kinds == {"assertion"} else f"{value:.3f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _short(text: str, width: int = NAME_WIDTH) -> str:
    text = " ".join(terminal_safe(text).split())  # a dataset's or a model's text: no escapes
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(header), "  ".join("-" * w for w in widths), *map(line, rows)]
