"""W3: a streamed run of 5,000 text deltas of 3 characters, consumed with ``async for``.

The consumer iterates ``Runner.run_streamed(...).stream_events()``. Metrics, per timed run:

- ``events_per_s``: raw model events delivered to the consumer per second of run wall time,
  with a stream that never pauses (the scripted model yields its prebuilt events back to back).
- ``ttfd_ms``: time to first text delta with that stream: from the model yielding its first
  ``response.output_text.delta`` to the consumer receiving it.
- ``ttfd_from_start_ms``: from calling ``run_streamed`` to the consumer receiving the first
  delta (setup included), never-pausing stream.
- ``events_per_s_yielding`` / ``ttfd_ms_yielding``: the same with a stream that does
  ``await asyncio.sleep(0)`` after each event (like a network stream would).
"""

from __future__ import annotations

import time
from typing import Any

from .._common import Impl, Measured, main, profiled, settle
from ..scripted import Turn, message

WORKLOAD = "W3"


def run_turns(run: int, deltas: int) -> list[Turn]:
    """One streamed text answer of ``deltas`` 3-character deltas."""
    return [[message("abc" * deltas, f"msg_{run}")]]


async def _one_run(impl: Impl, agent: Any, model: Any) -> tuple[float, float, float, int]:
    """Wall seconds, first-delta lag and delay from start in seconds, raw events received."""
    raw = 0
    first = 0.0
    start = time.perf_counter()
    result = impl.Runner.run_streamed(agent, "go")
    async for event in result.stream_events():
        if event.type == "raw_response_event":
            raw += 1
            if not first and event.data.type == "response.output_text.delta":
                first = time.perf_counter()
    wall = time.perf_counter() - start
    if not str(result.final_output).startswith("abc"):
        raise RuntimeError(f"unexpected final output {str(result.final_output)[:40]!r}")
    return wall, first - model.first_delta_times[-1], first - start, raw


async def _series(impl: Impl, runs: int, deltas: int, pause: bool) -> tuple[list[float], ...]:
    model = impl.new_model()
    model.pause = pause
    agent = impl.Agent(name="w3", instructions="Stream.", model=model)
    warmup = 1
    for run in range(warmup + runs):
        model.load(run_turns(run, deltas), stream=True)
    for _ in range(warmup):
        await _one_run(impl, agent, model)
    rates: list[float] = []
    lags: list[float] = []
    from_start: list[float] = []
    settle()
    with profiled():
        for _ in range(runs):
            wall, lag, since_start, raw = await _one_run(impl, agent, model)
            rates.append(raw / wall)
            lags.append(lag * 1000)
            from_start.append(since_start * 1000)
    return rates, lags, from_start


async def measure(impl: Impl, quick: bool) -> Measured:
    deltas, runs = (200, 2) if quick else (5000, 10)
    rates, lags, from_start = await _series(impl, runs, deltas, pause=False)
    rates_y, lags_y, _ = await _series(impl, runs, deltas, pause=True)
    return Measured(
        metrics={
            "events_per_s": rates,
            "ttfd_ms": lags,
            "ttfd_from_start_ms": from_start,
            "events_per_s_yielding": rates_y,
            "ttfd_ms_yielding": lags_y,
        },
        info={"deltas": deltas, "raw_events_per_run": deltas + 9, "runs": runs},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
