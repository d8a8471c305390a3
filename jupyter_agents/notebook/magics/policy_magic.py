"""``%agent policy``: the notebook's approval policy and sandbox for tools that run commands.

``%agent policy`` shows it; ``%agent policy on-request workspace-write --workspace data
--network`` changes it (words in any order; what is not named stays); ``%agent policy reset``
goes back to the defaults. Every ``%%agent`` run then gets it in its ``RunConfig``; a tool's own
settings still win.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from IPython.core.error import UsageError

__all__ = ["NotebookPolicy", "policy_magic"]

USAGE = (
    "%agent policy [reset] [untrusted | on-request | on-failure | never] "
    "[read-only | workspace-write | danger-full-access] [--workspace PATH] "
    "[--network | --no-network]"
)


@dataclass
class NotebookPolicy:
    """The settings ``%agent policy`` keeps; None: the default (or the tool's own)."""

    approval_policy: str | None = None
    sandbox_mode: str | None = None
    workspace: str | None = None
    network_access: bool | None = None

    def run_config_fields(self) -> dict[str, Any]:
        """The settings to pass to ``RunConfig``, those that are set."""
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}

    def describe(self) -> str:
        """One line, e.g. ``approval untrusted · sandbox workspace-write · ...``."""
        from ...runtime.sandbox.policy import DEFAULT_APPROVAL, DEFAULT_MODE

        workspace = self.workspace or f"{os.getcwd()} (the current folder)"
        network = "on" if self.network_access else "off"
        return (
            f"approval {self.approval_policy or DEFAULT_APPROVAL} · sandbox "
            f"{self.sandbox_mode or DEFAULT_MODE} · workspace {workspace} · network {network}"
        )


def policy_magic(
    policy: NotebookPolicy,
    words: list[str],
    check: Callable[[str, Any, str], None] = lambda name, value, where: None,
    base: NotebookPolicy | None = None,
) -> None:
    """Apply ``%agent policy WORDS`` to ``policy`` and print the result (or a warning);
    ``check`` refuses what the site's locks do not allow, ``base`` is what ``reset`` goes back
    to (the settings files' policy)."""
    from ...runtime.sandbox import find_bwrap
    from ...runtime.sandbox.bwrap import MODES
    from ...runtime.sandbox.policy import APPROVAL_POLICIES, DEFAULT_APPROVAL, DEFAULT_MODE

    reset = words[:1] == ["reset"]
    changed = NotebookPolicy(**(base or NotebookPolicy()).__dict__ if reset else policy.__dict__)
    rest = list(words[1:] if reset else words)
    while rest:
        word = rest.pop(0)
        if word in APPROVAL_POLICIES:
            changed.approval_policy = word
        elif word in MODES:
            changed.sandbox_mode = word
        elif word in ("--network", "--no-network"):
            changed.network_access = word == "--network"
        elif word == "--workspace":
            if not rest:
                raise UsageError("%agent policy --workspace: give a folder.")
            folder = Path(rest.pop(0)).expanduser().resolve()
            if not folder.is_dir():
                raise UsageError(f"%agent policy --workspace: {str(folder)!r} is not a folder.")
            changed.workspace = str(folder)
        else:
            raise UsageError(f"%agent policy: unknown word {word!r}. Usage: {USAGE}")
    check("approval_policy", changed.approval_policy or DEFAULT_APPROVAL, "%agent policy")
    check("sandbox_mode", changed.sandbox_mode or DEFAULT_MODE, "%agent policy")
    check("network_access", bool(changed.network_access), "%agent policy")
    policy.__dict__.update(changed.__dict__)
    print(f"jupyter_agents: {policy.describe()}")
    mode = policy.sandbox_mode or DEFAULT_MODE
    if mode != "danger-full-access" and find_bwrap() is None:
        print(
            "jupyter_agents: bubblewrap is not installed, so sandboxed commands will stop with "
            "an error: install it (apt-get install bubblewrap) or choose danger-full-access."
        )
