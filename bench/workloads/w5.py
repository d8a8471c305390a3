"""W5: import time in a fresh interpreter.

Each sample is the wall time of a new ``python -c`` process (the same interpreter), measured
from outside, bytecode caches warm (one untimed process first):

- ``import_s``: ``import jupyter_agents`` (ours) or ``import agents`` (peer).
- ``import_api_s``: importing what a first cell needs: ``Agent``, ``Runner`` and the tool
  decorator (ours loads its runtime lazily on first attribute access).
- ``bare_python_s``: ``python -c pass`` (the floor, the same for both).

``%load_ext jupyter_agents`` in a fresh kernel is measured by N1 (``bench/workloads/n1.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from .._common import Impl, Measured, main

WORKLOAD = "W5"

STATEMENTS = {
    "ours": (
        "import jupyter_agents",
        "from jupyter_agents import Agent, Runner, tool",
    ),
    "peer": (
        "import agents",
        "from agents import Agent, Runner, function_tool",
    ),
}


def _wall(code: str) -> float:
    env = dict(os.environ, OPENAI_API_KEY="sk-bench")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # warm bytecode caches are part of the setup
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def measure(impl: Impl, quick: bool) -> Measured:
    repeats = 2 if quick else 5
    bare_code, (plain, api) = "pass", STATEMENTS[impl.name]
    for code in (plain, api):
        _wall(code)  # compile bytecode, warm the page cache
    metrics: dict[str, list[float]] = {"import_s": [], "import_api_s": [], "bare_python_s": []}
    for _ in range(repeats):
        metrics["import_s"].append(_wall(plain))
        metrics["import_api_s"].append(_wall(api))
        metrics["bare_python_s"].append(_wall(bare_code))
    return Measured(metrics=metrics, info={"statements": [plain, api], "repeats": repeats})


if __name__ == "__main__":
    main(WORKLOAD, measure)
