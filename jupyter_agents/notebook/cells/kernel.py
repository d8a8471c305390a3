"""How ``%%agent`` runs inside a kernel: top-level await where the kernel allows it.

ipykernel >= 7.4 handles widget messages while an *async* cell awaits, so an input transformer
rewrites a ``%%agent`` cell into ``await run_agent_cell(line, body)``: Approve / Reject clicks
reach the run while the cell is still running, Run All keeps its order and Interrupt cancels.
Other kernels fall back to the ``%%agent`` cell magic, which runs the agent as a background
task. The kernel tests (``tests/kernel``) check this against a real ipykernel: clicks decide
while the cell runs, Run All waits, Interrupt cancels.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["agent_cell_transformer", "supports_live_cells"]

ENTRY = "jupyter_agents.notebook.cells.cell"


def supports_live_cells(shell: Any) -> bool:
    """Whether this kernel delivers widget messages while an async cell runs."""
    kernel = getattr(shell, "kernel", None)
    if kernel is None or not getattr(shell, "autoawait", False):
        return False
    runner = getattr(shell, "loop_runner", None)
    if runner is not None and "asyncio" not in repr(runner).lower():
        return False
    try:
        return "concurrent" in inspect.signature(kernel.dispatch_shell).parameters
    except (TypeError, ValueError):
        return False


def rewrite(lines: list[str]) -> list[str]:
    """The lines of a ``%%agent`` cell as one top-level ``await`` of the cell runner."""
    line = lines[0][len("%%agent") :].strip()
    body = "".join(lines[1:])
    call = f"__import__({ENTRY!r}, fromlist=['_']).run_agent_cell({line!r}, {body!r})"
    return [f"await {call}\n"]


def agent_cell_transformer(shell: Any) -> Any:
    """An IPython cleanup transformer bound to ``shell``."""

    def transform(lines: list[str]) -> list[str]:
        if not lines or not lines[0].startswith("%%agent"):
            return lines
        if lines[0].strip() != "%%agent" and not lines[0][len("%%agent")].isspace():
            return lines  # some other magic whose name starts with "agent"
        if not supports_live_cells(shell):
            return lines  # the %%agent cell magic handles it (background task)
        return rewrite(lines)

    transform.jupyter_agents = True  # type: ignore[attr-defined]
    return transform
