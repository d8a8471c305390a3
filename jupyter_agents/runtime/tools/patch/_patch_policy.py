"""Whether a patch may be written without asking, as Codex's ``assess_patch_safety`` decides.

Where each path of a patch is (inside the workspace, in a place the sandbox keeps read-only, or
outside), then the verdict for the run's approval policy and sandbox mode:

1. ``untrusted``: every patch asks.
2. A patch whose every path is writable in the sandbox mode is written without asking: in
   ``workspace-write`` what a sandboxed command may write (the workspace but every ``.git``
   and ``.jupyter_agents`` at any depth, the git folders those point to, Python environments,
   folders on ``PATH``, and, when the workspace holds the home folder, its startup files; see
   ``kept_read_only``), nothing in
   ``read-only``, anything in ``danger-full-access``. A file Python would import instead of
   an installed module (``pandas.py`` in a notebook's folder; see
   ``_shadow``) is not written without asking either.
3. Otherwise ``never`` refuses it (nobody can approve it), and every other policy asks.

Reading where a path is, is pure; what the sandbox keeps read-only is found on disk, as the
sandbox finds it before each command.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from ...sandbox.bwrap import PROTECTED
from ...sandbox.writable import kept_read_only, planted_by_patch
from ._patch_format import PatchError

__all__ = [
    "Location",
    "PatchVerdict",
    "assess_patch",
    "leaves_sandbox",
    "leaves_workspace",
    "locate",
]


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
    why = kept_read_only(where.inside, workspace)
    if why is None:
        why = planted_by_patch(where.inside, Path(os.path.realpath(workspace)))
    return None if why is None else f"{path!r} {why}"


def leaves_sandbox(path: str, workspace: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is outside what a command sandboxed in ``workspace-write`` with
    ``workspace`` may write (a malformed path counts as outside)."""
    try:
        locate(path, workspace)
    except PatchError:
        return True
    return _unwritable(path, os.fspath(workspace), "workspace-write") is not None


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
