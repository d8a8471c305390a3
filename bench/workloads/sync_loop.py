"""SYNC: ``Runner.run_sync`` called inside a running event loop (as in a notebook cell).

Metric ``works``: 1 when the call returns the expected result, 0 when it raises (the error is
kept in ``info``). ``wall_ms`` is how long the successful call took.
"""

from __future__ import annotations

import time

from .._common import Impl, Measured, main
from ..scripted import message

WORKLOAD = "SYNC"


async def measure(impl: Impl, quick: bool) -> Measured:
    model = impl.new_model()
    agent = impl.Agent(name="sync", instructions="Answer.", model=model)
    model.load([[message("ok", "msg_0")]])
    info: dict[str, str] = {}
    start = time.perf_counter()
    try:
        result = impl.Runner.run_sync(agent, "hi")  # blocks this loop, on purpose
        works = result.final_output == "ok"
    except Exception as e:
        works = False
        info["error"] = f"{type(e).__name__}: {e}"
    wall = (time.perf_counter() - start) * 1000
    metrics = {"works": [1.0 if works else 0.0]}
    if works:
        metrics["wall_ms"] = [wall]
    return Measured(metrics=metrics, info=info)


if __name__ == "__main__":
    main(WORKLOAD, measure)
