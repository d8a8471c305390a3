"""What a command sandboxed in ``workspace-write`` may not write inside its workspace, asked of
one path: the file-writing tools that run in this process (``apply_patch``) ask a person before
writing there, so no tool writes without a person what the sandbox keeps read-only.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._home import in_read_only_home, writable_home
from ._mounts import PROTECTED, protected_in, python_envs
from ._shadow import planted_by_patch

__all__ = ["kept_read_only", "planted_by_patch"]


def kept_read_only(parts: tuple[str, ...], workspace: str | os.PathLike[str]) -> str | None:
    """Why the sandbox keeps the path ``parts`` below ``workspace`` read-only in
    ``workspace-write`` mode (words that follow the path: "is in ..."), or None when a
    sandboxed command may write it."""
    if any(part in PROTECTED for part in parts):
        return f"is in a folder that stays read-only ({', '.join(PROTECTED)})"
    root = Path(os.path.realpath(workspace))
    path = root.joinpath(*parts)
    protected, _ = protected_in(root)
    for place in protected:
        if path.is_relative_to(place):
            return f"is in {_what(place)}, which stays read-only"
    home = writable_home([root])
    if home is not None and in_read_only_home(str(path), home):
        return (
            "is a new or dot-entry at the top of the home folder, which stays read-only "
            "(startup files live there)"
        )
    return None


def _what(place: Path) -> str:
    if str(place) in python_envs():
        return "a Python environment"
    on_path = os.environ.get("PATH", "").split(os.pathsep)
    if any(entry.startswith("/") and Path(os.path.realpath(entry)) == place for entry in on_path):
        return "a folder on PATH"
    return "a repository's git folder"
