"""Our scorers pass and fail where they should: each check of ``ToolTrajectory`` as a table
over tool-call sequences, then every scorer end to end on a real run of a scripted agent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_evals import Case
from pydantic_evals.evaluators import EqualsExpected, EvaluationReason

from jupyter_agents import Agent, Usage, UserError, tool
from jupyter_agents.evals import (
    CaseRun,
    MaxCost,
    MaxTokens,
    ToolTrajectory,
    ValidOutput,
    aevaluate,
    case_run,
    scorer,
)
from jupyter_agents.evals._scoring import context_for, score_case
from jupyter_agents.testing import ScriptedModel, text, tool_call

from .agents import answering

CASE = Case(name="c", inputs="q", expected_output="a")


def run_with(*names: str) -> CaseRun:
    return CaseRun(output="a", tool_calls=[{"name": n, "arguments": {}} for n in names])


TRAJECTORIES = [
    # tools called, the check, its expected verdict
    (("search", "answer"), ToolTrajectory(called_before=("search", "answer")), True),
    (("answer", "search"), ToolTrajectory(called_before=("search", "answer")), False),
    (("search",), ToolTrajectory(called_before=("search", "answer")), False),
    (("a", "b", "a", "c"), ToolTrajectory(called_before=("a", "b", "c")), True),
    (("b", "a", "c"), ToolTrajectory(called_before=("a", "b", "c")), False),
    ((), ToolTrajectory(never=("delete",)), True),
    (("read", "delete"), ToolTrajectory(never=("delete", "drop")), False),
    (("a", "a", "a"), ToolTrajectory(max_calls=3), True),
    (("a", "a", "a", "a"), ToolTrajectory(max_calls=3), False),
    ((), ToolTrajectory(max_calls=0), True),
    (("search", "read"), ToolTrajectory(must_call=("search", "read")), True),
    (("search",), ToolTrajectory(must_call=("search", "read")), False),
]


@pytest.mark.parametrize(("names", "check", "verdict"), TRAJECTORIES)
async def test_tool_trajectory(
    names: tuple[str, ...], check: ToolTrajectory, verdict: bool
) -> None:
    scored = await score_case(CASE, run_with(*names), [check])
    (result,) = scored.scores.values()
    assert result.value is verdict and result.reason


def test_a_trajectory_with_several_checks_names_each_result() -> None:
    check = ToolTrajectory(called_before=("a", "b"), never=("z",), max_calls=1, must_call=("a",))
    results = check.evaluate(context_for(CASE, run_with("a", "b"), "a"))
    assert isinstance(results, dict)
    assert {k: v.value for k, v in results.items() if isinstance(v, EvaluationReason)} == {
        "called_before": True,
        "never": True,
        "max_calls": False,
        "must_call": True,
    }


@pytest.mark.parametrize("arguments", [{}, {"called_before": ("only",)}, {"max_calls": -1}])
def test_a_trajectory_that_checks_nothing_is_refused(arguments: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        ToolTrajectory(**arguments)


async def test_unknown_tool_calls_are_an_evaluator_failure_not_a_verdict() -> None:
    scored = await score_case(
        CASE, CaseRun(output="a", tool_calls=None), [ToolTrajectory(max_calls=1)]
    )
    assert not scored.scores and "not known" in scored.failures["ToolTrajectory"]


class Ticket(BaseModel):
    category: str
    urgent: bool


class Other(BaseModel):
    owner: str


LIMITS = [
    (MaxTokens(1_100), True),
    (MaxTokens(1_099), False),
    (ValidOutput(Ticket), True),
    (ValidOutput(Other), False),
]


@pytest.mark.parametrize(("check", "verdict"), LIMITS)
async def test_output_and_token_scorers_on_a_real_run(check: Any, verdict: bool) -> None:
    agent = answering(
        "triage",
        lambda _: '{"category": "billing", "urgent": true}',
        usage=Usage(input_tokens=1_000, output_tokens=100),
        output_type=Ticket,
    )
    report = await aevaluate(agent, [CASE], scorers=[check], cache=False, progress=None)
    (score,) = report.cases[0].scores.values()
    assert score.value is verdict and score.reason
    assert report.cases[0].output == {"category": "billing", "urgent": True}


async def test_max_cost_reads_the_runs_price() -> None:
    agent = answering("priced", str.upper, usage=Usage(input_tokens=1_000, output_tokens=100))
    report = await aevaluate(agent, [CASE], scorers=[], cache=False, progress=None)
    cost = report.cases[0].cost_usd
    assert cost is not None and cost > 0
    rescored = report.rescore([MaxCost(usd=cost), MaxCost(usd=cost / 2)])
    assert [s.value for s in rescored.cases[0].scores.values()] == [True, False]
    unpriced = await aevaluate(answering("free", str.upper), [CASE], cache=False, progress=None)
    (score,) = unpriced.rescore([MaxCost(usd=1)]).cases[0].scores.values()
    assert score.value is False and "no cost known" in str(score.reason)


async def test_structured_output_reaches_evaluators_as_the_agents_type() -> None:
    agent = answering(
        "triage", lambda _: '{"category": "billing", "urgent": false}', output_type=Ticket
    )
    case = Case(name="t", inputs="q", expected_output=Ticket(category="billing", urgent=False))
    report = await aevaluate(agent, [case], scorers=[EqualsExpected()], cache=False, progress=None)
    assert report.cases[0].scores["EqualsExpected"].value is True


@tool
def search(query: str) -> str:
    """Search."""
    return f"results for {query}"


@tool
def answer(text: str) -> str:
    """Answer."""
    return text


def searching_model() -> ScriptedModel:
    def respond(request: Any) -> Any:
        done = sum(1 for i in request.input if i.get("type") == "function_call_output")
        if done == 0:
            return [tool_call("search", {"query": request.user_text})]
        if done == 1:
            return [tool_call("answer", {"text": "42"})]
        return [text("42")]

    return ScriptedModel(respond=respond)


async def test_trajectory_and_plain_function_scorers_read_the_real_run() -> None:
    agent = Agent(name="researcher", model=searching_model(), tools=[search, answer])

    @scorer
    def searched_the_question(case: Case[Any, Any, Any], run: CaseRun) -> dict[str, Any]:
        first = (run.tool_calls or [{}])[0]
        return {
            "searched_question": first.get("arguments") == {"query": case.inputs},
            "calls": len(run.tool_calls or ()),
            "first_tool": str(first.get("name")),
        }

    checks = [
        ToolTrajectory(called_before=("search", "answer"), never=("delete",), max_calls=2),
        ToolTrajectory(called_before=("answer", "search")),
        searched_the_question,
        scorer(lambda case, run: run.output == "42", name="says_42"),
    ]
    report = await aevaluate(agent, [CASE], scorers=checks, cache=False, progress=None)
    case = report.cases[0]
    assert {n: s.value for n, s in case.scores.items()} == {
        "called_before": True,
        "never": True,
        "max_calls": True,
        "called_before_2": False,
        "searched_question": True,
        "says_42": True,
        "calls": 2,
        "first_tool": "search",
    }
    assert case.scores["called_before_2"].reason == "search (call 1) came before answer (call 2)"
    assert case.run.tool_names == ["search", "answer"]


def test_our_scorers_refuse_a_context_without_a_run() -> None:
    ctx = context_for(CASE, CaseRun(), "a")
    ctx.attributes.clear()
    with pytest.raises(UserError, match=r"only jupyter_agents\.evals\.evaluate"):
        case_run(ctx)


def test_scorer_takes_a_function() -> None:
    with pytest.raises(UserError):
        scorer("not a function")  # type: ignore[arg-type]
