"""B1: a batch of rows, each one model call with a fixed latency (a stand-in model that waits
200 ms, as a real one does), at a fixed concurrency.

Wall time against the ideal ``rows x latency / concurrency``, the memory of the process along
the way (resident size after 10 %, 50 % and 100 % of the rows: flat means no per-row growth
beyond the results), and the framework's cost per row (the process's CPU time over the rows:
the rows' latencies overlap, so wall time per row says nothing about it). Then
the same on a local Ray instance (``ray.init(num_cpus=2)``, its workers up before timing, as a
user's cluster is), when Ray is installed, with the time until the first row came back (starting
the actors: new processes importing the runtime) apart; then a second batch of the same rows on
the actors the first one kept warm (``ray_keep_warm=True``). Ours only: the peer has no batch
runner.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from typing import Any

from jupyter_agents import Agent, arun_batch, release_ray_actors
from jupyter_agents.runtime.items import ModelResponse
from jupyter_agents.runtime.models._responses_build import message_item
from jupyter_agents.runtime.models.interface import ModelRequest, RequestModel

from .._common import Impl, Measured, main

WORKLOAD = "B1"
LATENCY = 0.2


class Waiting(RequestModel):
    """Answers every request after ``latency`` seconds, as a remote model would."""

    def __init__(self, latency: float) -> None:
        self.latency = latency

    async def respond(self, request: ModelRequest) -> ModelResponse:
        await asyncio.sleep(self.latency)
        return ModelResponse(output=[message_item("label", "msg_1")])

    async def stream(self, request: ModelRequest) -> Any:
        raise NotImplementedError
        yield  # pragma: no cover


def _ready() -> bool:
    return True


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class _Memory:
    """Progress that samples the resident size at 10 %, 50 % and 100 % of the rows."""

    def __init__(self, total: int) -> None:
        self.marks = {
            max(1, total // 10): "rss_10_mib",
            total // 2: "rss_50_mib",
            total: "rss_100_mib",
        }
        self.samples: dict[str, float] = {}
        self.done = 0
        self.cpu_ms_per_row = 0.0
        self.started = 0.0
        self.first_done = 0.0

    def start(self, total: int, done: list[Any]) -> None:
        self.started = time.perf_counter()

    def row_started(self, index: int) -> None:
        pass

    def row_done(self, index: int, row: Any) -> None:
        self.done += 1
        if self.done == 1:
            self.first_done = time.perf_counter()
        name = self.marks.get(self.done)
        if name is not None:
            self.samples[name] = _rss_mib()

    def finish(self, seconds: float, stopped: bool) -> None:
        pass


async def _one_batch(
    rows: int, concurrency: int, backend: str, keep_warm: bool = False
) -> tuple[float, _Memory]:
    os.chdir(tempfile.mkdtemp(prefix="bench-b1-"))
    agent = Agent(name="b1", model=Waiting(LATENCY))
    memory = _Memory(rows)
    started = time.perf_counter()
    cpu = time.process_time()
    result = await arun_batch(
        agent,
        [f"row {i}" for i in range(rows)],
        concurrency=concurrency,
        backend=backend,  # type: ignore[arg-type]
        progress=memory,
        fresh=True,
        ray_keep_warm=keep_warm,
    )
    wall = time.perf_counter() - started
    memory.cpu_ms_per_row = (time.process_time() - cpu) * 1000 / rows
    if result.counts != {"ok": rows}:
        raise RuntimeError(f"B1: the batch did not finish cleanly: {result.counts}")
    return wall, memory


async def measure(impl: Impl, quick: bool) -> Measured:
    rows, concurrency = (200, 32) if quick else (10_000, 64)
    ideal = rows * LATENCY / concurrency
    wall, memory = await _one_batch(rows, concurrency, "local")
    metrics: dict[str, list[float]] = {
        "wall_s": [wall],
        "ideal_s": [ideal],
        "wall_over_ideal_pct": [(wall / ideal - 1) * 100],
        "cpu_ms_per_row": [memory.cpu_ms_per_row],
        **{name: [value] for name, value in memory.samples.items()},
    }
    ray: Any
    try:
        import ray
    except ImportError:
        ray = None
    if ray is not None:
        ray_rows = rows if not quick else 100
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            ready = ray.remote(_ready)
            ray.get([ready.remote() for _ in range(2)])  # a cluster that is up, as a user's is
            ray_wall, ray_memory = await _one_batch(ray_rows, concurrency, "ray", keep_warm=True)
            warm_wall, _ = await _one_batch(ray_rows, concurrency, "ray", keep_warm=True)
        finally:
            release_ray_actors()
            ray.shutdown()
        ray_ideal = ray_rows * LATENCY / concurrency
        # Starting the actors (new processes importing the runtime) is a fixed cost; after it
        # the rows flow at the rate Ray's calls allow.
        startup = ray_memory.first_done - ray_memory.started - LATENCY
        metrics["ray_wall_s"] = [ray_wall]
        metrics["ray_wall_over_ideal_pct"] = [(ray_wall / ray_ideal - 1) * 100]
        metrics["ray_startup_s"] = [startup]
        metrics["ray_after_startup_over_ideal_pct"] = [((ray_wall - startup) / ray_ideal - 1) * 100]
        metrics["ray_warm_wall_s"] = [warm_wall]
        metrics["ray_warm_wall_over_ideal_pct"] = [(warm_wall / ray_ideal - 1) * 100]
    return Measured(metrics=metrics, info={"rows": rows, "concurrency": concurrency})


if __name__ == "__main__":
    main(WORKLOAD, measure)
