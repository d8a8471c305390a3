"""The same dataset scores the same through ``evaluate`` (an agent, each case a batch row)
as through pydantic-evals' own ``Dataset.evaluate`` with a task that answers what the agent
answers: the datasets of pydantic-evals' quick start, as data, in each form evaluate takes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import (
    Contains,
    EqualsExpected,
    Evaluator,
    EvaluatorContext,
    IsInstance,
    MaxDuration,
)
from pydantic_evals.reporting import EvaluationReport

from jupyter_agents.evals import EvalReport, aevaluate

from .agents import answering


@dataclass
class MyEvaluator(Evaluator[str, str]):
    """The custom evaluator of pydantic-evals' first quick start."""

    def evaluate(self, ctx: EvaluatorContext[str, str]) -> float:
        if ctx.output == ctx.expected_output:
            return 1.0
        expected = ctx.expected_output
        if (
            isinstance(ctx.output, str)
            and expected is not None
            and expected.lower() in ctx.output.lower()
        ):
            return 0.8
        return 0.0


def uppercase_text(text: str) -> str:
    """The quick start's task (wrong on purpose for one added case, so something fails)."""
    return "HELLO?" if text == "hello?" else text.upper()


def guess_city(question: str) -> str:
    """The first quick start's task, with two more answers to score 0.8 and 0."""
    return {"Where is the Louvre?": "It is in Paris, France", "Capital of Peru?": "Quito"}.get(
        question, "Paris"
    )


def uppercase_dataset() -> Dataset[str, str, Any]:
    return Dataset[str, str, Any](
        name="uppercase",
        cases=[
            Case(name="uppercase_basic", inputs="hello world", expected_output="HELLO WORLD"),
            Case(name="uppercase_with_numbers", inputs="hello 123", expected_output="HELLO 123"),
            Case(name="lowercase_answer", inputs="hello?", expected_output="HELLO? "),
            Case(inputs="bye", expected_output="BYE", evaluators=(MaxDuration(seconds=60),)),
        ],
        evaluators=[EqualsExpected(), Contains(value="HELLO", case_sensitive=True)],
    )


def city_dataset() -> Dataset[str, str, Any]:
    return Dataset(
        name="cities",
        cases=[
            Case(
                name="simple_case",
                inputs="What is the capital of France?",
                expected_output="Paris",
                metadata={"difficulty": "easy"},
            ),
            Case(name="louvre", inputs="Where is the Louvre?", expected_output="Paris"),
            Case(name="peru", inputs="Capital of Peru?", expected_output="Lima"),
        ],
        evaluators=[IsInstance(type_name="str"), MyEvaluator()],
    )


def same_scores(ours: EvalReport, theirs: EvaluationReport[Any, Any, Any]) -> None:
    assert not theirs.failures
    assert [c.name for c in ours.cases] == [c.name for c in theirs.cases]
    for mine, case in zip(ours.cases, theirs.cases, strict=True):
        expected = {**case.assertions, **case.scores, **case.labels}
        assert mine.output == case.output
        assert {n: (s.value, s.reason) for n, s in mine.scores.items()} == {
            n: (r.value, r.reason) for n, r in expected.items()
        }
        assert [s.source for s in mine.scores.values()] == [
            r.source.name for r in expected.values()
        ]
    averages = theirs.averages()
    assert averages is not None
    mine_avg = ours.averages()
    assert {n: mine_avg[n] for n in averages.scores} == pytest.approx(averages.scores)
    assertions = [s.value for c in ours.cases for s in c.scores.values() if s.kind == "assertion"]
    assert all(isinstance(v, bool) for v in assertions)
    assert sum(v is True for v in assertions) / len(assertions) == pytest.approx(
        averages.assertions
    )


@pytest.mark.parametrize(
    ("dataset", "task"), [(uppercase_dataset, uppercase_text), (city_dataset, guess_city)]
)
async def test_evaluate_scores_as_dataset_evaluate_does(dataset: Any, task: Any) -> None:
    theirs = await dataset().evaluate(task, progress=False)
    ours = await aevaluate(answering("agent", task), dataset(), cache=False, progress=None)
    same_scores(ours, theirs)
    values = {s.value for c in ours.cases for s in c.scores.values()}
    assert values - {True}  # each dataset fails or scores low somewhere


async def test_a_yaml_file_and_a_dataframe_score_the_same(tmp_path: Path) -> None:
    dataset = uppercase_dataset()
    theirs = await dataset.evaluate(uppercase_text, progress=False)
    path = tmp_path / "uppercase.yaml"
    dataset.to_file(path)
    agent = answering("agent", uppercase_text)
    from_file = await aevaluate(agent, path, cache=False, progress=None)
    same_scores(from_file, theirs)
    assert from_file.name == "uppercase"

    frame = pd.DataFrame(
        {
            "name": [c.name or f"Case {i}" for i, c in enumerate(dataset.cases, 1)],
            "input": [c.inputs for c in dataset.cases],
            "expected": [c.expected_output for c in dataset.cases],
        }
    )
    scorers = [EqualsExpected(), Contains(value="HELLO", case_sensitive=True)]
    from_frame = await aevaluate(agent, frame, scorers=scorers, cache=False, progress=None)
    expected = {c.name: c.assertions["EqualsExpected"].value for c in theirs.cases}
    assert {c.name: c.scores["EqualsExpected"].value for c in from_frame.cases} == expected


async def test_a_non_string_input_is_sent_as_json() -> None:
    dataset = Dataset(
        name="sums", cases=[Case(name="two", inputs={"a": 1, "b": 2}, expected_output="3")]
    )
    seen: list[str] = []

    def add(prompt: str) -> str:
        seen.append(prompt)
        return "3"

    report = await aevaluate(
        answering("adder", add), dataset, scorers=[EqualsExpected()], cache=False, progress=None
    )
    assert seen == ['{"a": 1, "b": 2}']
    assert report.cases[0].passed and report.cases[0].inputs == {"a": 1, "b": 2}
