"""W6: 1,000 sequential 1-turn runs reusing one agent; throughput and memory growth.

The agent has the W1 ``lookup`` tool (offered, never called); the model answers with text.
After a warm-up, batches of 1,000 ``await Runner.run(...)`` are timed. Metrics:

- ``runs_per_s``: one sample per batch.
- ``tracemalloc_growth_kib``: memory still allocated (tracemalloc, after ``gc.collect()``)
  after one extra batch of 1,000 runs, compared with before it: what a run leaves behind.
- ``rss_growth_kib``: growth of the resident set per 1,000 runs across the timed batches (after
  ``gc.collect()``); coarser, it includes allocator behaviour.
"""

from __future__ import annotations

import time
import tracemalloc

from .._common import Impl, Measured, main, profiled, rss_kib, settle
from ..scripted import message
from .w1 import lookup

WORKLOAD = "W6"


async def measure(impl: Impl, quick: bool) -> Measured:
    batch, batches, warmup = (50, 2, 10) if quick else (1000, 3, 200)
    model = impl.new_model()
    agent = impl.Agent(
        name="w6", instructions="Answer briefly.", model=model, tools=[impl.function_tool(lookup)]
    )
    runner = impl.Runner

    async def run_batch(first: int, count: int) -> None:
        for run in range(first, first + count):
            result = await runner.run(agent, "hi")
            if result.final_output != "ok":
                raise RuntimeError(f"run {run}: unexpected output {result.final_output!r}")

    total = warmup + batch * (batches + 1)
    model.load([[message("ok", f"msg_{run}")] for run in range(total)])
    await run_batch(0, warmup)
    settle()
    rates: list[float] = []
    rss = [rss_kib()]
    for b in range(batches):
        with profiled():
            start = time.perf_counter()
            await run_batch(warmup + b * batch, batch)
            rates.append(batch / (time.perf_counter() - start))
        settle()
        rss.append(rss_kib())
    model.record = False
    model.reset_times()
    tracemalloc.start()
    settle()
    before = tracemalloc.get_traced_memory()[0]
    await run_batch(warmup + batches * batch, batch)
    settle()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    scale = 1000 / batch
    return Measured(
        metrics={
            "runs_per_s": rates,
            "tracemalloc_growth_kib": [(after - before) / 1024 * scale],
            "rss_growth_kib": [(rss[-1] - rss[0]) / batches * scale],
        },
        info={"batch": batch, "batches": batches, "rss_kib": [round(r) for r in rss]},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
