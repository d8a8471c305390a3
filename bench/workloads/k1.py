"""K1: the code interpreter's round trip (``KernelCodeInterpreter``'s ``ManagedKernel``).

``1+1`` on a warm kernel through ``ManagedKernel.run`` (sandboxed: bubblewrap, workspace-write,
Unix sockets; called from another event loop, as a run is) against the same code sent straight
with ``jupyter_client`` to a plain kernel on the same machine (the kernel's own time, the floor).
Metrics: each median, the overhead ours adds (difference of the medians per batch), and the
first call including the kernel's start. Ours only: the peer has no local code interpreter.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from jupyter_agents.runtime.kernels import ManagedKernel
from jupyter_agents.runtime.sandbox import SandboxPolicy, find_bwrap

from .._common import Impl, Measured, main

WORKLOAD = "K1"


async def _raw_kernel() -> tuple[object, object]:
    from jupyter_client.manager import AsyncKernelManager

    km = AsyncKernelManager(kernel_name="python3")
    await km.start_kernel()
    kc = km.client()
    kc.start_channels()
    await kc.wait_for_ready(timeout=60)
    return km, kc


async def _raw_round_trip(kc: object) -> float:
    start = time.perf_counter()
    reply = await kc.execute_interactive("1+1", timeout=30, output_hook=lambda msg: None)  # type: ignore[attr-defined]
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"1+1 failed on the plain kernel: {reply['content']}")
    return (time.perf_counter() - start) * 1000


async def measure(impl: Impl, quick: bool) -> Measured:
    if find_bwrap() is None:
        raise RuntimeError("K1 needs bubblewrap: apt-get install bubblewrap")
    batches, per_batch, warmup = (1, 5, 3) if quick else (5, 40, 20)
    session = ManagedKernel(SandboxPolicy("workspace-write", Path(tempfile.mkdtemp())))
    start = time.perf_counter()
    first = await session.run("1+1", 60)
    first_ms = (time.perf_counter() - start) * 1000
    if first.output != "2\n":
        raise RuntimeError(f"1+1 gave {first.output!r}")
    km, kc = await _raw_kernel()
    try:
        for _ in range(warmup):
            await session.run("1+1", 30)
            await _raw_round_trip(kc)
        ours_ms: list[float] = []
        raw_ms: list[float] = []
        added_ms: list[float] = []
        for _ in range(batches):
            a: list[float] = []
            b: list[float] = []
            for _ in range(per_batch):
                started = time.perf_counter()
                await session.run("1+1", 30)
                a.append((time.perf_counter() - started) * 1000)
                b.append(await _raw_round_trip(kc))
            ours_ms += a
            raw_ms += b
            added_ms.append(statistics.median(a) - statistics.median(b))
    finally:
        kc.stop_channels()  # type: ignore[attr-defined]
        await km.shutdown_kernel(now=True)  # type: ignore[attr-defined]
        await session.shutdown()
    return Measured(
        metrics={
            "first_ms": [first_ms],
            "ours_ms": ours_ms,
            "raw_ms": raw_ms,
            "added_ms": added_ms,
        },
        info={"batches": batches, "per_batch": per_batch},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
