"""Finding every ``.git`` (and this project's ``.jupyter_agents`` state folder) under a
writable root before each sandboxed command, cheaply.

A full walk reads every entry of every folder (about 60 ms for 20,000 files). Each folder's
listing is kept with its inode and change time (``ctime``, which no one can set back, unlike
the modification time): on the next command an unchanged folder is not read again, only
``stat``-ed. A folder changed in the last :data:`RACY_SECONDS` is read again every time (its
change time may not move for a second change within the clock's granularity). Each command
reads at most :data:`WALK_CAP` entries afresh; beyond it the walk stops, says so, and the next
command goes on from the folders it has not read yet.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RACY_SECONDS", "SKIPPED", "STATE", "WALK_CAP", "find_git", "forget_walks"]

WALK_CAP = 50_000
"""Folder entries read afresh per command; the rest of the walk waits for the next command."""

RACY_SECONDS = 2.0

STATE = ".jupyter_agents"
"""This project's state folder (a document index, batch results), wherever a store made it."""

SKIPPED = frozenset({".git", STATE, "node_modules", "__pycache__"})
"""Folders the walk does not enter (a repository's insides, our state, installed packages,
caches)."""

_ROOTS_KEPT = 8


@dataclass(frozen=True)
class _Listing:
    stamp: tuple[int, int, int]
    """Device, inode and change time (ns) of the folder when it was read."""
    folders: tuple[str, ...]
    """Names of its subfolders to walk."""
    git: bool
    """It holds a ``.git`` entry (folder, file or symlink)."""
    state: bool = False
    """It holds a ``.jupyter_agents`` folder (not a symlink)."""


_walks: OrderedDict[str, dict[str, _Listing]] = OrderedDict()


def forget_walks() -> None:
    """Drop every remembered listing (the next walks read everything again)."""
    _walks.clear()


def find_git(root: Path, *, skip: Iterable[Path] = ()) -> tuple[list[Path], bool]:
    """Every ``.git`` and :data:`STATE` folder under ``root`` (not following symlinked folders,
    not entering ``skip`` nor :data:`SKIPPED` folders), and whether the walk stopped at
    :data:`WALK_CAP`."""
    known = _walks.pop(str(root), {})
    kept: dict[str, _Listing] = {}
    skipped = {str(path) for path in skip}
    found: list[Path] = []
    budget = WALK_CAP
    incomplete = False
    trusted_before = time.time_ns() - int(RACY_SECONDS * 1e9)
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            info = os.stat(folder, follow_symlinks=False)
        except OSError:
            continue
        stamp = (info.st_dev, info.st_ino, info.st_ctime_ns)
        listing = known.get(folder)
        if listing is None or listing.stamp != stamp:
            if budget <= 0:
                incomplete = True
                continue
            listing, read = _read(folder, stamp)
            budget -= read
        if listing.stamp[2] < trusted_before:
            kept[folder] = listing
        if listing.git:
            found.append(Path(folder, ".git"))
        if listing.state:
            found.append(Path(folder, STATE))
        stack += [p for name in listing.folders if (p := os.path.join(folder, name)) not in skipped]
    _walks[str(root)] = kept
    while len(_walks) > _ROOTS_KEPT:
        _walks.popitem(last=False)
    return found, incomplete


def _read(folder: str, stamp: tuple[int, int, int]) -> tuple[_Listing, int]:
    folders: list[str] = []
    git = state = False
    read = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                read += 1
                if entry.name == ".git":
                    git = True
                elif entry.name == STATE:
                    state = entry.is_dir(follow_symlinks=False)
                elif entry.name not in SKIPPED and entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
    except OSError:
        pass
    return _Listing(stamp, tuple(folders), git, state), read
