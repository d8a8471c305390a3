"""EV1: an evaluation of 1,000 cases against the batch it runs on (ours only: the peer has no
evaluations).

The same 1,000 prompts, each one model call to a stand-in model that answers after 50 ms, at
concurrency 64: once as ``arun_batch`` (the ideal is ``cases x latency / concurrency`` =
0.78 s), once as ``aevaluate`` with pydantic-evals' ``EqualsExpected`` and our
``ToolTrajectory``, ``MaxTokens`` and a plain-function scorer. What an evaluation adds is the
dataset, the scoring (every scorer on every case) and the report: ``eval_over_batch_pct``.
``rescore_ms`` scores the stored runs again (no model); ``compare_ms`` compares two reports.
Results stores off (``cache=False``) in both, so nothing is read back. After a warm-up of
each, six rounds, alternating which of the two runs first.
"""

from __future__ import annotations

import time
from typing import Any

from .._common import Impl, Measured, main
from .b1 import Waiting

WORKLOAD = "EV1"
CASES, CONCURRENCY, LATENCY = 1_000, 64, 0.05


async def measure(impl: Impl, quick: bool) -> Measured:
    import pandas as pd
    from pydantic_evals.evaluators import EqualsExpected

    from jupyter_agents import Agent, arun_batch
    from jupyter_agents.evals import MaxTokens, ToolTrajectory, aevaluate, compare, scorer

    cases = 100 if quick else CASES
    prompts = [f"question {i}" for i in range(cases)]
    dataset = pd.DataFrame({"input": prompts, "expected": ["label"] * cases})

    @scorer
    def short(case: Any, run: Any) -> bool:
        return len(str(run.output)) < 20

    scorers = [EqualsExpected(), ToolTrajectory(max_calls=0), MaxTokens(1000), short]
    agent = Agent(name="ev1", model=Waiting(LATENCY))
    metrics: dict[str, list[float]] = {
        "batch_s": [],
        "eval_s": [],
        "eval_over_batch_pct": [],
        "rescore_ms": [],
        "compare_ms": [],
    }

    async def batch() -> float:
        started = time.perf_counter()
        await arun_batch(agent, prompts, concurrency=CONCURRENCY, cache=False, progress=None)
        return time.perf_counter() - started

    async def evaluation() -> tuple[float, Any]:
        started = time.perf_counter()
        report = await aevaluate(
            agent, dataset, scorers=scorers, concurrency=CONCURRENCY, cache=False, progress=None
        )
        return time.perf_counter() - started, report

    await batch()  # warm-up: imports, first-call caches
    await evaluation()
    for round_number in range(1 if quick else 6):
        if round_number % 2:  # alternate which goes first, so both see the same drift
            eval_s, report = await evaluation()
            batch_s = await batch()
        else:
            batch_s = await batch()
            eval_s, report = await evaluation()
        if report.averages()["EqualsExpected"] != 1.0:
            raise RuntimeError("the stand-in model's answers did not score")
        started = time.perf_counter()
        again = await report.arescore(scorers)
        metrics["rescore_ms"].append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        compare(report, again)
        metrics["compare_ms"].append((time.perf_counter() - started) * 1000)
        metrics["batch_s"].append(batch_s)
        metrics["eval_s"].append(eval_s)
        metrics["eval_over_batch_pct"].append(100 * (eval_s - batch_s) / batch_s)
    ideal = cases * LATENCY / CONCURRENCY
    return Measured(
        metrics=metrics,
        info={"cases": cases, "concurrency": CONCURRENCY, "latency_s": LATENCY, "ideal_s": ideal},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
