"""Scorers that read the agent's run, not only its output: which tools it called and in what
order, whether a structured output validates, what it cost and how many tokens it used. Each
is a pydantic-evals ``Evaluator`` (a dataclass), so it goes wherever pydantic-evals' own do;
it reads the run with ``case_run``, which ``evaluate`` and ``EvalReport.rescore`` provide.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_evals import Case
from pydantic_evals.evaluators import EvaluationReason, Evaluator, EvaluatorContext
from pydantic_evals.evaluators.evaluator import EvaluatorOutput

from ..runtime.errors import UserError
from .case_run import CaseRun, case_run

__all__ = ["FunctionScorer", "MaxCost", "MaxTokens", "ToolTrajectory", "ValidOutput", "scorer"]


@dataclass(repr=False)
class ToolTrajectory(Evaluator[Any, Any, Any]):
    """Checks on the run's tool calls, each a named assertion with its reason.

    ``called_before=("search", "answer")``: each tool is called, the first call of each before
    the first call of the next. ``never=("delete",)``: none of these is called.
    ``max_calls=3``: at most that many calls. ``must_call=("search",)``: each is called.
    """

    called_before: tuple[str, ...] = ()
    """Tools that must all be called, first calls in this order (two or more names)."""
    never: tuple[str, ...] = ()
    """Tools that must not be called."""
    max_calls: int | None = None
    """The most tool calls allowed."""
    must_call: tuple[str, ...] = ()
    """Tools that must be called."""

    def __post_init__(self) -> None:
        if len(self.called_before) == 1:
            raise UserError("ToolTrajectory: called_before names two or more tools, in order.")
        if self.max_calls is not None and self.max_calls < 0:
            raise UserError("ToolTrajectory: max_calls is 0 or more.")
        if not (self.called_before or self.never or self.must_call or self.max_calls is not None):
            raise UserError(
                "ToolTrajectory checks nothing: give called_before, never, max_calls or must_call."
            )

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluatorOutput:
        """One assertion per check given: ``called_before``, ``never``, ``max_calls``,
        ``must_call``."""
        run = case_run(ctx)
        if run.tool_calls is None:
            raise UserError("The run's tool calls are not known (a row stored before they were).")
        names = run.tool_names
        results: dict[str, EvaluationReason] = {}
        if self.called_before:
            results["called_before"] = _in_order(names, self.called_before)
        if self.never:
            called = [n for n in self.never if n in names]
            reason = f"called {', '.join(called)}" if called else "none of them called"
            results["never"] = EvaluationReason(not called, reason)
        if self.max_calls is not None:
            count = len(names)
            results["max_calls"] = EvaluationReason(
                count <= self.max_calls,
                f"{count} {'call' if count == 1 else 'calls'} (at most {self.max_calls})",
            )
        if self.must_call:
            missing = [n for n in self.must_call if n not in names]
            reason = f"not called: {', '.join(missing)}" if missing else "all called"
            results["must_call"] = EvaluationReason(not missing, reason)
        return results


def _in_order(names: list[str], order: Sequence[str]) -> EvaluationReason:
    missing = [n for n in order if n not in names]
    if missing:
        return EvaluationReason(False, f"not called: {', '.join(missing)}")
    first = {n: names.index(n) for n in order}
    for a, b in itertools.pairwise(order):
        if first[a] > first[b]:
            return EvaluationReason(
                False, f"{b} (call {first[b] + 1}) came before {a} (call {first[a] + 1})"
            )
    return EvaluationReason(True, " before ".join(order))


@dataclass(repr=False)
class ValidOutput(Evaluator[Any, Any, Any]):
    """The run's output validates as ``schema_type`` (a pydantic model, dataclass, TypedDict
    or any type pydantic reads); a text output is read as JSON first."""

    schema_type: Any
    """The type the output must validate as."""

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluationReason:
        """True when it validates; else False with pydantic's first error."""
        output = case_run(ctx).output
        adapter: TypeAdapter[Any] = TypeAdapter(self.schema_type)
        try:
            if isinstance(output, str) and self.schema_type is not str:
                adapter.validate_json(output)
            else:
                adapter.validate_python(output)
        except ValidationError as e:
            first = e.errors(include_url=False)[0]
            where = ".".join(map(str, first["loc"])) or "output"
            return EvaluationReason(False, f"{where}: {first['msg']}")
        return EvaluationReason(True, f"a valid {getattr(self.schema_type, '__name__', 'value')}")

    def build_serialization_arguments(self) -> dict[str, Any]:
        """The type by name (a type is not JSON)."""
        return {"schema_type": getattr(self.schema_type, "__name__", repr(self.schema_type))}


@dataclass(repr=False)
class MaxCost(Evaluator[Any, Any, Any]):
    """The run cost at most ``usd`` US dollars (a model without a known price fails)."""

    usd: float
    """The most the run may cost."""

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluationReason:
        """True when the run's cost is known and within the limit."""
        cost = case_run(ctx).cost_usd
        if cost is None:
            return EvaluationReason(False, "no cost known (the model has no known price)")
        return EvaluationReason(cost <= self.usd, f"${cost:.6f} (at most ${self.usd})")


@dataclass(repr=False)
class MaxTokens(Evaluator[Any, Any, Any]):
    """The run used at most ``n`` tokens (input and output, every model call)."""

    n: int
    """The most tokens the run may use."""

    def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluationReason:
        """True when the run's tokens are within the limit."""
        tokens = case_run(ctx).tokens
        return EvaluationReason(tokens <= self.n, f"{tokens} tokens (at most {self.n})")


ScorerFunction = Callable[[Case[Any, Any, Any], CaseRun], Any]
"""A plain scorer: ``(case, run) -> bool | float | str | dict`` (or an awaitable of one)."""


@dataclass(repr=False)
class FunctionScorer(Evaluator[Any, Any, Any]):
    """A plain function as an evaluator (made by ``scorer``)."""

    function: ScorerFunction
    """``(case, run) -> bool | float | str | dict``: the case (``name``, ``inputs``,
    ``expected_output``, ``metadata``) and its ``CaseRun``."""
    name: str | None = field(default=None)
    """The result's name (default: the function's name)."""

    async def evaluate(self, ctx: EvaluatorContext[Any, Any, Any]) -> EvaluatorOutput:
        """The function's answer on this case."""
        case = Case(
            name=ctx.name,
            inputs=ctx.inputs,
            expected_output=ctx.expected_output,
            metadata=ctx.metadata,
        )
        result = self.function(case, case_run(ctx))
        if inspect.isawaitable(result):
            result = await result
        return result  # type: ignore[no-any-return]  # pydantic-evals checks the type

    def get_default_evaluation_name(self) -> str:
        """``name``, else the function's name."""
        return self.name or str(getattr(self.function, "__name__", "scorer"))

    def build_serialization_arguments(self) -> dict[str, Any]:
        """The function by name (a function is not JSON)."""
        return {"function": self.get_default_evaluation_name()}


def scorer(function: ScorerFunction, *, name: str | None = None) -> FunctionScorer:
    """Make a plain function ``(case, run) -> bool | float | str | dict`` a scorer (also a
    decorator: ``@scorer``). A bool is an assertion, a number a score, a string a label, a
    dict several named results; an ``EvaluationReason`` adds a reason."""
    if not callable(function):
        raise UserError(f"scorer() takes a function (case, run) -> value; got {function!r}.")
    return FunctionScorer(function, name)
