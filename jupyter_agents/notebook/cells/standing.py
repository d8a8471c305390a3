"""Decisions that stand "always for this notebook": a person ticks it on an approval card, and
every later call of that tool, in any run of this kernel, is decided the same way without
asking (the card says so). Calls that are decided alone (leaving the sandbox, a dangerous
command, restarting the kernel) are never covered. ``%agent approvals`` lists them and
``%agent approvals forget [TOOL]`` drops them; a kernel restart forgets them all.
"""

from __future__ import annotations

import threading

from IPython.core.error import UsageError

__all__ = ["StandingApprovals", "approvals_magic"]


class StandingApprovals:
    """The notebook's standing decisions, by tool name (thread-safe: clicks arrive on any
    thread)."""

    def __init__(self) -> None:
        self._approved: dict[str, bool] = {}
        self._lock = threading.Lock()

    def get(self, tool: str) -> bool | None:
        """Whether calls of ``tool`` are approved (True) or rejected (False); None: ask."""
        with self._lock:
            return self._approved.get(tool)

    def remember(self, tool: str, approved: bool) -> None:
        with self._lock:
            self._approved[tool] = approved

    def forget(self, tool: str | None = None) -> list[str]:
        """Drop one tool's decision (or all); the names dropped."""
        with self._lock:
            names = [tool] if tool is not None and tool in self._approved else []
            if tool is None:
                names = list(self._approved)
            for name in names:
                del self._approved[name]
            return names

    def rows(self) -> list[tuple[str, bool]]:
        with self._lock:
            return sorted(self._approved.items())


def approvals_magic(standing: StandingApprovals, words: list[str]) -> None:
    """``%agent approvals``: list the standing decisions; ``forget [TOOL]`` drops them."""
    if words[:1] == ["forget"] and len(words) <= 2:
        gone = standing.forget(words[1] if len(words) == 2 else None)
        if len(words) == 2 and not gone:
            raise UsageError(f"%agent approvals forget: no decision stands for {words[1]!r}.")
        print(f"jupyter_agents: calls of {', '.join(gone) or 'no tool'} will be asked again")
    elif words:
        raise UsageError("%agent approvals [forget [TOOL]]")
    elif not standing.rows():
        print(
            'No decision stands for this notebook: tick "in this notebook" beside '
            '"always for this tool" on an approval card.'
        )
    else:
        for tool, approved in standing.rows():
            print(f"{tool}: {'approved' if approved else 'rejected'} always in this notebook")
