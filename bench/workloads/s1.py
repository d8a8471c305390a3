"""S1: what the bubblewrap sandbox adds to one shell command (``runtime.sandbox``).

The same command (``true``) runs through ``run_sandboxed`` without a sandbox
(``danger-full-access``: a plain subprocess) and in ``workspace-write`` (bubblewrap: read-only
root, private /tmp, own process and network namespaces), interleaved, after a warm-up. Metrics:
the median time of each, and the sandbox's added latency (the difference of the two medians of
each batch). Ours only: the peer ships no executor or sandbox.
"""

from __future__ import annotations

import statistics
import tempfile
import time

from jupyter_agents.runtime.sandbox import SandboxPolicy, find_bwrap, run_sandboxed

from .._common import Impl, Measured, main

WORKLOAD = "S1"


async def measure(impl: Impl, quick: bool) -> Measured:
    if find_bwrap() is None:
        raise RuntimeError("S1 needs bubblewrap: apt-get install bubblewrap")
    batches, per_batch, warmup = (1, 5, 2) if quick else (5, 30, 10)
    workspace = tempfile.mkdtemp(prefix="bench-s1-")
    plain = SandboxPolicy("danger-full-access", workspace)
    boxed = SandboxPolicy("workspace-write", workspace)
    for _ in range(warmup):
        await run_sandboxed("true", plain)
        await run_sandboxed("true", boxed)
    plain_ms: list[float] = []
    boxed_ms: list[float] = []
    added_ms: list[float] = []
    for _ in range(batches):
        a: list[float] = []
        b: list[float] = []
        for _ in range(per_batch):
            for policy, sink in ((plain, a), (boxed, b)):
                start = time.perf_counter()
                result = await run_sandboxed("true", policy)
                sink.append((time.perf_counter() - start) * 1000)
                if result.exit_code != 0:
                    raise RuntimeError(f"'true' failed under {policy.mode}: {result.stderr}")
        plain_ms += a
        boxed_ms += b
        added_ms.append(statistics.median(b) - statistics.median(a))
    return Measured(
        metrics={"plain_ms": plain_ms, "sandboxed_ms": boxed_ms, "added_ms": added_ms},
        info={"batches": batches, "per_batch": per_batch},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
