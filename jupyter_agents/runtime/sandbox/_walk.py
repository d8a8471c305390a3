"""Finding every ``.git`` (and this project's ``.jupyter_agents`` state folder) under a
writable root before each sandboxed command, and the files Python could import by name (for
``._shadow``, after it), cheaply.

A full walk reads every entry of every folder (about 60 ms for 20,000 files). Each folder's
listing is kept with its inode and change time (``ctime``, which no one can set back, unlike
the modification time): on the next command an unchanged folder is not read again, only
``stat``-ed. A folder changed in the last ``RACY_SECONDS`` is read again every time (its
change time may not move for a second change within the clock's granularity). Each command
reads at most ``WALK_CAP`` entries afresh; beyond it the walk stops, says so, and the next
command goes on from the folders it has not read yet.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.machinery import all_suffixes
from pathlib import Path

__all__ = [
    "RACY_SECONDS",
    "SKIPPED",
    "STATE",
    "WALK_CAP",
    "find_git",
    "forget_walks",
    "module_name",
    "walk",
]

WALK_CAP = 50_000
"""Folder entries read afresh per command; the rest of the walk waits for the next command."""

RACY_SECONDS = 2.0

STATE = ".jupyter_agents"
"""This project's state folder (a document index, batch results), wherever a store made it."""

SKIPPED = frozenset({".git", STATE, "node_modules", "__pycache__"})
"""Folders the walk does not enter (a repository's insides, our state, installed packages,
caches)."""

_ROOTS_KEPT = 8
_SUFFIXES = frozenset(all_suffixes())  # ".py", ".pyc", ".cpython-311-x86_64-linux-gnu.so", ...


def module_name(file_name: str) -> str | None:
    """The module a file of this name is imported as (``json.py``, ``json.pyc`` and
    ``json.cpython-311-x86_64-linux-gnu.so`` are ``json``), or None."""
    dot = file_name.find(".")
    if dot <= 0 or file_name[dot:] not in _SUFFIXES:
        return None
    stem = file_name[:dot]
    return stem if stem.isidentifier() else None


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
    modules: tuple[tuple[str, str], ...] = ()
    """Entries Python could import by name, with that name: module files (``x.py``,
    ``x.pyc``, extensions) and links (to a file or a folder), ``__init__`` files aside."""
    init: str = ""
    """The name of its ``__init__`` module file, if it has one (a regular package)."""
    notebook: bool = False
    """It holds a notebook (a kernel may be started in it)."""


_walks: OrderedDict[str, dict[str, _Listing]] = OrderedDict()


def forget_walks() -> None:
    """Drop every remembered listing (the next walks read everything again)."""
    _walks.clear()


def find_git(root: Path, *, skip: Iterable[Path] = ()) -> tuple[list[Path], bool]:
    """Every ``.git`` and ``STATE`` folder under ``root`` (not following symlinked folders,
    not entering ``skip`` nor ``SKIPPED`` folders), and whether the walk stopped at
    ``WALK_CAP``."""
    listings, incomplete = walk(root, skip=skip)
    found: list[Path] = []
    for folder, listing in listings.items():
        if listing.git:
            found.append(Path(folder, ".git"))
        if listing.state:
            found.append(Path(folder, STATE))
    return found, incomplete


def walk(root: Path, *, skip: Iterable[str | Path] = ()) -> tuple[dict[str, _Listing], bool]:
    """The listing of every folder under ``root`` that ``find_git`` walks, by path, and
    whether the walk stopped at ``WALK_CAP`` (folders not read yet are left out)."""
    known = _walks.pop(str(root), {})
    kept: dict[str, _Listing] = {}
    skipped = {str(path) for path in skip}
    listings: dict[str, _Listing] = {}
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
        listings[folder] = listing
        stack += [p for name in listing.folders if (p := os.path.join(folder, name)) not in skipped]
    _walks[str(root)] = kept
    while len(_walks) > _ROOTS_KEPT:
        _walks.popitem(last=False)
    return listings, incomplete


def _read(folder: str, stamp: tuple[int, int, int]) -> tuple[_Listing, int]:
    folders: list[str] = []
    modules: list[tuple[str, str]] = []
    git = state = notebook = False
    init = ""
    read = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                read += 1
                name = entry.name
                if name == ".git":
                    git = True
                elif name == STATE:
                    state = entry.is_dir(follow_symlinks=False)
                elif entry.is_dir(follow_symlinks=False):
                    if name not in SKIPPED:
                        folders.append(name)
                elif (module := module_name(name)) == "__init__":
                    init = name
                elif module is not None:
                    modules.append((name, module))
                elif name.isidentifier() and entry.is_symlink():
                    modules.append((name, name))
                elif name.endswith(".ipynb"):
                    notebook = True
    except OSError:
        pass
    listing = _Listing(stamp, tuple(folders), git, state, tuple(modules), init, notebook)
    return listing, read
