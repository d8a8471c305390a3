"""Files a sandboxed command leaves where Python would import them instead of installed modules.

Python looks in the folder of the script it runs, and a kernel in its working folder, before
the installed packages: a ``pandas.py`` in a notebook's folder is what ``import pandas`` gets,
and an ``ipykernel_launcher.py`` there is what Jupyter runs to start the next kernel in that
folder. Either would then run outside the sandbox, with the person's rights. A bind mount
cannot keep a name from being made, so after each command in ``workspace-write`` (and each
execution of the sandboxed code interpreter) every module file, package or link in the
workspace that is named like an installed module and was made or changed since the command
began is renamed to ``NAME.blocked``, and the command's output says so.

"Since the command began" is read from the change time (``ctime``, which nobody can set back)
against a stamp taken on the workspace's own file system just before, so a network file
system's clock counts the same way on both sides. Left alone: what was there before, and
modules inside a regular package that existed before the command, in a folder without a
notebook (its own modules, like ``mylib/json.py``), unless it is ``ipykernel_launcher``.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time
from importlib.machinery import BuiltinImporter, FrozenImporter, PathFinder
from pathlib import Path
from typing import NamedTuple

from .._util import make_state_folder
from ..nofollow import open_folder
from ._home import under
from ._mounts import python_envs
from ._walk import STATE, module_name, walk

__all__ = [
    "BLOCKED",
    "LAUNCHER",
    "UNUSED",
    "Blocked",
    "begin",
    "block_planted",
    "blocked_note",
    "planted_by_patch",
    "shadowed",
]

logger = logging.getLogger("jupyter_agents.sandbox")

BLOCKED = ".blocked"
"""What a planted module's name gets at its end (no longer importable)."""

UNUSED = frozenset({"test"})
"""Installed modules nothing imports but their own runner (the standard library's regression
tests): a ``test.py`` of one's own is fine."""

LAUNCHER = "ipykernel_launcher"
"""What Jupyter runs, by module name, to start a Python kernel in a folder."""


def begin(workspace: Path) -> int:
    """A stamp of the workspace file system's clock (ns), taken before a command starts."""
    state = os.path.join(workspace, STATE)  # plain strings: this runs for every command
    try:
        if not os.path.lexists(state):
            make_state_folder(Path(state))
        os.utime(state, follow_symlinks=False)
        return os.lstat(state).st_ctime_ns
    except OSError:  # a read-only workspace: this machine's clock, a little early
        return time.time_ns() - 1_000_000_000


def shadowed(name: str, workspace: Path) -> bool:
    """Whether a module ``name`` in ``workspace`` would be imported instead of an installed
    one (the standard library, site-packages) by a Python started in its folder."""
    return _shadows(name, _elsewhere(tuple(sys.path), str(workspace)))


@functools.lru_cache(maxsize=4096)
def _shadows(name: str, elsewhere: tuple[str, ...]) -> bool:
    if name in UNUSED or BuiltinImporter.find_spec(name) or FrozenImporter.find_spec(name):
        return False  # found before any folder is looked in, or imported by nothing
    try:
        spec = PathFinder.find_spec(name, list(elsewhere))
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    if spec.origin is not None:
        return True  # a module or a regular package
    # Any folder on the path is a namespace package: only those in an environment are installed
    # (``google``), not a project's ``docs`` or ``tests`` folder.
    envs = python_envs()
    found = spec.submodule_search_locations or []
    return any(under(os.path.realpath(p), env) for p in found for env in envs)


@functools.lru_cache(maxsize=8)
def _elsewhere(path: tuple[str, ...], workspace: str) -> tuple[str, ...]:
    """The entries of ``path`` a sandboxed command cannot write: outside the workspace, or in a
    Python environment (read-only even inside it)."""
    envs = python_envs()
    real = (os.path.realpath(entry) for entry in path if entry)
    return tuple(e for e in real if not under(e, workspace) or any(under(e, env) for env in envs))


class Blocked(NamedTuple):
    """One planted module and what became of it."""

    path: str
    """Where it was, relative to the workspace."""
    done: str
    """What was done, in words: ``"random.py -> random.py.blocked"``."""


def block_planted(workspace: Path, since: int) -> list[Blocked]:
    """Rename what was planted in ``workspace`` since the stamp ``since`` (see the module
    docstring)."""
    listings, _ = walk(workspace, skip=python_envs())
    elsewhere = _elsewhere(tuple(sys.path), str(workspace))
    done: list[Blocked] = []
    for folder, listing in sorted(listings.items()):
        entries = list(listing.modules)
        for sub in listing.folders:
            inner = listings.get(os.path.join(folder, sub))
            if inner is not None and inner.init:
                entries.append((sub, sub))
        entries = [(e, name) for e, name in entries if _shadows(name, elsewhere)]
        if not entries:
            continue
        own_package = (
            listing.init
            and not listing.notebook
            and _changed(os.path.join(folder, listing.init)) < since
        )
        for entry, name in entries:
            if own_package and name != LAUNCHER:
                continue
            path = os.path.join(folder, entry)
            inner = listings.get(path)
            stamp = _changed(path)
            if inner is not None:
                stamp = max(stamp, _changed(os.path.join(path, inner.init)))
            if stamp >= since:
                done.append(_rename(workspace, folder, entry))
    return done


def _changed(path: str) -> int:
    try:
        return os.lstat(path).st_ctime_ns
    except OSError:
        return 0


def _rename(workspace: Path, folder: str, entry: str) -> Blocked:
    """Rename ``folder/entry`` to a free ``entry.blocked`` name, never following a link on the
    way."""
    relative = os.path.relpath(os.path.join(folder, entry), workspace)
    failed = Blocked(relative, f"{relative} (could not be renamed: remove it)")
    parts = Path(os.path.relpath(folder, workspace)).parts
    try:
        fd = open_folder(workspace, [p for p in parts if p != "."])
    except OSError as exc:
        logger.warning("Could not open the folder of %s: %s", relative, exc)
        return failed
    try:
        for n in range(1, 100):
            new = entry + BLOCKED + ("" if n == 1 else f"-{n}")
            try:
                os.lstat(new, dir_fd=fd)
            except FileNotFoundError:
                os.rename(entry, new, src_dir_fd=fd, dst_dir_fd=fd)
                renamed = os.path.join(os.path.dirname(relative), new)
                return Blocked(relative, f"{relative} -> {renamed}")
        return failed
    except OSError as exc:
        logger.warning("Could not rename %s: %s", relative, exc)
        return failed
    finally:
        os.close(fd)


def blocked_note(blocked: list[Blocked]) -> str:
    """What a command's output says when it left modules named like installed ones."""
    done = "; ".join(b.done for b in blocked)
    return (
        f"[jupyter_agents: renamed {done}. Python would have imported "
        "these instead of the installed modules of the same name (and Jupyter runs "
        "ipykernel_launcher to start a kernel), outside the sandbox. Give your own modules "
        "names no installed module has.]"
    )


def planted_by_patch(parts: tuple[str, ...], workspace: Path) -> str | None:
    """Why a file written at ``parts`` below ``workspace`` would be imported in place of an
    installed module (words that follow the path), or None: the rule of the module docstring
    for a write a person is asked about first (``apply_patch``)."""
    if not parts:
        return None
    name = module_name(parts[-1])
    folder = parts[:-1]
    if name == "__init__" and folder:
        name, folder = folder[-1], folder[:-1]
    if name is None or name == "__init__" or not shadowed(name, workspace):
        return None
    if name != LAUNCHER and _own_package(workspace.joinpath(*folder)):
        return None
    return (
        f"would be imported instead of the installed module {name!r} (Python looks in the "
        "folder of the script or kernel it runs first)"
    )


def _own_package(folder: Path) -> bool:
    """``folder`` is a regular package already, and holds no notebook."""
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    has_init = any(module_name(n) == "__init__" for n in names)
    return has_init and not any(n.endswith(".ipynb") for n in names)
