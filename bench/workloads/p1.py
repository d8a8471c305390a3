"""P1: applying a patch to a large file (``apply_diff``, the V4A diff of a Responses
``apply_patch_call``), ours against the SDK's.

Two files: **spread** is 1,000,000 distinct lines of code-like text and a 12 KB patch of 55
hunks (three lines of context, one changed line) in its last tenth; **repetitive** is 200,000
identical lines and one hunk of 400 context lines whose match is at the very end and needs the
trailing-whitespace pass (the worst case for a search that compares the block at every position:
lines x block length per pass). Metrics: seconds per ``apply_diff`` call of each. The results
must agree, or the workload fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .._common import Impl, Measured, main, profiled, settle

WORKLOAD = "P1"


def _spread(lines: int, hunks: int) -> tuple[str, str]:
    text = [f"    value_{i} = compute({i % 977}, 'item {i}')" for i in range(lines)]
    diff = []
    first = lines - lines // 10
    step = max(4, (lines - first) // hunks)
    for h in range(hunks):
        at = first + h * step
        diff += ["@@", *(f" {text[at + k]}" for k in range(3)), f"-{text[at + 3]}"]
        diff.append(f"+    value_{at + 3} = patched({h})")
    return "\n".join(text) + "\n", "\n".join(diff) + "\n"


def _repetitive(lines: int, context: int) -> tuple[str, str]:
    text = "x = 1  \n" * lines + "y = 2\n"
    diff = "@@\n" + " x = 1\n" * context + "-y = 2\n+y = 3\n"
    return text, diff


def _timed(apply: Callable[..., str], text: str, diff: str, rounds: int) -> tuple[list[float], str]:
    samples = []
    out = ""
    for _ in range(rounds):
        settle()
        start = time.perf_counter()
        with profiled():
            out = apply(text, diff)
        samples.append(time.perf_counter() - start)
    return samples, out


def measure(impl: Impl, quick: bool) -> Measured:
    apply: Any
    if impl.name == "ours":
        from jupyter_agents import apply_diff as apply
    else:
        from agents import apply_diff as apply
    rounds = 1 if quick else 3
    spread = _spread(20_000 if quick else 1_000_000, 10 if quick else 55)
    repetitive = _repetitive(2_000 if quick else 200_000, 40 if quick else 400)
    spread_s, out = _timed(apply, *spread, rounds)
    if out.count("patched(") != (10 if quick else 55):
        raise RuntimeError("P1: the spread patch did not apply every hunk")
    repetitive_s, out = _timed(apply, *repetitive, rounds)
    if not out.endswith("x = 1  \ny = 3\n"):
        raise RuntimeError("P1: the repetitive patch did not apply")
    return Measured(
        metrics={"spread_1m_s": spread_s, "repetitive_200k_s": repetitive_s},
        info={"spread_bytes": len(spread[1]), "repetitive_bytes": len(repetitive[1])},
    )


if __name__ == "__main__":
    main(WORKLOAD, measure)
