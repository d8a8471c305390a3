"""``%agent resume [RUN | list]``: go on with a run cut off by a crash or a kernel restart.

Every ``%%agent`` run is saved after each step (``runtime/durable``). After a restart, run the
cells that define the agent's tools and model again, then ``%agent resume``: the run's card
streams in that cell, the saved steps replay (no model request, no finished tool call runs
again) and the run goes live where it was cut off. A call that was running when the kernel
stopped is asked about first. The cell returns a handle on the run, as ``--background`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["cut_off_banner", "resume_magic"]

USAGE = "Usage: %agent resume [RUN | list]"


def resume_magic(host: NotebookHost, words: list[str]) -> Any:
    """Resume the one run cut off (or ``words[0]``, a run id's start); ``list`` lists them."""
    if len(words) > 1:
        raise UsageError(USAGE)
    runs = host.cut_off()
    if not runs:
        print("jupyter_agents: no run to resume: none was cut off in this folder.")
        return None
    if words == ["list"] or (not words and len(runs) > 1):
        print("jupyter_agents: runs cut off before they ended (%agent resume RUN):")
        for run in runs:
            print(f"  {run.describe()}")
        return None
    chosen = [r for r in runs if not words or r.run_id.startswith(words[0])]
    if len(chosen) != 1:
        raise UsageError(f"%agent resume: no single run starts with {words[0]!r}. {USAGE}")
    from ..cells.cell import resume_cut_off

    return resume_cut_off(host, chosen[0])


def cut_off_banner(host: NotebookHost) -> str | None:
    """The line ``%load_ext`` prints when runs of this folder were cut off (each is listed
    for the runs panel, whose Resume runs ``%agent resume RUN`` below its cell)."""
    runs = host.cut_off()
    if not runs:
        return None
    for run in runs:
        cell = str(run.meta.get("cell") or "")
        host.runs.cut_off(run.run_id, cell, str(run.meta.get("agent") or "notebook"), run.started)
    what = "1 run was" if len(runs) == 1 else f"{len(runs)} runs were"
    return (
        f"jupyter_agents: {what} cut off by a kernel restart or crash; define the agent's "
        "tools and model again, then %agent resume continues "
        + ("it" if len(runs) == 1 else "one (%agent resume list)")
        + "."
    )
