"""Evaluations: an agent over a dataset of cases, every run scored (issue 28).

Built on pydantic-evals (its ``Dataset``, ``Case`` and evaluators, called as it calls them)
and on ``run_batch`` (each case one row: concurrency, the results store, limits, budgets,
review and Ray). Needs the ``evals`` extra: ``pip install 'jupyter_agents[evals]'``.

- ``evaluate`` / ``aevaluate`` run and score; ``EvalReport`` holds the result
  (``to_json``, ``from_json``, ``rescore`` without the model, ``to_pandas``).
- Scorers reading the run: ``ToolTrajectory``, ``ValidOutput``, ``MaxCost``,
  ``MaxTokens`` and ``scorer`` (a plain function); ``case_run`` gives any
  evaluator the run's ``CaseRun``.
- ``compare`` two reports; ``python -m jupyter_agents.evals gate`` fails CI on a drop.
"""

from __future__ import annotations

from ._scoring import Score
from .case_run import CaseRun, case_run
from .compare import CaseChange, Comparison, ScorerDelta, compare
from .evaluate import aevaluate, evaluate
from .gate import GateLine, check_gate
from .report import CaseResult, EvalReport
from .scorers import FunctionScorer, MaxCost, MaxTokens, ToolTrajectory, ValidOutput, scorer

__all__ = [
    "CaseChange",
    "CaseResult",
    "CaseRun",
    "Comparison",
    "EvalReport",
    "FunctionScorer",
    "GateLine",
    "MaxCost",
    "MaxTokens",
    "Score",
    "ScorerDelta",
    "ToolTrajectory",
    "ValidOutput",
    "aevaluate",
    "case_run",
    "check_gate",
    "compare",
    "evaluate",
    "scorer",
]
