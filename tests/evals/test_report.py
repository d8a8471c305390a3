"""The report: resumed after a crash from the results store, scored again without the model,
saved and read back (versioned), shown as text and as a DataFrame; and the comparison of two
reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains, EqualsExpected

from jupyter_agents import Agent, UserError
from jupyter_agents.evals import EvalReport, aevaluate, compare, scorer
from jupyter_agents.testing import ScriptedModel, text

from .agents import answering, model_of

WORDS = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel"]


def words_dataset() -> Dataset[str, str, Any]:
    return Dataset[str, str, Any](
        name="shout",
        cases=[Case(name=w, inputs=w, expected_output=w.upper()) for w in WORDS],
        evaluators=[EqualsExpected()],
    )


class Crash(BaseException):
    """The process dying mid-batch (not an error a row could catch)."""


async def test_evaluate_again_after_a_crash_runs_only_the_unfinished_cases(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.sqlite"
    asked: list[str] = []

    def crashing(prompt: str) -> str:
        if len(asked) == 3:
            raise Crash
        asked.append(prompt)
        return prompt.upper()

    agent = answering("shouter", crashing)
    with pytest.raises(Crash):
        await aevaluate(agent, words_dataset(), concurrency=1, cache=store, progress=None)
    assert asked == WORDS[:3]

    asked_again: list[str] = []

    def shout(prompt: str) -> str:
        asked_again.append(prompt)
        return prompt.upper()

    agent = answering("shouter", shout)
    report = await aevaluate(agent, words_dataset(), concurrency=1, cache=store, progress=None)
    assert asked_again == WORDS[3:]  # the three finished cases came from the store
    assert report.averages() == {"EqualsExpected": 1.0} and not report.failures
    assert report.store_path == str(store.resolve()) and report.batch_id
    assert [c.key for c in report.cases] == [str(i) for i in range(len(WORDS))]


async def test_rescore_never_calls_the_model(tmp_path: Path) -> None:
    agent = answering("shouter", lambda p: p.upper() if p != "fig" else "FIG!")
    report = await aevaluate(agent, words_dataset(), cache=False, progress=None)
    model = model_of(agent)
    calls = len(model.requests)
    model.respond_with = lambda request: (_ for _ in ()).throw(AssertionError("model called"))

    exclaims = scorer(lambda case, run: "!" in str(run.output), name="exclaims")
    rescored = report.rescore([EqualsExpected(), exclaims, Contains(value="A")])
    assert len(model.requests) == calls
    assert rescored.averages()["exclaims"] == pytest.approx(1 / len(WORDS))
    assert rescored.case("fig").scores["EqualsExpected"].value is False
    assert set(report.cases[0].scores) == {"EqualsExpected"}  # the original is unchanged

    path = report.to_json(tmp_path / "report.json")
    again = EvalReport.from_json(path).rescore([exclaims])
    assert len(model.requests) == calls
    assert [c.scores["exclaims"].value for c in again.cases] == [w == "fig" for w in WORDS]


async def test_a_report_round_trips_through_json(tmp_path: Path) -> None:
    agent = answering("shouter", lambda p: p.upper() if p != "fig" else "nope")
    report = await aevaluate(
        agent, words_dataset(), scorers=[Contains(value="A")], cache=False, progress=None
    )
    path = report.to_json(tmp_path / "report.json")
    data = json.loads(path.read_text())
    assert data["format"] == "jupyter_agents.eval_report" and data["version"] == 1
    back = EvalReport.from_json(path)
    assert back.to_dict() == report.to_dict()
    assert back.averages() == report.averages()

    path.write_text(json.dumps({**data, "version": 99}))
    with pytest.raises(UserError, match="version 99"):
        EvalReport.from_json(path)
    path.write_text("{not json")
    with pytest.raises(UserError, match="not JSON"):
        EvalReport.from_json(path)
    with pytest.raises(UserError, match="Cannot read"):
        EvalReport.from_json(tmp_path / "missing.json")


async def test_the_text_shows_failures_first_and_the_averages() -> None:
    agent = answering("shouter", lambda p: p.upper() if p not in ("fig", "cherry") else "?")
    report = await aevaluate(agent, words_dataset(), cache=False, progress=None)
    lines = str(report).splitlines()
    assert lines[0] == "Evaluation 'shout': 8 cases, 6 passed, 2 failing"
    assert lines[3].startswith("cherry") and lines[4].startswith("fig") and "✗" in lines[3]
    assert lines[-1].split()[:2] == ["averages", "75.0%"]
    assert [c.name for c in report.failures_first()][:2] == ["cherry", "fig"]
    frame = report.to_pandas()
    assert list(frame.index) == WORDS and frame.loc["fig", "EqualsExpected"] == False  # noqa: E712
    assert frame.loc["fig", "output"] == "?" and frame.loc["apple", "passed"]


async def test_a_failed_run_is_an_error_that_counts_as_failing() -> None:
    def flaky(request: Any) -> Any:
        if request.user_text == "fig":
            raise RuntimeError("provider down")
        return [text(request.user_text.upper())]

    agent = Agent(name="flaky", model=ScriptedModel(respond=flaky))
    report = await aevaluate(agent, words_dataset(), cache=False, progress=None)
    fig = report.case("fig")
    assert fig.error is not None and "provider down" in fig.error and not fig.scores
    assert report.averages() == {"EqualsExpected": pytest.approx(7 / 8)}
    assert "error: " in str(report).splitlines()[3]


async def test_compare_finds_the_cases_that_got_better_and_worse() -> None:
    old = answering("v1", lambda p: p.upper() if p not in ("fig", "grape") else "?")
    new = answering("v2", lambda p: p.upper() if p not in ("apple", "banana", "cherry") else "?")
    length = scorer(lambda case, run: min(len(str(run.output)) / 5, 1.0), name="length")
    a = await aevaluate(old, words_dataset(), scorers=[length], cache=False, progress=None)
    b = await aevaluate(new, words_dataset(), scorers=[length], cache=False, progress=None)
    comparison = compare(a, b)
    (equals,) = [d for d in comparison.scorers if d.name == "EqualsExpected"]
    assert (equals.a, equals.b) == (0.75, 0.625) and equals.delta == pytest.approx(-0.125)
    worse = {(c.case, c.scorer) for c in comparison.worse}
    better = {(c.case, c.scorer) for c in comparison.better}
    assert {c for c, s in worse if s == "EqualsExpected"} == {"apple", "banana", "cherry"}
    assert {c for c, s in better if s == "EqualsExpected"} == {"fig", "grape"}
    assert ("apple", "length") in worse and ("grape", "length") in better
    assert not [c for c in comparison.changes if c.case in ("damson", "elder", "hazel")]
    text_lines = str(comparison).splitlines()
    assert text_lines[0] == "Comparison 'shout' (A) -> 'shout' (B)"
    assert any(line.startswith("EqualsExpected") and "-0.125" in line for line in text_lines)
    assert "apple: EqualsExpected ✔ -> ✗" in str(comparison)
    frame = comparison.to_pandas()
    assert len(frame) == len(comparison.changes)
    assert comparison.to_pandas(by="scorer").loc["EqualsExpected", "delta"] == pytest.approx(-0.125)


async def test_text_forms_drop_terminal_escapes_from_untrusted_text() -> None:
    """Case names, labels and errors come from datasets and models: printed to a terminal (a
    CI log), they must not move the cursor, clear the screen or retitle the window."""
    from jupyter_agents.evals import CaseResult, CaseRun, Score, check_gate

    hostile = "x\x1b[2J\x1b]0;pwned\x07\x1b[1;1H\x08y"
    cases = [
        CaseResult(
            key="0",
            name=f"case {hostile}",
            inputs="q",
            run=CaseRun(output="a"),
            scores={"label": Score("label", hostile), "ok": Score("ok", True, reason=hostile)},
        ),
        CaseResult(key="1", name="broken", inputs="q", run=CaseRun(error=f"boom {hostile}")),
    ]
    report = EvalReport(name="r", cases=cases)
    worse = EvalReport(
        name="w",
        cases=[
            CaseResult(key="0", name=f"case {hostile}", inputs="q", run=CaseRun(output="b"),
                       scores={"ok": Score("ok", False, reason=hostile)}),
            cases[1],
        ],
    )  # fmt: skip
    scorer_named = EvalReport(
        name="s",
        cases=[CaseResult(key="0", name="c", inputs="q", run=CaseRun(output="a"),
                          scores={hostile: Score(hostile, True)})],
    )  # fmt: skip
    texts = [
        str(report),
        str(compare(report, worse)),
        *map(str, check_gate(scorer_named, scorer_named, 0.0)),
    ]
    for shown in texts:
        assert not any(ch in shown for ch in "\x1b\x07\x08"), repr(shown)
    assert "case xy" in str(report)  # whole escape sequences dropped, the text kept
