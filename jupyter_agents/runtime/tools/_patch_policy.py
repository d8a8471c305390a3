"""Whether a patch may be written without asking, as Codex's ``assess_patch_safety`` decides.

Pure functions, no I/O: where each path of a patch is (inside the workspace, in a protected
folder of it, or outside), then the verdict for the run's approval policy and sandbox mode:

1. ``untrusted``: every patch asks.
2. A patch whose every path is writable in the sandbox mode is written without asking: in
   ``workspace-write`` the workspace but its ``.git`` and ``.jupyter_agents`` folders (at any
   depth), nothing in ``read-only``, anything in ``danger-full-access``.
3. Otherwise ``never`` refuses it (nobody can approve it), and every other policy asks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ..sandbox.bwrap import PROTECTED
from ._patch_format import PatchError

__all__ = ["Location", "PatchVerdict", "assess_patch", "leaves_workspace", "locate"]


@dataclass(frozen=True)
class Location:
    """Where a patch path points, read without touching the file system."""

    absolute: tuple[str, ...]
    """The normalised absolute path's parts (``..`` taken away, as Codex does)."""
    inside: tuple[str, ...] | None
    """The parts below the workspace (None: not in it)."""

    @property
    def protected(self) -> bool:
        """In a folder that stays read-only in the sandbox (``.git``, ``.jupyter_agents``)."""
        return self.inside is not None and any(part in PROTECTED for part in self.inside)


def _normal(parts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if out:
                out.pop()
            continue
        out.append(part)
    return out


def locate(path: str, workspace: str | os.PathLike[str]) -> Location:
    """Where ``path`` (relative to ``workspace``, or absolute) points. Backslashes read as
    ``/`` (as the SDK reads them).

    Raises:
        PatchError: The path is empty, holds a NUL or text that is not valid Unicode, or names
            the workspace folder itself.
    """
    if not path or not path.strip() or "\x00" in path:
        raise PatchError("Every operation needs the path of a file in the workspace.")
    if any("\ud800" <= c <= "\udfff" for c in path):
        raise PatchError(f"The path {path!r} is not valid Unicode text.")
    text = path.replace("\\", "/")
    root = _normal(PurePosixPath(os.path.abspath(workspace)).parts[1:])
    given = PurePosixPath(text)
    parts = _normal(given.parts[1:] if given.is_absolute() else [*root, *given.parts])
    if not parts or parts == root:
        raise PatchError(f"{path!r} names a folder, not a file.")
    inside = tuple(parts[len(root) :]) if parts[: len(root)] == root else None
    return Location(tuple(parts), inside)


def leaves_workspace(path: str) -> bool:
    """Whether ``path`` may point outside the workspace or into a protected folder of it,
    read without knowing where the workspace is: absolute, climbing out with ``..``, or
    through ``.git`` or ``.jupyter_agents``."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if parts and parts[0] == "/":
        return True
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 0 if part in ("", ".") else 1
        if depth < 0 or part in PROTECTED:
            return True
    return False


Decision = Literal["write", "ask", "refuse"]


@dataclass(frozen=True)
class PatchVerdict:
    """What happens to a patch before anyone is asked."""

    decision: Decision
    """``write`` without asking, ``ask`` a person, or ``refuse`` (nobody may approve it)."""
    confined: bool
    """Every path is writable in the sandbox mode (what may be written without a person)."""
    reason: str
    """Why it asks or is refused (empty when it writes)."""


def _unwritable(path: str, workspace: str, mode: str) -> str | None:
    """Why ``path`` is not writable in ``mode`` without a person (None: it is)."""
    if mode == "danger-full-access":
        return None
    if mode == "read-only":
        return "the sandbox is read-only"
    try:
        where = locate(path, workspace)
    except PatchError:
        return None  # the editor refuses it with the reason
    if where.inside is None:
        return f"{path!r} is outside the workspace"
    if where.protected:
        return f"{path!r} is in a folder that stays read-only ({', '.join(PROTECTED)})"
    return None


def assess_patch(
    paths: Sequence[str], approval: str, mode: str, workspace: str | os.PathLike[str]
) -> PatchVerdict:
    """The verdict for a patch changing ``paths`` (moves give both paths) under the approval
    policy ``approval`` and the sandbox ``mode``, with the run's ``workspace``."""
    if not paths:
        return PatchVerdict("refuse", False, "the patch changes no file")
    root = os.fspath(workspace)
    reasons = [r for r in (_unwritable(p, root, mode) for p in paths) if r is not None]
    reason = "; ".join(dict.fromkeys(reasons))
    confined = not reasons
    if approval == "untrusted":
        return PatchVerdict("ask", confined, reason or "the approval policy is 'untrusted'")
    if confined:
        return PatchVerdict("write", True, "")
    return PatchVerdict("refuse" if approval == "never" else "ask", False, reason)
