"""Reading a file inside a folder without being led outside it.

One folder at a time is opened from the root's descriptor with ``O_NOFOLLOW``, then the file
itself with ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO cannot hang the open), and what is open must be
a regular file: a path swapped for a link or a FIFO after someone checked it is refused, never
followed. Used by the document index, ``view_image`` and the project's instruction and agent
files.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "SPECIAL",
    "NotRead",
    "TooLarge",
    "open_folder",
    "read_head",
    "read_regular",
    "why_not_opened",
]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
SPECIAL = "not a regular file (a FIFO, device or socket): not read"


class NotRead(Exception):
    """A file that was not read, and why (in words for a person or a model)."""


class TooLarge(NotRead):
    """A file larger than the bound it was read with."""


def open_folder(root: Path, parts: Iterable[str]) -> int:
    """A descriptor of ``root/parts...``, never following a link on the way."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for part in parts:
            inner = os.open(part, _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def why_not_opened(error: OSError) -> str:
    """Why an open on the way failed, in words."""
    if error.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return "it, or a folder on its way, is a symbolic link or not a folder: not followed"
    if error.errno == errno.ENOENT:
        return "it is gone (removed while indexing)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return f"cannot be opened ({error.strerror or error})"


def _open_regular(root: Path, relative: str) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file ``root/relative`` and its status (the caller closes it).

    Raises:
        NotRead: A link on the way, not a regular file, gone, not permitted.
    """
    *folders, name = relative.split("/")
    try:
        folder = open_folder(root, folders)
        try:
            fd = os.open(name, _FILE, dir_fd=folder)
        finally:
            os.close(folder)
    except OSError as e:
        raise NotRead(why_not_opened(e)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRead(SPECIAL if not stat.S_ISDIR(info.st_mode) else "a folder: not read")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_head(root: Path, relative: str, max_bytes: int) -> tuple[bytes, bool]:
    """The first ``max_bytes`` of the regular file ``root/relative``, and whether it holds more.

    Raises:
        NotRead: A link on the way, not a regular file, gone, not permitted.
    """
    fd, _info = _open_regular(root, relative)
    try:
        blocks, size = [], 0
        while size <= max_bytes and (block := os.read(fd, min(1 << 20, max_bytes + 1 - size))):
            blocks.append(block)
            size += len(block)
        data = b"".join(blocks)
        return data[:max_bytes], size > max_bytes
    finally:
        os.close(fd)


def read_regular(root: Path, relative: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``root/relative`` (``/``-separated).

    Raises:
        TooLarge: It holds more than ``max_bytes`` (checked before reading, and while reading).
        NotRead: Anything else: a link on the way, not a regular file, gone, not permitted.
    """
    fd, info = _open_regular(root, relative)
    try:
        if info.st_size > max_bytes:
            raise TooLarge(f"larger than {max_bytes:,} bytes")
        blocks, size = [], 0
        while block := os.read(fd, min(1 << 20, max_bytes + 1 - size)):
            blocks.append(block)
            size += len(block)
            if size > max_bytes:  # it grew since fstat
                raise TooLarge(f"larger than {max_bytes:,} bytes")
        return b"".join(blocks)
    finally:
        os.close(fd)
