"""The report widget's state: made from real reports, and exactly the fields the widget's
TypeScript declaration (``labextension/src/evalreport/state.d.ts``) names, so renaming a field
on one side only fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_evals", reason="the evals extra: pip install 'jupyter_agents[evals]'")
from pydantic_evals.evaluators import EqualsExpected

from jupyter_agents import Agent
from jupyter_agents.evals import compare, evaluate
from jupyter_agents.notebook.view import eval_view
from jupyter_agents.testing import ScriptedModel, text

DECLARATION = Path(__file__).resolve().parents[2] / "labextension/src/evalreport/state.d.ts"


def declared() -> dict[str, set[str]]:
    """Each interface of the declaration: its field names."""
    source = re.sub(r"/\*\*.*?\*/|//[^\n]*", "", DECLARATION.read_text(), flags=re.S)
    return {
        name: set(re.findall(r"^\s*(\w+)\s*:", body, flags=re.M))
        for name, body in re.findall(r"interface (\w+) \{(.*?)\n\}", source, flags=re.S)
    }


def report(answers: list[str], name: str, tmp_path: Path) -> Any:
    frame = {"input": ["a", "b", "c"], "expected": ["A", "B", "C"]}
    import pandas as pd

    agent = Agent(name="t", model=ScriptedModel([text(a) for a in answers]))
    return evaluate(
        agent,
        pd.DataFrame(frame, index=["x", "y", "z"]),
        scorers=[EqualsExpected()],
        concurrency=1,
        name=name,
        cache=tmp_path / f"{name}.sqlite",
        progress=None,
    )


def check(state: dict[str, Any], interfaces: dict[str, set[str]]) -> None:
    assert set(state) == interfaces["ReportState"]
    for scorer in state["scorers"]:
        assert set(scorer) == interfaces["ScorerRow"]
    for case in state["cases"]:
        assert set(case) == interfaces["CaseRow"]
        for cell in [*case["scores"].values(), *case["scores_b"].values()]:
            assert set(cell) == interfaces["ScoreCell"]
        for call in case["tools"]:
            assert set(call) == interfaces["ToolRow"]


def test_report_and_comparison_states_have_the_declared_fields(tmp_path: Path) -> None:
    interfaces = declared()
    assert {"ReportState", "ScorerRow", "CaseRow", "ScoreCell", "ToolRow"} <= set(interfaces)
    a = report(["A", "B", "C"], "v1", tmp_path)
    b = report(["A", "wrong", "C"], "v2", tmp_path)
    state = eval_view.report_state(b)
    check(state, interfaces)
    assert state["cases"][0]["key"] == b.case("y").key  # the failure first
    assert state["scorers"] == [
        {"name": "EqualsExpected", "kind": "assertion", "a": 2 / 3, "b": None, "delta": None}
    ]
    versus = eval_view.comparison_state(compare(a, b))
    check(versus, interfaces)
    assert [c["change"] for c in versus["cases"]] == ["worse", "same", "same"]
    assert versus["summary"] == "3 cases in both · 1 worse · 0 better"


def test_long_texts_and_many_cases_are_cut_for_the_widget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eval_view, "MAX_CASES", 2)
    r = report(["A" * 10_000, "B", "C"], "long", tmp_path)
    state = eval_view.report_state(r)
    assert len(state["cases"]) == 2 and state["total"] == 3
    assert len(state["cases"][0]["output"]) == eval_view.MAX_TEXT
    assert state["cases"][0]["output"].endswith("…")
