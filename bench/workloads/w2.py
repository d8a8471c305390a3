"""W2: one model response with 20 calls to an async tool sleeping 50 ms, then text.

Metrics, per timed run:

- ``run_wall_ms``: the whole run (ideal: about one sleep, 50 ms).
- ``reply_to_first_tool_ms``: from the scripted model returning its first response (timestamp
  just before ``get_response`` returns) to the first tool body starting.
"""

from __future__ import annotations

import asyncio
import json
import time

from .._common import Impl, Measured, main, profiled, settle
from ..scripted import Turn, function_call, message

WORKLOAD = "W2"

_starts: list[float] = []
_sleep = 0.05


async def fetch(index: int) -> str:
    """Fetch one page, slowly.

    Args:
        index: Which page.
    """
    _starts.append(time.perf_counter())
    await asyncio.sleep(_sleep)
    return f"page {index}"


def run_turns(run: int, calls: int) -> list[Turn]:
    """One response with ``calls`` parallel calls of ``fetch``, then a text answer."""
    first = [
        function_call("fetch", json.dumps({"index": i}), f"call_{run}_{i}", f"fc_{run}_{i}")
        for i in range(calls)
    ]
    return [first, [message("done", f"msg_{run}")]]


async def measure(impl: Impl, quick: bool) -> Measured:
    global _sleep
    calls, runs, warmup = (5, 2, 1) if quick else (20, 20, 2)
    _sleep = 0.01 if quick else 0.05
    model = impl.new_model()
    agent = impl.Agent(
        name="w2", instructions="Fetch pages.", model=model, tools=[impl.function_tool(fetch)]
    )
    for run in range(warmup + runs):
        model.load(run_turns(run, calls))
    for _ in range(warmup):
        await impl.Runner.run(agent, "go")
    model.reset_times()
    walls: list[float] = []
    lags: list[float] = []
    settle()
    with profiled():
        for _ in range(runs):
            _starts.clear()
            start = time.perf_counter()
            result = await impl.Runner.run(agent, "go")
            walls.append((time.perf_counter() - start) * 1000)
            if result.final_output != "done" or len(_starts) != calls:
                raise RuntimeError(f"unexpected run: {result.final_output!r}, {len(_starts)}")
            lags.append((min(_starts) - model.reply_times[-2]) * 1000)
    return Measured(
        metrics={"run_wall_ms": walls, "reply_to_first_tool_ms": lags},
        info={"tool_calls": calls, "tool_sleep_ms": _sleep * 1000, "runs": runs},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
