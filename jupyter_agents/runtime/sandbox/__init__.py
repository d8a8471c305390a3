"""Running commands confined by bubblewrap (Linux), the way Codex's sandbox modes describe.

* ``run_sandboxed`` runs one command under a ``SandboxPolicy``: ``read-only`` (nothing
  may be written), ``workspace-write`` (the workspace and a private ``/tmp``; ``.git`` stays
  read-only; no network unless allowed) or ``danger-full-access`` (no sandbox). A sandboxed
  mode without bubblewrap is a ``SandboxUnavailable`` error, never a silent fallback.
* ``is_known_safe`` says whether a shell command line only reads.
* ``is_dangerous`` says whether a shell command line might destroy data (``rm -rf``).
* ``verdict.shell_verdict`` says what happens to a shell call under an approval policy and a
  sandbox mode: it runs, asks a person first or is refused, and where it runs.
"""

from __future__ import annotations

from .bwrap import SandboxMode, SandboxUnavailable, find_bwrap
from .dangerous import is_dangerous
from .run import CommandResult, SandboxPolicy, run_sandboxed, scrubbed_env
from .safety import is_known_safe

__all__ = [
    "CommandResult",
    "SandboxMode",
    "SandboxPolicy",
    "SandboxUnavailable",
    "find_bwrap",
    "is_dangerous",
    "is_known_safe",
    "run_sandboxed",
    "scrubbed_env",
]
