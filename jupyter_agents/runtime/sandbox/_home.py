"""The home folder, when a sandboxed command may write it (Jupyter started in the home folder
makes it the workspace).

Its top level is where the person's next shell, Python, kernel and desktop look for startup
files (``.bash_profile``, ``.local/lib/.../site-packages``, ``.ipython/profile_default/
startup``, ``.gitconfig``) and where ``~/.profile`` finds ``~/bin`` to put on ``PATH``. Code
planted there runs later with the person's full rights, so the top level stays read-only: its
existing entries that are not dot-entries (folders and regular files) are writable again, one
bind each; a new entry at the top level, and anything in a dot-entry, is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

__all__ = ["home_mounts", "in_read_only_home", "under", "writable_home"]


def _home() -> str:
    return os.path.realpath(os.path.expanduser("~"))


def under(inner: str, outer: str) -> bool:
    """``inner`` is ``outer`` or inside it (both absolute and normalised strings)."""
    return inner == outer or inner.startswith(outer if outer.endswith("/") else outer + "/")


def writable_home(roots: Sequence[Path]) -> str | None:
    """The home folder (resolved) when one of the writable ``roots`` holds it, else None."""
    home = _home()
    if home == "/" or not os.path.isdir(home):
        return None
    return home if any(under(home, str(root)) for root in roots) else None


def _writable_entries(home: str) -> list[str]:
    """The home folder's entries that stay writable: folders and regular files (not links,
    not sockets or pipes) whose names do not start with a dot."""
    try:
        with os.scandir(home) as entries:
            return sorted(
                entry.path
                for entry in entries
                if not entry.name.startswith(".")
                and (entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False))
            )
    except OSError:
        return []


def home_mounts(home: str) -> list[str]:
    """bubblewrap options that make ``home``'s top level read-only and its writable entries
    writable again (placed right after the writable roots, before anything inside them)."""
    argv = ["--ro-bind", home, home]
    for path in _writable_entries(home):
        argv += ["--bind", path, path]
    return argv


def in_read_only_home(path: str, home: str) -> bool:
    """Whether the sandbox keeps ``path`` (absolute, normalised, not resolved) read-only because
    of the home folder's rule: a dot-entry of ``home`` or anything in one, or a top-level entry
    that is not already there as a writable one."""
    if not under(path, home) or path == home:
        return False
    first = path[len(home) :].lstrip("/").split("/")[0]
    if first.startswith("."):
        return True
    try:  # one of _writable_entries: a folder or a regular file, not a link
        mode = os.lstat(os.path.join(home, first)).st_mode
    except OSError:
        return True  # a new entry at the top
    return not (stat.S_ISDIR(mode) or stat.S_ISREG(mode))
