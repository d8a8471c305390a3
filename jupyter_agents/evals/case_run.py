"""What one case's run left behind, as plain data: the record every scorer reads and the
report keeps, so a report can be scored again (``EvalReport.rescore``) without the model."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic_evals.evaluators import EvaluatorContext

from ..runtime.batch import RowResult
from ..runtime.errors import UserError

__all__ = ["RUN_ATTRIBUTE", "CaseRun", "case_run"]

RUN_ATTRIBUTE = "run"
"""The key of ``EvaluatorContext.attributes`` holding the case's ``CaseRun``."""


@dataclass(frozen=True)
class CaseRun:
    """One case's run: its output, tool calls, usage, cost, time and error (serialisable).

    Scorers read it from the evaluator context with ``case_run``.
    """

    output: Any = None
    """The final output as plain data (a structured output as a dict; None: no output)."""
    tool_calls: list[dict[str, Any]] | None = field(default_factory=list)
    """The tool calls in order: ``name``, ``arguments``, ``call_id``, ``status`` (None: not
    known, as for a row stored before tool calls were kept)."""
    tokens: int = 0
    """Tokens the run used (input and output, all model calls)."""
    cost_usd: float | None = None
    """What the run's model calls cost in US dollars (None: no known price)."""
    seconds: float = 0.0
    """How long the run took."""
    error: str | None = None
    """Why the case has no output: the run failed, waits for review, or was not run."""
    status: str = "ok"
    """The batch row's status (``ok``, ``rejected``, ``failed``, ``waiting``, ``pending``)."""

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools called, in order."""
        return [str(c.get("name")) for c in self.tool_calls or ()]

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseRun:
        """Read a record written by ``to_dict``."""
        return cls(**data)

    @classmethod
    def of_row(cls, row: RowResult) -> CaseRun:
        """The record of one batch row."""
        return cls(
            output=row.output,
            tool_calls=row.tool_calls,
            tokens=row.tokens,
            cost_usd=float(row.cost_usd) if row.cost_usd is not None else None,
            seconds=row.seconds,
            error=row.error or _missing_output(row),
            status=row.status,
        )


def _missing_output(row: RowResult) -> str | None:
    if row.status == "waiting":
        return "The run waits for review (approve='review'); decide it, then evaluate again."
    if row.status == "pending":
        return "Not run: the batch stopped first (a budget or Stop); evaluate again to go on."
    return None


def case_run(ctx: EvaluatorContext[Any, Any, Any]) -> CaseRun:
    """The ``CaseRun`` of the case being scored.

    Raises:
        UserError: The context was not made by ``jupyter_agents.evals`` (for instance a
            scorer of ours used in a plain ``Dataset.evaluate``).
    """
    run = ctx.attributes.get(RUN_ATTRIBUTE)
    if not isinstance(run, CaseRun):
        raise UserError(
            "This scorer reads the agent's run, which only jupyter_agents.evals.evaluate() "
            "(or EvalReport.rescore()) provides; use it there, not in Dataset.evaluate()."
        )
    return run
