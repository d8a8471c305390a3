"""``evaluate``: an agent over a dataset's cases, each case one ``run_batch`` row, then every
evaluator on every run.

Being a batch, an evaluation has what a batch has: rows at a concurrency (halved while the
provider answers 429), the results store (evaluate again after a crash and the finished cases
are read back, not run), rate limits, a budget, review and Ray. Scoring reads only what the
batch kept, so ``EvalReport.rescore`` can do it again later without the model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic_evals import Dataset
from pydantic_evals.evaluators import Evaluator

from ..runtime.agent import Agent
from ..runtime.batch import BatchControl, BatchResult, arun_batch
from ..runtime.batch.progress import progress_for
from ..runtime.batch.row import ApproveMode
from ..runtime.batch.store import DEFAULT_STORE
from ..runtime.blocking import run_blocking
from ..runtime.errors import UserError
from ..runtime.replay import Cassette
from ..runtime.run import RunConfig
from ._dataset import case_names, load_dataset, prompt_of
from ._overlap import ScoreAsRowsFinish
from ._scoring import Scored, score_case
from .case_run import CaseRun
from .report import CaseResult, EvalReport, score_all
from .scorers import MaxCost, MaxTokens, ToolTrajectory

__all__ = ["aevaluate", "evaluate"]

FILE_EVALUATORS: tuple[type[Evaluator[Any, Any, Any]], ...] = (ToolTrajectory, MaxCost, MaxTokens)
"""Our scorers a dataset file may name (beside pydantic-evals' own)."""


def evaluate(
    agent: Agent[Any],
    dataset: Any,
    *,
    scorers: Sequence[Evaluator[Any, Any, Any]] = (),
    prompt: str | None = None,
    concurrency: int = 8,
    cassette: Cassette | str | os.PathLike[str] | None = None,
    backend: Literal["local", "ray"] = "local",
    ray_keep_warm: bool | float = False,
    name: str | None = None,
    cache: str | Path | bool = True,
    fresh: bool = False,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    approve: ApproveMode = "deny",
    max_cost_usd: float | Decimal | None = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    progress: Any = "auto",
    control: BatchControl | None = None,
) -> EvalReport:
    """Evaluate ``agent`` on ``dataset`` and wait (see ``aevaluate``, its async twin, for
    the arguments). Works in a notebook cell, a script or a running loop."""
    return run_blocking(
        aevaluate(
            agent,
            dataset,
            scorers=scorers,
            prompt=prompt,
            concurrency=concurrency,
            cassette=cassette,
            backend=backend,
            ray_keep_warm=ray_keep_warm,
            name=name,
            cache=cache,
            fresh=fresh,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            approve=approve,
            max_cost_usd=max_cost_usd,
            max_turns=max_turns,
            run_config=run_config,
            progress=progress,
            control=control,
        )
    )


async def aevaluate(
    agent: Agent[Any],
    dataset: Any,
    *,
    scorers: Sequence[Evaluator[Any, Any, Any]] = (),
    prompt: str | None = None,
    concurrency: int = 8,
    cassette: Cassette | str | os.PathLike[str] | None = None,
    backend: Literal["local", "ray"] = "local",
    ray_keep_warm: bool | float = False,
    name: str | None = None,
    cache: str | Path | bool = True,
    fresh: bool = False,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    approve: ApproveMode = "deny",
    max_cost_usd: float | Decimal | None = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    progress: Any = "auto",
    control: BatchControl | None = None,
) -> EvalReport:
    """Run ``agent`` on every case of ``dataset`` (as a batch) and score every run.

    Each case's evaluators run first, then the dataset's, then ``scorers``, each called as
    pydantic-evals' ``Dataset.evaluate`` calls it. A case whose run failed (or waits for
    review, or was not run) is an error: no evaluator runs on it.

    Args:
        agent: The agent each case runs.
        dataset: A ``pydantic_evals.Dataset``, a list of ``Case``, a pandas DataFrame with
            ``input`` and ``expected`` columns (optional ``name``, ``metadata``), or the path
            of a YAML or JSON file in pydantic-evals' format. A case's input is its prompt: a
            string as is, anything else as JSON.
        scorers: More evaluators for every case: pydantic-evals' (``EqualsExpected``,
            ``LLMJudge``, ...), ours (``ToolTrajectory``, ``MaxCost``, ...) or your own.
        prompt: A template for each case's prompt, ``{input}`` standing for the case's input
            (default: the input itself).
        concurrency: Cases run at once (and scored at once).
        cassette: Record the runs, and replay a case whose recording matches (as
            ``run_batch(cassette=...)``).
        backend: ``"local"`` or ``"ray"``.
        ray_keep_warm: With ``backend="ray"``, keep the actors for the next evaluation or
            batch of this process (as ``run_batch``'s: True for 300 s idle, or seconds).
        name: The report's name (default: the dataset's, else the agent's).
        cache: The results store (as ``run_batch``): True for ``.jupyter_agents/batches.sqlite``
            under the working directory, a path, or False for nowhere. Evaluate again and the
            finished cases are read back from it.
        fresh: Forget the stored runs of this evaluation and run every case again.
        requests_per_minute: A cap on model requests, across all cases (as ``run_batch``).
        tokens_per_minute: A cap on tokens, across all cases.
        approve: What a tool call that needs approval gets: ``"deny"``, ``"auto"`` or
            ``"review"`` (the case waits; decide it through ``run_batch``, then evaluate
            again).
        max_cost_usd: A budget for the runs (cases past it stay unrun: errors in the report).
        max_turns: Per case.
        run_config: Per case.
        progress: As ``run_batch``: ``"auto"``, ``"text"``, None, or a ``BatchProgress``.
        control: Stop the cases' batch from elsewhere (as ``run_batch``'s).
    """
    data = load_dataset(dataset, FILE_EVALUATORS)
    if data.report_evaluators:
        raise UserError(
            "evaluate() does not run report_evaluators yet; score the cases with evaluators, "
            "or run the report evaluators on the report's cases yourself."
        )
    prompts = _prompts(data, prompt)
    evaluators = [*data.evaluators, *scorers]
    output_type = agent.output_type

    async def score_one(index: int, run: CaseRun) -> Scored:
        case = data.cases[index]
        return await score_case(case, run, [*case.evaluators, *evaluators], output_type)

    shown = progress_for(progress, len(prompts), control)
    overlap = ScoreAsRowsFinish(shown, score_one, concurrency)
    try:
        batch = await arun_batch(
            agent,
            prompts,
            concurrency=concurrency,
            max_turns=max_turns,
            run_config=run_config,
            cassette=cassette,
            cache=cache,
            backend=backend,
            ray_keep_warm=ray_keep_warm,
            approve=approve,
            fresh=fresh,
            requests_per_minute=requests_per_minute,
            tokens_per_minute=tokens_per_minute,
            progress=overlap,
            control=control,
            max_cost_usd=max_cost_usd,
        )
    except BaseException:
        overlap.cancel()
        raise
    runs = [CaseRun.of_row(row) for row in batch.rows]
    scored = await _scores(data, runs, overlap, evaluators, output_type, concurrency)
    return EvalReport(
        name=name or data.name or agent.name,
        cases=_case_results(data, batch, runs, scored),
        batch_id=batch.batch_id,
        store_path=_store_path(cache),
        output_type=output_type,
    )


def _prompts(data: Dataset[Any, Any, Any], prompt: str | None) -> list[str]:
    """Each case's prompt: its input as text, put in the ``prompt`` template if there is one."""
    prompts = [prompt_of(case.inputs) for case in data.cases]
    if prompt is None:
        return prompts
    if "{input}" not in prompt:
        raise UserError("The prompt template needs {input} (where each case's input goes).")
    return [prompt.replace("{input}", text) for text in prompts]


async def _scores(
    data: Dataset[Any, Any, Any],
    runs: list[CaseRun],
    overlap: ScoreAsRowsFinish,
    evaluators: list[Evaluator[Any, Any, Any]],
    output_type: Any,
    concurrency: int,
) -> list[Scored]:
    """Every run's scores, in case order: the scoring ``overlap`` started while the batch ran,
    and the runs it did not score (e.g. read back from the store) scored now."""
    started = [overlap.take(i, run) for i, run in enumerate(runs)]
    missing = [i for i, future in enumerate(started) if future is None]  # e.g. from the store
    rest = iter(
        await score_all(
            [(data.cases[i], runs[i]) for i in missing],
            evaluators,
            output_type,
            concurrency,
            per_case=[data.cases[i].evaluators for i in missing],
        )
    )
    return [next(rest) if future is None else await future for future in started]


def _case_results(
    data: Dataset[Any, Any, Any], batch: BatchResult, runs: list[CaseRun], scored: list[Scored]
) -> list[CaseResult]:
    """The report's cases: each case with its batch row's key, its run and its scores."""
    return [
        CaseResult(
            key=row.key,
            name=case_name,
            inputs=case.inputs,
            expected_output=case.expected_output,
            metadata=case.metadata,
            run=run,
            scores=result.scores,
            evaluator_failures=result.failures,
        )
        for case, case_name, row, run, result in zip(
            data.cases, case_names(data), batch.rows, runs, scored, strict=True
        )
    ]


def _store_path(cache: str | Path | bool) -> str | None:
    if cache is False:
        return None
    return str((DEFAULT_STORE if cache is True else Path(cache)).resolve())
