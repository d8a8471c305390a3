"""Scoring one case: the evaluator context built as ``Dataset.evaluate`` builds it, and the
evaluators run through pydantic-evals' own ``run_evaluator`` and grouped by its own rule (bool
an assertion, a number a score, a string a label; repeated names get ``_2``, ``_3``), so a
scorer gives here what it gives there.

The two helpers come from pydantic-evals' private modules on purpose: copying them would let the
two drift apart. ``pydantic-evals>=2.62`` is the version they were read from.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter
from pydantic_evals import Case
from pydantic_evals.dataset import _group_evaluator_outputs_by_type
from pydantic_evals.evaluators import EvaluationResult, Evaluator, EvaluatorContext
from pydantic_evals.evaluators._run_evaluator import run_evaluator
from pydantic_evals.evaluators.evaluator import EvaluatorFailure
from pydantic_evals.otel._errors import SpanTreeRecordingError

from .case_run import RUN_ATTRIBUTE, CaseRun

__all__ = ["NO_SPAN_TREE", "Score", "Scored", "context_for", "score_case", "typed_output"]

NO_SPAN_TREE = (
    "jupyter_agents evals record no span tree; read the run with "
    "jupyter_agents.evals.case_run(ctx) (tool calls, tokens, cost) or use ToolTrajectory."
)


@dataclass(frozen=True)
class Score:
    """One result of one evaluator on one case."""

    name: str
    """The result's name (the evaluator's name, or a key of the mapping it returned)."""
    value: bool | int | float | str
    """A bool is an assertion, a number a score, a string a label."""
    reason: str | None = None
    """Why, when the evaluator said."""
    source: str = ""
    """The evaluator's serialisation name (``EqualsExpected``, ``ToolTrajectory``, ...)."""

    @property
    def kind(self) -> str:
        """``assertion``, ``score`` or ``label``."""
        if isinstance(self.value, bool):
            return "assertion"
        return "label" if isinstance(self.value, str) else "score"


@dataclass(frozen=True)
class Scored:
    """What the evaluators gave on one case."""

    scores: dict[str, Score] = field(default_factory=dict)
    """By name: the assertions, then the scores, then the labels (as pydantic-evals orders
    them)."""
    failures: dict[str, str] = field(default_factory=dict)
    """Evaluators that raised, by name: the error."""


def typed_output(output: Any, output_type: Any) -> Any:
    """The stored output as the agent's output type gave it (a structured output validated
    back into its model), or as stored when there is no type or it does not validate."""
    if output is None or output_type is None or output_type is str:
        return output
    try:
        return _adapter(output_type).validate_python(output)
    except Exception:  # not a type pydantic reads (an output schema object), or no match
        return output


@functools.lru_cache(maxsize=32)
def _adapter(output_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(output_type)


def context_for(
    case: Case[Any, Any, Any], run: CaseRun, output: Any
) -> EvaluatorContext[Any, Any, Any]:
    """The context an evaluator gets, field for field as ``Dataset.evaluate`` fills it; the
    run goes in ``attributes["run"]`` and its usage in ``metrics``."""
    metrics: dict[str, int | float] = {
        "tokens": run.tokens,
        "tool_calls": len(run.tool_calls or ()),
    }
    if run.cost_usd is not None:
        metrics["cost"] = run.cost_usd
    return EvaluatorContext(
        name=case.name,
        inputs=case.inputs,
        metadata=case.metadata,
        expected_output=case.expected_output,
        output=output,
        duration=run.seconds,
        _span_tree=SpanTreeRecordingError(NO_SPAN_TREE),
        attributes={RUN_ATTRIBUTE: run},
        metrics=metrics,
    )


async def score_case(
    case: Case[Any, Any, Any],
    run: CaseRun,
    evaluators: Sequence[Evaluator[Any, Any, Any]],
    output_type: Any = None,
) -> Scored:
    """Run ``evaluators`` on one case's run (none when the run has no output: the case is
    an error, as a task that raised is in pydantic-evals)."""
    if run.error is not None or not evaluators:
        return Scored()
    ctx = context_for(case, run, typed_output(run.output, output_type))
    # One after the other: cases are scored concurrently already, and a task per evaluator
    # would cost more than most evaluators (comparisons, counts) take.
    outcomes = [await run_evaluator(ev, ctx) for ev in evaluators]
    results: list[EvaluationResult[Any]] = []
    failures: dict[str, str] = {}
    for outcome in outcomes:
        if isinstance(outcome, EvaluatorFailure):
            failures[outcome.name] = outcome.error_message
        else:
            results.extend(outcome)
    scores: dict[str, Score] = {}
    for group in _group_evaluator_outputs_by_type(results):
        for name, result in group.items():
            value = result.value
            scores[name] = Score(name, value, result.reason, result.source.name)
    return Scored(scores, failures)
