"""``EvalReport``: what an evaluation gave, case by case, with averages per scorer; saved as
versioned JSON, read back, and scored again from the stored runs without the model."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic_core import to_jsonable_python
from pydantic_evals import Case
from pydantic_evals.evaluators import Evaluator

from ..runtime.blocking import run_blocking
from ..runtime.errors import UserError
from ._scoring import Score, score_case
from ._text import report_text
from .case_run import CaseRun

__all__ = ["FORMAT", "VERSION", "CaseResult", "EvalReport", "Score"]

FORMAT = "jupyter_agents.eval_report"
"""The ``format`` field of a saved report."""
VERSION = 1
"""The version of the saved format this code writes and reads."""


@dataclass
class CaseResult:
    """One case: what it asked, what the agent answered, and every score with its reason."""

    key: str
    """The case's batch row key (open its run from the report's store with it)."""
    name: str
    """The case's name (``Case N`` for an unnamed case, as pydantic-evals names it)."""
    inputs: Any
    """The case's input (its prompt: a string as is, anything else as JSON)."""
    expected_output: Any = None
    """What the case expects (None: nothing)."""
    metadata: Any = None
    """The case's metadata."""
    run: CaseRun = field(default_factory=CaseRun)
    """The run: output, tool calls, tokens, cost, duration, error."""
    scores: dict[str, Score] = field(default_factory=dict)
    """Every assertion, score and label, by name."""
    evaluator_failures: dict[str, str] = field(default_factory=dict)
    """Evaluators that raised on this case, by name: the error."""

    @property
    def output(self) -> Any:
        """The agent's final output as plain data."""
        return self.run.output

    @property
    def error(self) -> str | None:
        """Why the case has no output (None: it ran)."""
        return self.run.error

    @property
    def duration(self) -> float:
        """Seconds the case's run took."""
        return self.run.seconds

    @property
    def cost_usd(self) -> float | None:
        """What the case's run cost (None: no known price)."""
        return self.run.cost_usd

    @property
    def passed(self) -> bool:
        """It ran, every assertion holds and no evaluator raised."""
        if self.error is not None or self.evaluator_failures:
            return False
        return all(s.value for s in self.scores.values() if s.kind == "assertion")

    def value(self, name: str) -> float | None:
        """The case's number for scorer ``name`` as averages count it: an assertion 1 or 0, a
        score itself, 0 for a case that failed to run; None when it has no such result."""
        if self.error is not None:
            return 0.0
        score = self.scores.get(name)
        if score is None or score.kind == "label":
            return None
        return float(score.value)

    def to_dict(self) -> dict[str, Any]:
        """The case as JSON-ready data."""
        return {
            "key": self.key,
            "name": self.name,
            "inputs": to_jsonable_python(self.inputs, serialize_unknown=True),
            "expected_output": to_jsonable_python(self.expected_output, serialize_unknown=True),
            "metadata": to_jsonable_python(self.metadata, serialize_unknown=True),
            "run": self.run.to_dict(),
            "scores": [vars(s) for s in self.scores.values()],
            "evaluator_failures": dict(self.evaluator_failures),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        """Read a case written by ``to_dict``."""
        scores = [Score(**s) for s in data.get("scores", [])]
        return cls(
            key=data["key"],
            name=data["name"],
            inputs=data.get("inputs"),
            expected_output=data.get("expected_output"),
            metadata=data.get("metadata"),
            run=CaseRun.from_dict(data.get("run", {})),
            scores={s.name: s for s in scores},
            evaluator_failures=dict(data.get("evaluator_failures", {})),
        )

    def as_case(self) -> Case[Any, Any, Any]:
        """The pydantic-evals ``Case`` this result scored."""
        return Case(
            name=self.name,
            inputs=self.inputs,
            expected_output=self.expected_output,
            metadata=self.metadata,
        )


@dataclass
class EvalReport:
    """An evaluation's result: one ``CaseResult`` per case, in the dataset's order.

    ``str(report)`` is a compact table (failing cases first, then the averages).
    """

    name: str
    """The evaluation's name (``evaluate(name=...)``, else the dataset's or agent's)."""
    cases: list[CaseResult]
    """The cases, in the dataset's order."""
    batch_id: str | None = None
    """The batch the runs belong to (its id in the results store)."""
    store_path: str | None = None
    """The results store holding the runs (None: kept nowhere, ``cache=False``)."""
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat())
    """When the report was made (ISO 8601, UTC)."""
    source: str | None = None
    """``MODULE:FUNCTION``, the function that makes this evaluation (set by ``python -m
    jupyter_agents.evals run``): the gate runs it again when given only this report."""
    output_type: Any = field(default=None, repr=False, compare=False)
    """The agent's output type: scorers see a structured output validated into it (kept in
    memory only; give ``rescore(output_type=...)`` for a report read from a file)."""

    def averages(self) -> dict[str, float]:
        """Per scorer (labels left out), the mean over the cases that have it: an assertion
        counts 1 or 0, so its average is the pass rate. A case whose run failed counts 0
        for every scorer (an error is a failure, so a gate sees it)."""
        names = [n for c in self.cases for n, s in c.scores.items() if s.kind != "label"]
        result = {}
        for name in dict.fromkeys(names):
            values = [v for c in self.cases if (v := c.value(name)) is not None]
            result[name] = sum(values) / len(values)
        return result

    @property
    def failures(self) -> list[CaseResult]:
        """The cases that failed: an error, a failing assertion or an evaluator that raised."""
        return [c for c in self.cases if not c.passed]

    def failures_first(self) -> list[CaseResult]:
        """Every case, failing ones first (each group in the dataset's order)."""
        return self.failures + [c for c in self.cases if c.passed]

    @property
    def errors(self) -> list[CaseResult]:
        """The cases whose run failed (or did not run)."""
        return [c for c in self.cases if c.error is not None]

    @property
    def pass_rate(self) -> float:
        """The share of cases that passed (0 for no cases)."""
        return (len(self.cases) - len(self.failures)) / len(self.cases) if self.cases else 0.0

    @property
    def cost_usd(self) -> float | None:
        """What the runs cost in all (None: no run had a known price)."""
        costs = [c.cost_usd for c in self.cases if c.cost_usd is not None]
        return sum(costs) if costs else None

    def case(self, name_or_key: str) -> CaseResult:
        """The case with this name or batch row key."""
        for c in self.cases:
            if name_or_key in (c.name, c.key):
                return c
        raise UserError(f"No case {name_or_key!r} in this report.")

    def to_pandas(self) -> Any:
        """A DataFrame indexed by case name: key, input, expected, output, error, duration,
        cost, tokens, passed, a column per score (its value) and ``reasons`` (name: reason)."""
        pd: Any = importlib.import_module("pandas")  # optional; untyped
        records = []
        for c in self.cases:
            record: dict[str, Any] = {
                "key": c.key,
                "input": c.inputs,
                "expected": c.expected_output,
                "output": c.output,
                "error": c.error,
                "duration": c.duration,
                "cost_usd": c.cost_usd,
                "tokens": c.run.tokens,
                "passed": c.passed,
            }
            record.update({n: s.value for n, s in c.scores.items()})
            record["reasons"] = {n: s.reason for n, s in c.scores.items() if s.reason}
            records.append(record)
        return pd.DataFrame.from_records(records, index=pd.Index([c.name for c in self.cases]))

    def __str__(self) -> str:
        return report_text(self)

    def __repr__(self) -> str:
        return f"<EvalReport {self.name!r}: {len(self.cases)} cases, {len(self.failures)} failing>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self) if cycle else str(self))

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (the saved format, versioned)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "created": self.created,
            "batch_id": self.batch_id,
            "store_path": self.store_path,
            "source": self.source,
            "averages": self.averages(),
            "cases": [c.to_dict() for c in self.cases],
        }

    def to_json(self, path: str | os.PathLike[str]) -> Path:
        """Write the report to ``path`` (JSON); returns the path."""
        target = Path(path)
        text = json.dumps(self.to_dict(), indent=1, ensure_ascii=False, default=str)
        target.write_text(text + "\n", encoding="utf-8")
        return target

    @classmethod
    def from_dict(cls, data: Any) -> EvalReport:
        """Read a report written by ``to_dict``.

        Raises:
            UserError: Not a saved report, or one of another version.
        """
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UserError(f"Not an evaluation report (no 'format': {FORMAT!r}).")
        if data.get("version") != VERSION:
            raise UserError(
                f"An evaluation report of version {data.get('version')!r}; this version of "
                f"jupyter_agents reads version {VERSION}."
            )
        try:
            cases = [CaseResult.from_dict(c) for c in data["cases"]]
            return cls(
                name=str(data["name"]),
                cases=cases,
                batch_id=data.get("batch_id"),
                store_path=data.get("store_path"),
                created=str(data.get("created", "")),
                source=data.get("source"),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise UserError(f"A damaged evaluation report ({type(e).__name__}: {e}).") from None

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> EvalReport:
        """Read a report saved by ``to_json``.

        Raises:
            UserError: The file is missing, is not JSON, or is not a saved report.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise UserError(f"Cannot read {os.fspath(path)!r}: {e.strerror or e}.") from None
        except ValueError as e:
            raise UserError(f"{os.fspath(path)!r} is not JSON ({e}).") from None
        return cls.from_dict(data)

    def rescore(
        self,
        scorers: Sequence[Evaluator[Any, Any, Any]],
        *,
        output_type: Any = None,
        concurrency: int = 64,
    ) -> EvalReport:
        """A new report whose scores are what ``scorers`` give on the stored runs (the model
        is never called; see ``arescore``)."""
        return run_blocking(
            self.arescore(scorers, output_type=output_type, concurrency=concurrency)
        )

    async def arescore(
        self,
        scorers: Sequence[Evaluator[Any, Any, Any]],
        *,
        output_type: Any = None,
        concurrency: int = 64,
    ) -> EvalReport:
        """Score the stored runs again with ``scorers`` (they replace every earlier score:
        give the dataset's evaluators again to keep them). Nothing runs but the scorers.

        Args:
            scorers: pydantic-evals evaluators, ours or your own.
            output_type: The type a structured output is validated into before scoring
                (default: the agent's, for a report made in this process).
            concurrency: Cases scored at once (an LLM judge calls its model).
        """
        kind = output_type if output_type is not None else self.output_type
        cases = await score_all(
            [(c.as_case(), c.run) for c in self.cases], list(scorers), kind, concurrency
        )
        rescored = [
            replace(c, scores=s.scores, evaluator_failures=s.failures)
            for c, s in zip(self.cases, cases, strict=True)
        ]
        return replace(self, cases=rescored, created=datetime.now(timezone.utc).isoformat())


async def score_all(
    cases: Sequence[tuple[Case[Any, Any, Any], CaseRun]],
    evaluators: Sequence[Evaluator[Any, Any, Any]],
    output_type: Any,
    concurrency: int,
    per_case: Sequence[Sequence[Evaluator[Any, Any, Any]]] | None = None,
) -> list[Any]:
    """Score every case, ``concurrency`` at a time; ``per_case`` evaluators (a case's own)
    run before the shared ones, as in pydantic-evals."""
    results: list[Any] = [None] * len(cases)
    pending = iter(range(len(cases)))

    async def worker() -> None:  # ``concurrency`` workers, not a task per case
        for index in pending:
            case, run = cases[index]
            own = list(per_case[index]) if per_case is not None else []
            results[index] = await score_case(case, run, [*own, *evaluators], output_type)

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(cases))))))
    return results
