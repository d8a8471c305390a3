"""The saved forms of an evaluation report, a comparison and a batch's progress
(``saved_forms.py``): each widget's output holds its view, a versioned, bounded document of what
it shows, and HTML, Markdown and text; the batch's form follows the batch."""

from __future__ import annotations

import base64
import gzip
import json
import re
import typing
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest

from jupyter_agents.notebook.saved import saved_forms
from jupyter_agents.notebook.view import batch_view
from jupyter_agents.runtime.batch.result import RowResult, RowStatus

STATE_DECLARATION = Path(__file__).resolve().parents[2] / "labextension/src/savedforms/state.d.ts"
TS_DOCUMENT = Path(__file__).resolve().parents[2] / "labextension/src/savedforms/document.ts"


def declared() -> dict[str, set[str]]:
    """Each interface of the batch state's declaration: its field names."""
    source = re.sub(r"/\*\*.*?\*/|//[^\n]*", "", STATE_DECLARATION.read_text(), flags=re.S)
    return {
        name: set(re.findall(r"^\s*(\w+)\s*:", body, flags=re.M))
        for name, body in re.findall(r"interface (\w+) \{(.*?)\n\}", source, flags=re.S)
    }


def packed(raw: bytes, version: int = 1) -> dict[str, Any]:
    data = base64.b64encode(gzip.compress(raw, mtime=0)).decode()
    return {"version": version, "encoding": "gzip+base64", "data": data}


def row(
    label: str, status: RowStatus = "ok", output: Any = "billing", error: str | None = None
) -> Any:
    return RowResult(key=label, label=label, status=status, output=output, error=error)


def finished_view(rows: list[Any], stopped: bool = False) -> tuple[Any, list[dict[str, Any]]]:
    """A progress view that ran ``rows``; the bundles it showed (first, updates...)."""
    pytest.importorskip("ipywidgets")
    view = batch_view.BatchView(len(rows), every=0)
    shown: list[dict[str, Any]] = []
    view._handle = NS(update=lambda bundle: shown.append(bundle._repr_mimebundle_()))
    shown.append(batch_view._Bundle(view)._repr_mimebundle_())
    view.start(len(rows), [])
    for index, one in enumerate(rows):
        view.row_done(index, one)
    view.finish(1.5, stopped)
    return view, shown


# -- the document --------------------------------------------------------------------------


def test_a_document_round_trips_and_is_deterministic() -> None:
    state = {"title": "é \u2028 </script>", "cases": [{"name": "x", "n": 1}], "total": 1}
    first, second = saved_forms.encode(state), saved_forms.encode(state)
    assert first == second
    assert first is not None and first["version"] == 1 and first["encoding"] == "gzip+base64"
    assert json.loads(json.dumps(first)) == first
    assert saved_forms.decode(first) == state


def test_the_python_and_lab_readers_share_the_bound_and_versions() -> None:
    source = TS_DOCUMENT.read_text()
    assert f"'{saved_forms.EVAL_MIME_TYPE}'" in source
    assert f"'{saved_forms.BATCH_MIME_TYPE}'" in source
    assert "MAX_DECODED_BYTES = 8 * 1024 * 1024" in source
    assert saved_forms.MAX_DECODED_BYTES == 8 * 1024 * 1024
    assert f"READABLE_VERSIONS = {list(saved_forms.READABLE)}" in source


@pytest.mark.parametrize(
    ("value", "why"),
    [
        (None, "not a jupyter-agents saved form"),
        ({"version": 2, "encoding": "gzip+base64", "data": ""}, "not a jupyter-agents"),
        ({"version": 1, "encoding": "zip", "data": ""}, "encoding"),
        ({"version": 1, "encoding": "gzip+base64", "data": 5}, "encoding"),
        ({"version": 1, "encoding": "gzip+base64", "data": "not base64!"}, "base64"),
        (packed(b"[1, 2]"), "JSON object"),
        (packed(b" " * (saved_forms.MAX_DECODED_BYTES + 1)), "inflates to more than"),
    ],
)
def test_anything_else_is_refused(value: Any, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        saved_forms.decode(value)


def test_nothing_larger_than_the_bound_is_written() -> None:
    assert saved_forms.encode({"text": "x" * saved_forms.MAX_DECODED_BYTES}) is None


def big_report(cases: int, text_chars: int) -> dict[str, Any]:
    cell = {"shown": "✗", "ok": False, "reason": "r" * text_chars}
    return {
        "mode": "report",
        "title": "big",
        "summary": f"{cases} cases",
        "scorers": [{"name": "S", "kind": "assertion", "a": 0.5, "b": None, "delta": None}],
        "cases": [
            {
                "key": str(i),
                "name": f"case {i}",
                "status": "fail",
                "change": "",
                "input": "i" * text_chars,
                "expected": "e",
                "output": "o" * text_chars,
                "scores": {"S": cell},
                "scores_b": {},
                "output_b": "",
                "seconds": 0.1,
                "cost": None,
                "error": "",
                "tools": [{"name": "t", "arguments": "a" * text_chars, "status": "done"}],
            }
            for i in range(cases)
        ],
        "total": cases,
    }


def test_a_report_too_large_is_saved_with_short_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(saved_forms, "MAX_DECODED_BYTES", 200_000)
    state = big_report(20, 3_000)  # 20 cases x 12,000 characters: too large whole
    assert saved_forms.encode(state) is None
    document = saved_forms.fit_report(state)
    assert document is not None
    saved = saved_forms.decode(document)
    assert len(saved["cases"]) == 20 and saved["total"] == 20
    case = saved["cases"][0]
    assert len(case["input"]) == saved_forms.SHORT_TEXT and case["input"].endswith("…")
    assert len(case["scores"]["S"]["reason"]) == saved_forms.SHORT_TEXT
    assert len(case["tools"][0]["arguments"]) == saved_forms.SHORT_TEXT
    assert case["expected"] == "e" and case["seconds"] == 0.1  # the rest as it was


def test_a_report_with_too_many_cases_keeps_the_first_and_counts_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(saved_forms, "MAX_DECODED_BYTES", 200_000)
    state = big_report(1_000, 400)  # failing first: the first cases are the ones to keep
    document = saved_forms.fit_report(state)
    assert document is not None
    saved = saved_forms.decode(document)
    assert 0 < len(saved["cases"]) < 1_000 and saved["total"] == 1_000
    assert [c["key"] for c in saved["cases"]] == [str(i) for i in range(len(saved["cases"]))]
    assert len(json.dumps(saved).encode()) <= 200_000


# -- the evaluation report and the comparison ----------------------------------------------


def evaluated(tmp_path: Path) -> tuple[Any, Any]:
    pytest.importorskip("pydantic_evals", reason="the evals extra")
    import pandas as pd
    from pydantic_evals.evaluators import EqualsExpected

    from jupyter_agents import Agent
    from jupyter_agents.evals import evaluate
    from jupyter_agents.testing import ScriptedModel, text

    frame = pd.DataFrame({"input": ["a", "b"], "expected": ["A", "B"]}, index=["x", "y"])

    def run(name: str, answers: list[str]) -> Any:
        agent = Agent(name=name, model=ScriptedModel([text(a) for a in answers]))
        return evaluate(
            agent,
            frame,
            scorers=[EqualsExpected()],
            concurrency=1,
            name=name,
            cache=tmp_path / f"{name}.sqlite",
            progress=None,
        )

    return run("v1", ["A", "B"]), run("v2", ["A", "wrong"])


def test_the_report_and_the_comparison_save_what_their_widget_shows(tmp_path: Path) -> None:
    pytest.importorskip("anywidget")
    from jupyter_agents.evals import compare
    from jupyter_agents.notebook.view import eval_view

    a, b = evaluated(tmp_path)
    for value, state in [
        (b, eval_view.report_state(b)),
        (compare(a, b), eval_view.comparison_state(compare(a, b))),
    ]:
        widget = eval_view.EvalReportWidget(report=state)
        bundle = eval_view._Bundle(widget, str(value))._repr_mimebundle_()
        assert bundle[saved_forms.WIDGET_VIEW_MIME_TYPE]["model_id"] == widget.model_id
        assert saved_forms.decode(bundle[saved_forms.EVAL_MIME_TYPE]) == state
        assert bundle["text/plain"] == str(value)  # the text table, as before
        assert state["title"] in bundle["text/html"]
        assert bundle["text/markdown"].count("\n") == 1  # one inert HTML block
        widget.close()
    html = saved_forms.report_html(eval_view.comparison_state(compare(a, b)))
    assert "<th>Change</th>" in html and "✓ → ✗" in html and "-50.0 pt" in html


def test_the_html_of_a_large_report_shows_the_first_cases_and_says_so() -> None:
    html = saved_forms.report_html(big_report(120, 10))
    assert html.count("<tr>") == 3 + saved_forms.HTML_CASES  # two heads, one scorer, the cases
    assert f"Showing {saved_forms.HTML_CASES} of 120 cases: report.to_pandas() has all." in html


# -- the batch's progress ------------------------------------------------------------------


def test_the_batch_state_has_the_declared_fields() -> None:
    interfaces = declared()
    for name in ("BatchState", "BatchRow", "BatchError"):
        hints = typing.get_type_hints(getattr(saved_forms, name))
        assert set(hints) == interfaces[name], name
    view, _ = finished_view([row("a"), row("b", "failed", None, "boom")])
    state = view.saved_state()
    assert set(state) == interfaces["BatchState"]
    assert all(set(r) == interfaces["BatchRow"] for r in state["latest"])
    assert all(set(e) == interfaces["BatchError"] for e in state["errors"])


def test_the_saved_progress_follows_the_batch() -> None:
    view, shown = finished_view(
        [row("T-1"), row("T-2", "failed", None, "RateLimit: slow down"), row("T-3")]
    )
    first, last = (
        saved_forms.decode(b[saved_forms.BATCH_MIME_TYPE]) for b in (shown[0], shown[-1])
    )
    assert first["outcome"] == "running" and first["finished"] == 0
    assert last["outcome"] == "failed" and last["finished"] == last["total"] == 3
    assert [r["label"] for r in last["latest"]] == ["T-3", "T-2", "T-1"]
    assert last["latest"][1] == {"label": "T-2", "status": "failed", "text": "RateLimit: slow down"}
    assert last["errors"] == [{"label": "T-2", "text": "RateLimit: slow down"}]
    assert last["line"] in view.text and "3/3 rows" in last["line"]
    assert shown[-1]["text/plain"] == view.text
    assert "RateLimit: slow down" in shown[-1]["text/html"]
    model = shown[-1][saved_forms.WIDGET_VIEW_MIME_TYPE]["model_id"]
    assert model == view.widget.model_id


@pytest.mark.parametrize(("stopped", "outcome"), [(True, "stopped"), (False, "done")])
def test_the_outcome_is_saved(stopped: bool, outcome: str) -> None:
    _, shown = finished_view([row("a")], stopped=stopped)
    assert saved_forms.decode(shown[-1][saved_forms.BATCH_MIME_TYPE])["outcome"] == outcome


def test_a_running_batch_saves_its_progress_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch_view, "SAVED_EVERY", 0.0)
    _, shown = finished_view([row("a"), row("b")])
    running = [saved_forms.decode(b[saved_forms.BATCH_MIME_TYPE]) for b in shown[1:-1]]
    assert [r["finished"] for r in running] == [0, 1, 2]  # start, each row (then the end)
    assert all(r["outcome"] == "running" for r in running)
    monkeypatch.setattr(batch_view, "SAVED_EVERY", 3600.0)
    _, shown = finished_view([row("a"), row("b")])
    assert len(shown) == 2  # shown at start, updated at the end only
