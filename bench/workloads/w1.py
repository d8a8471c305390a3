"""W1: a 50-turn run with one trivial sync tool; framework cost per turn and its growth.

The model calls ``lookup`` once per turn for 49 turns, then answers with text (50 model calls,
``max_turns=60``). Metrics, per timed run:

- ``ms_per_turn``: run wall time / 50.
- ``turn1_ms`` / ``turn49_ms``: the gap between model calls 1 and 2 (resp. 49 and 50), from
  timestamps taken on entry of the scripted model's ``get_response``: everything the framework
  does for one turn (items, tool call, next request).
- ``turn49_over_turn1``: their ratio within the same run (flat is 1).
- ``ms_per_turn_async_tool``: the same run with an ``async def`` tool (10 runs, not profiled):
  the difference to ``ms_per_turn`` is what running a sync tool on a worker thread costs.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from .._common import Impl, Measured, main, profiled, settle
from ..scripted import Turn, function_call, message

WORKLOAD = "W1"


def lookup(key: str) -> str:
    """Look a key up in the table.

    Args:
        key: The key to look up.
    """
    return f"value of {key}"


async def lookup_async(key: str) -> str:
    """Look a key up in the table.

    Args:
        key: The key to look up.
    """
    return f"value of {key}"


def run_turns(run: int, tool_turns: int) -> list[Turn]:
    """The model calls of one run: ``tool_turns`` lookups, then a text answer."""
    turns: list[Turn] = [
        [function_call("lookup", json.dumps({"key": f"k{i}"}), f"call_{run}_{i}", f"fc_{run}_{i}")]
        for i in range(tool_turns)
    ]
    turns.append([message("done", f"msg_{run}")])
    return turns


async def _timed_runs(
    impl: Impl, tool: Any, tool_turns: int, runs: int, warmup: int, profile: bool
) -> tuple[list[float], list[float]]:
    """Run walls (s) and every model call's entry time of ``runs`` timed runs."""
    calls = tool_turns + 1
    model = impl.new_model()
    agent = impl.Agent(
        name="w1",
        instructions="Use the lookup tool.",
        model=model,
        tools=[impl.function_tool(tool, name_override="lookup")],
    )
    for run in range(warmup + runs):
        model.load(run_turns(run, tool_turns))
    for _ in range(warmup):
        await impl.Runner.run(agent, "go", max_turns=calls + 10)
    model.reset_times()
    walls: list[float] = []
    settle()
    with profiled() if profile else contextlib.nullcontext():
        for _ in range(runs):
            start = time.perf_counter()
            result = await impl.Runner.run(agent, "go", max_turns=calls + 10)
            walls.append(time.perf_counter() - start)
            if result.final_output != "done":
                raise RuntimeError(f"unexpected final output {result.final_output!r}")
    assert len(model.call_times) == runs * calls, (len(model.call_times), runs * calls)
    return walls, model.call_times


async def measure(impl: Impl, quick: bool) -> Measured:
    tool_turns, runs, warmup = (4, 2, 1) if quick else (49, 30, 3)
    calls = tool_turns + 1
    walls, times = await _timed_runs(impl, lookup, tool_turns, runs, warmup, profile=True)
    first: list[float] = []
    last: list[float] = []
    for run in range(runs):
        t = times[run * calls : (run + 1) * calls]
        first.append((t[1] - t[0]) * 1000)
        last.append((t[-1] - t[-2]) * 1000)
    async_walls, _ = await _timed_runs(
        impl, lookup_async, tool_turns, max(2, runs // 3), 1, profile=False
    )
    return Measured(
        metrics={
            "ms_per_turn": [w * 1000 / calls for w in walls],
            "turn1_ms": first,
            "turn49_ms": last,
            "turn49_over_turn1": [b / a for a, b in zip(first, last, strict=True)],
            "ms_per_turn_async_tool": [w * 1000 / calls for w in async_walls],
        },
        info={"model_calls_per_run": calls, "runs": runs},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
