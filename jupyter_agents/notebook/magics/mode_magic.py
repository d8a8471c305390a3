"""``%agent mode [ask|plan|agent]``: what the notebook's agent runs may do.

The mode is the run's policy (``runtime/modes.py``): ``ask`` offers only tools that change
nothing, ``plan`` adds a plan the person approves before anything changes, ``agent`` (the
default) every tool under the approval and sandbox policies. A cell's ``--mode`` wins for that
cell; the lab extension's status bar shows the notebook's mode and can switch it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["MODE_WORDS", "SWITCH", "mode_magic"]

MODE_WORDS = {
    "ask": "answers from what it can read; nothing in the notebook, files or kernel changes",
    "plan": "reads, then proposes a plan you approve, edit or reject before anything changes",
    "agent": "acts with every tool, under the approval and sandbox policies",
}
"""What each mode means, as ``%agent mode`` says it."""

SWITCH = "%agent mode agent"
"""How a person lets a refused call run (the model is told it)."""


def mode_magic(host: NotebookHost, words: list[str]) -> None:
    """Show the notebook's mode, or set it."""
    if len(words) > 1 or (words and words[0] not in MODE_WORDS):
        raise UsageError("%agent mode [ask|plan|agent]: give one of ask, plan or agent.")
    if words:
        host.check("mode", words[0], "%agent mode")
        host.runs.set_mode(words[0])
    mode = host.runs.mode
    print(f"jupyter_agents: {mode} mode: the agent {MODE_WORDS[mode]}.")
