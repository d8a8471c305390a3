"""``%agent context [on|off]``: the project's AGENTS.md files the notebook agent's instructions
hold (``runtime/project/agents_md.py``), or turn them on or off for this notebook."""

from __future__ import annotations

from typing import TYPE_CHECKING

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..host import NotebookHost

__all__ = ["context_magic"]


def context_magic(host: NotebookHost, words: list[str]) -> None:
    """List the files in use, or switch them on or off."""
    if len(words) > 1 or (words and words[0] not in ("on", "off")):
        raise UsageError("%agent context [on|off]: give on or off, or nothing to list the files.")
    if words:
        host.check("context", words[0] == "on", "%agent context")
        host.use_context = words[0] == "on"
    if not host.use_context:
        print("jupyter_agents: AGENTS.md files are off for this notebook (%agent context on).")
        return
    from ...runtime.project.agents_md import project_instructions

    found = project_instructions()
    print(f"jupyter_agents: the project's root is {found.root}")
    if not found.files:
        print("No AGENTS.md applies here (put one in the project's root or in this folder).")
    for file in found.files:
        size = len(file.text.encode("utf-8"))
        cut = " (cut at the size limit)" if file.cut else ""
        print(f"  {found.name(file)}: {size:,} bytes{cut}")
    for line in found.skipped:
        print(f"  not used: {line}")
