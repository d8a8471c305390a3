"""The evaluation report in a notebook: an anywidget with the averages per scorer and one row
per case (failing ones first; a click opens the case: input, expected and actual output, every
score with its reason, the run's tool calls). ``compare(a, b)`` shows the same table with A and
B side by side, the cases that got worse first.

The widget's state is plain JSON (``labextension/src/evalreport/state.d.ts`` describes it),
made here from an ``EvalReport`` or a ``Comparison``; its view is
``labextension/src/evalreport/index.js``, which puts every text in text nodes only. Its output
also holds the report's saved form (``saved_forms.py``): the lab extension draws the report
from it with the same code when the widget's model is gone (a notebook reopened without its
kernel), and other frontends show its HTML, Markdown or text table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from ..saved import saved_forms

if TYPE_CHECKING:
    from ...evals import Comparison, EvalReport
    from ...evals.report import CaseResult

__all__ = ["EvalReportWidget", "comparison_state", "report_state", "show"]

STATIC = Path(__file__).parents[1] / "static"

MAX_CASES = 2000
"""Cases sent to the widget (the rest are counted; ``to_pandas()`` has them all)."""
MAX_TEXT = 4000
"""Characters of one input, output or argument text sent to the widget."""


class EvalReportWidget(anywidget.AnyWidget):
    """The report (or comparison) view; ``report`` is its whole state."""

    _esm = STATIC / "eval_report.js"
    _css = STATIC / "eval_report.css"

    report: traitlets.Dict[str, Any] = traitlets.Dict().tag(sync=True)


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _cell(score: Any) -> dict[str, Any]:
    value, kind = score.value, score.kind
    if kind == "assertion":
        shown, ok = ("✓" if value else "✗"), bool(value)
    elif kind == "score":
        shown, ok = f"{float(value):.3g}", None
    else:
        shown, ok = _text(value), None
    return {"shown": shown, "ok": ok, "reason": _text(score.reason or "")}


def _kinds(cases: list[CaseResult]) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for case in cases:
        for name, score in case.scores.items():
            kinds.setdefault(name, score.kind)
    return kinds


def _status(case: CaseResult) -> str:
    return "error" if case.error is not None else "pass" if case.passed else "fail"


def _case_row(case: CaseResult) -> dict[str, Any]:
    tools = [
        {
            "name": _text(call.get("name")),
            "arguments": _text(call.get("arguments")),
            "status": _text(call.get("status") or ""),
        }
        for call in case.run.tool_calls or ()
    ]
    return {
        "key": case.key,
        "name": _text(case.name),
        "status": _status(case),
        "change": "",
        "input": _text(case.inputs),
        "expected": _text(case.expected_output),
        "output": _text(case.output),
        "scores": {name: _cell(score) for name, score in case.scores.items()},
        "scores_b": {},
        "output_b": "",
        "seconds": round(case.duration, 3),
        "cost": case.cost_usd,
        "error": _text(case.error) if case.error else "",
        "tools": tools,
    }


def _summary(report: EvalReport) -> str:
    cases = report.cases
    passed = sum(case.passed for case in cases)
    parts = [f"{len(cases)} cases", f"{passed} passed"]
    errors = len(report.errors)
    if errors:
        parts.append(f"{errors} without output")
    cost = report.cost_usd
    parts.append("cost unknown" if cost is None else f"${cost:.4f}")
    return " · ".join(parts)


def report_state(report: EvalReport) -> dict[str, Any]:
    """The widget state of ``report``: failing cases first."""
    kinds = _kinds(report.cases)
    averages = report.averages()
    scorers = [
        {"name": name, "kind": kinds[name], "a": averages.get(name), "b": None, "delta": None}
        for name in kinds
    ]
    ordered = report.failures_first()
    return {
        "mode": "report",
        "title": report.name,
        "summary": _summary(report),
        "scorers": scorers,
        "cases": [_case_row(case) for case in ordered[:MAX_CASES]],
        "total": len(ordered),
    }


_ORDER = {"worse": 0, "changed": 1, "better": 2, "same": 3}


def comparison_state(comparison: Comparison) -> dict[str, Any]:
    """The widget state of ``comparison``: the cases that got worse first, then changed, then
    better, then the same; each with A's and B's scores."""
    a, b = comparison.report_a, comparison.report_b
    if a is None or b is None:
        raise ValueError("This comparison keeps no reports; make it with compare(a, b).")
    kinds = _kinds(a.cases) | _kinds(b.cases)
    scorers = [
        {"name": s.name, "kind": kinds.get(s.name, "score"), "a": s.a, "b": s.b, "delta": s.delta}
        for s in comparison.scorers
    ]
    directions: dict[str, set[str]] = {}
    for one in comparison.changes:
        directions.setdefault(one.case, set()).add(one.direction)
    b_cases = {case.name: case for case in b.cases}
    rows = []
    for case in a.cases:
        other = b_cases.get(case.name)
        if other is None:
            continue
        seen = directions.get(case.name, set())
        change = next((d for d in ("worse", "changed", "better") if d in seen), "same")
        row = _case_row(case)
        row |= {
            "change": change,
            "status": _status(other),
            "scores_b": {name: _cell(score) for name, score in other.scores.items()},
            "output_b": _text(other.output),
            "seconds": round(other.duration, 3),
            "cost": other.cost_usd,
            "error": _text(other.error) if other.error else "",
            "tools": _case_row(other)["tools"],
        }
        rows.append(row)
    rows.sort(key=lambda row: _ORDER[row["change"]])
    worse = sum(row["change"] == "worse" for row in rows)
    better = sum(row["change"] == "better" for row in rows)
    summary = f"{len(rows)} cases in both · {worse} worse · {better} better"
    return {
        "mode": "compare",
        "title": f"{comparison.a_name} → {comparison.b_name}",
        "summary": summary,
        "scorers": scorers,
        "cases": rows[:MAX_CASES],
        "total": len(rows),
    }


class _Bundle:
    """The widget with the report's saved form (``saved_forms.py``): a document the lab
    extension draws when the widget's model is gone, HTML, Markdown and the text table."""

    def __init__(self, widget: EvalReportWidget, text: str) -> None:
        self.widget, self.text = widget, text

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        return saved_forms.eval_bundle(self.widget.report, self.text, self.widget.model_id)


def show(value: Any) -> None:
    """Display an ``EvalReport`` or a ``Comparison`` as the widget."""
    from IPython.display import display

    from ...evals import Comparison

    state = comparison_state(value) if isinstance(value, Comparison) else report_state(value)
    display(_Bundle(EvalReportWidget(report=state), str(value)))
