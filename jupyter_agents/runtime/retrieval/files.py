"""Which files of a folder are documents, and reading one without being led outside.

A document is a regular file inside the folder with a known suffix: no symbolic link (to a
file or a folder, inside or out), no FIFO, device or socket, nothing hidden, at most
``max_depth`` folders deep and ``max_files`` in all. Reading opens one folder at a time from
the store's folder and the file itself with ``O_NOFOLLOW`` (and ``O_NONBLOCK``, so a FIFO
cannot hang the open), then checks that what is open is a regular file: a path swapped for a
link or a FIFO between listing and reading is refused, never followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..nofollow import (
    SPECIAL,
    NotRead,
    TooLarge,
    open_folder,
    read_regular,
    why_not_opened,
)
from .limits import DocumentLimits, format_size
from .parse import SUFFIXES
from .text import name_problem, printable

__all__ = ["Listing", "list_documents", "read_document"]

_LINK = "a symbolic link: not followed"


@dataclass
class Listing:
    """The documents of a folder, and what was left out."""

    files: list[str] = field(default_factory=list)
    """Paths relative to the folder, with ``/``."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Files and folders not read (printable names), with why."""
    warnings: list[str] = field(default_factory=list)


def read_document(root: Path, relative: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``root/relative``; a ``UserError`` saying why for
    anything else (a link on the way, not a regular file, larger than ``max_bytes``)."""
    try:
        return read_regular(root, relative, max_bytes)
    except TooLarge:
        raise UserError(
            f"larger than {format_size(max_bytes)}: not read (max_file_bytes)"
        ) from None
    except NotRead as e:
        raise UserError(str(e)) from None


def list_documents(root: Path, starts: Iterable[str], limits: DocumentLimits) -> Listing:
    """The documents under each of ``starts`` (paths relative to ``root``; ``.`` for all)."""
    listing = Listing()
    seen: set[str] = set()
    for start in starts:
        parts = tuple(p for p in start.split("/") if p not in ("", "."))
        if not _walk(root, parts, limits, listing, seen):
            break
    listing.files.sort()
    return listing


def _walk(
    root: Path, start: tuple[str, ...], limits: DocumentLimits, listing: Listing, seen: set[str]
) -> bool:
    """Add the documents under ``start`` (a folder or a file); False once ``max_files``."""
    if start:
        try:
            parent = open_folder(root, start[:-1])
            try:
                info = os.stat(start[-1], dir_fd=parent, follow_symlinks=False)
            finally:
                os.close(parent)
        except OSError as e:
            listing.skipped[printable("/".join(start))] = why_not_opened(e)
            return True
        if not stat.S_ISDIR(info.st_mode):  # a file, or a link the user added before
            return _add(start, info.st_mode, True, limits, listing, seen)
    folders = [start]
    while folders:
        parts = folders.pop()
        try:
            fd = open_folder(root, parts)
            try:
                with os.scandir(fd) as entries:
                    found = sorted((e.name, *_kind(e)) for e in entries)
            finally:
                os.close(fd)
        except OSError as e:
            listing.skipped[printable("/".join(parts))] = why_not_opened(e)
            continue
        inner = []
        for name, mode, linked_folder in found:
            if name.startswith("."):
                continue  # hidden: .git, .jupyter_agents, ...
            path = (*parts, name)
            if stat.S_ISDIR(mode):
                if len(path) > limits.max_depth:
                    why = f"nested deeper than {limits.max_depth} folders: not read (max_depth)"
                    listing.skipped[printable("/".join(path))] = why
                else:
                    inner.append(path)
            elif not _add(path, mode, linked_folder, limits, listing, seen):
                return False
        folders.extend(reversed(inner))  # depth first, in name order
    return True


def _kind(entry: os.DirEntry[str]) -> tuple[int, bool]:
    """The entry's own type (a link is a link; 0 when it vanished), and whether it is a link
    to a folder."""
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return 0, False
    try:
        return mode, stat.S_ISLNK(mode) and entry.is_dir()
    except OSError:  # a loop of links, say
        return mode, False


def _add(
    path: tuple[str, ...],
    mode: int,
    always: bool,
    limits: DocumentLimits,
    listing: Listing,
    seen: set[str],
) -> bool:
    """Note ``path`` (a file, a link or a special file) if it is named like a document (or
    ``always``: a link to a folder); False once there are ``max_files``."""
    relative = "/".join(path)
    if mode == 0 or (os.path.splitext(path[-1])[1].lower() not in SUFFIXES and not always):
        return True
    problem = name_problem(relative)
    if problem is not None:
        listing.skipped[printable(relative)] = problem
    elif stat.S_ISLNK(mode):
        listing.skipped[relative] = _LINK
    elif not stat.S_ISREG(mode):
        listing.skipped[relative] = SPECIAL
    elif relative not in seen:
        if len(listing.files) >= limits.max_files:
            listing.warnings.append(
                f"Only the first {limits.max_files:,} documents are indexed (max_files); "
                "the folder has more."
            )
            return False
        seen.add(relative)
        listing.files.append(relative)
    return True
