"""D1: the cost of saving a run after every step (durable runs), in one process (ours only: the
peer has no run journal).

A 50-turn run (49 turns that call a trivial tool, then an answer, as W1) against the scripted
model, three ways, alternating in each round:

- ``plain_ms``: no recording, no journal (what W1 measures);
- ``recorded_ms``: recorded into an in-memory cassette (what every notebook cell does);
- ``durable_ms``: recorded, and each step saved in the SQLite journal as it happens (a model
  reply, a call's start, its output: about three rows a turn, each committed).

``ms_per_step`` is what the journal adds to a turn: (durable - recorded) / 50; target under
2 ms. ``saving_ms_per_step`` is (durable - plain) / 50: recording and journal together.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from .._common import Impl, Measured, main
from ..scripted import function_call, message

WORKLOAD = "D1"
TURNS = 50


def lookup(key: str) -> str:
    """Look a key up in the table.

    Args:
        key: The key to look up.
    """
    return f"value of {key}"


def _turns(run: int) -> list[Any]:
    turns: list[Any] = [
        [function_call("lookup", json.dumps({"key": f"k{i}"}), f"c_{run}_{i}", f"fc_{run}_{i}")]
        for i in range(TURNS - 1)
    ]
    return [*turns, [message("done", f"msg_{run}")]]


async def _run(impl: Impl, agent: Any, model: Any, run: int, config: Any) -> float:
    model.load(_turns(run))
    started = time.perf_counter()
    result = await impl.Runner.run(agent, "go", max_turns=TURNS + 10, run_config=config)
    elapsed = (time.perf_counter() - started) * 1000
    if result.final_output != "done":
        raise RuntimeError(f"unexpected output {result.final_output!r}")
    return elapsed


async def measure(impl: Impl, quick: bool) -> Measured:
    from jupyter_agents import Cassette, RunConfig
    from jupyter_agents.runtime.durable import RunJournal

    model = impl.new_model()
    agent = impl.Agent(
        name="d1",
        instructions="Use the lookup tool.",
        model=model,
        tools=[impl.function_tool(lookup)],
    )
    rounds = 3 if quick else 15
    metrics: dict[str, list[float]] = {
        k: []
        for k in ("plain_ms", "recorded_ms", "durable_ms", "ms_per_step", "saving_ms_per_step")
    }
    with tempfile.TemporaryDirectory() as folder:
        journal = RunJournal(Path(folder) / "runs.sqlite")
        for run in range(rounds + 1):  # the first round warms up
            plain = await _run(impl, agent, model, 3 * run, RunConfig())
            recorded = await _run(
                impl, agent, model, 3 * run + 1, RunConfig(replay=Cassette(mode="record"))
            )
            config = RunConfig(replay=Cassette(mode="record"), durable=journal.begin({"run": run}))
            durable = await _run(impl, agent, model, 3 * run + 2, config)
            if run == 0:
                continue
            metrics["plain_ms"].append(plain)
            metrics["recorded_ms"].append(recorded)
            metrics["durable_ms"].append(durable)
            metrics["ms_per_step"].append((durable - recorded) / TURNS)
            metrics["saving_ms_per_step"].append((durable - plain) / TURNS)
        journal.close()
    return Measured(metrics=metrics, info={"turns": TURNS, "store": "SQLite, WAL"})


if __name__ == "__main__":
    main(WORKLOAD, measure)
