"""Reading and writing files without following symbolic links, all changes or none.

A path checked before writing can be swapped for a symlink (by a shell call of the same turn)
before it is written. So nothing here opens a path by name from the top: every walk starts from
a folder descriptor of its base (the workspace) and opens one component at a time with
``O_NOFOLLOW``, and every open, rename, link and removal is relative to the descriptor of the
folder it happens in. A symlinked folder on the way, or a symlink as the file itself, is
refused, never followed.

``commit`` writes a set of changes in two steps. First each new content goes to a temporary
file next to its target (missing folders are made), with the old file's permission bits (new
files get the umask's). Then, quickly, each old file is kept under a backup name (a hard link,
else a rename), the temporary file is renamed over the target, and a deleted file is renamed
to its backup. Any error or a cancellation before the end puts every file back (the backups
renamed over the targets, the temporary files and made folders removed); on success the
backups are removed.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ._patch_format import PatchError

__all__ = ["Change", "Current", "PatchCancelled", "Spot", "commit", "read"]

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # a FIFO must not block
_TEMP = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this are not patched (they would be read whole into memory)."""


@dataclass(frozen=True)
class Spot:
    """Where a file is: the folder walks start from, the folders below it, and the name."""

    base: str
    """An absolute folder, trusted (the workspace, or ``/`` for a path a person approved)."""
    folders: tuple[str, ...]
    name: str
    shown: str = field(default="", compare=False)
    """The path as the model gave it (for messages)."""


@dataclass(frozen=True)
class Current:
    """A file as it was read."""

    data: bytes
    mode: int
    """Its permission bits."""
    stamp: tuple[int, int, int]
    """Inode, size and modification time: a file that changed since is not overwritten."""
    writable: bool


@dataclass(frozen=True)
class Change:
    """One planned change: new contents (None: delete the file)."""

    spot: Spot
    data: bytes | None
    mode: int | None
    """Permission bits to give (None: a new file, the umask decides)."""
    stamp: tuple[int, int, int] | None
    """What the file was when planned (None: there was none)."""


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_ino, st.st_size, st.st_mtime_ns


def _why_not_folder(parent: int, name: str, shown: str) -> PatchError:
    try:
        link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        link = False
    if link:
        return PatchError(
            f"{shown!r} goes through the symbolic link {name!r}; patches do not follow links "
            "(give the path of the real file)."
        )
    return PatchError(f"{shown!r} goes through {name!r}, which is not a folder.")


def _open_folder(spot: Spot, create: bool, made: list[tuple[int, str]] | None = None) -> int:
    """A descriptor of the folder ``spot`` is in, walked without following links (missing
    folders are made when ``create``; each made one is added to ``made`` with its parent's
    descriptor, which then stays open). FileNotFoundError: a folder is missing."""
    fd = os.open(spot.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in spot.folders:
            try:
                child = os.open(name, _FOLDER, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o777, dir_fd=fd)
                child = os.open(name, _FOLDER, dir_fd=fd)
                if made is not None:
                    made.append((os.dup(fd), name))
            except OSError as e:
                if e.errno in (errno.ENOTDIR, errno.ELOOP):
                    raise _why_not_folder(fd, name, spot.shown) from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def _folder(spot: Spot) -> Iterator[int | None]:
    """The folder's descriptor, or None when a folder on the way does not exist."""
    try:
        fd = _open_folder(spot, create=False)
    except FileNotFoundError:
        yield None
        return
    try:
        yield fd
    finally:
        os.close(fd)


def read(spot: Spot) -> Current | None:
    """The file at ``spot`` (None: there is none).

    Raises:
        PatchError: A link, a folder or a special file is in the way, or the file is too big.
    """
    with _folder(spot) as parent:
        if parent is None:
            return None
        try:
            fd = os.open(spot.name, _FILE, dir_fd=parent)
        except FileNotFoundError:
            return None
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise PatchError(
                    f"{spot.shown!r} is a symbolic link; patches do not follow links (change "
                    "the file it points to by its own path)."
                ) from None
            raise
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise PatchError(f"{spot.shown!r} is a folder, not a file.")
            if not stat.S_ISREG(st.st_mode):
                raise PatchError(f"{spot.shown!r} is not a regular file; patches change files.")
            if st.st_size > MAX_BYTES:
                raise PatchError(f"{spot.shown!r} is over {MAX_BYTES >> 20} MB; it is not patched.")
            with os.fdopen(os.dup(fd), "rb") as f:
                data = f.read(MAX_BYTES + 1)
        finally:
            os.close(fd)
        mode = stat.S_IMODE(st.st_mode) & 0o777
        writable = bool(mode & stat.S_IWUSR) and os.access(
            spot.name, os.W_OK, dir_fd=parent, follow_symlinks=False
        )
        return Current(data, mode, _stamp(st), writable)


def _temp_name(name: str) -> str:
    return f".{name[:180]}.{secrets.token_hex(6)}.patch-tmp"


def _write_temp(parent: int, change: Change) -> str:
    temp = _temp_name(change.spot.name)
    fd = os.open(temp, _TEMP, 0o600 if change.mode is not None else 0o666, dir_fd=parent)
    try:
        if change.mode is not None:
            os.fchmod(fd, change.mode)
        view = memoryview(change.data or b"")
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        os.close(fd)
        os.unlink(temp, dir_fd=parent)
        raise
    os.close(fd)
    return temp


class PatchCancelled(PatchError):
    """The call was cancelled (Stop, or its timeout) before the patch was written."""


def _quietly(step: Callable[..., object], *args: object, **kwargs: object) -> None:
    try:
        step(*args, **kwargs)
    except OSError:
        pass


class _Journal:
    """What ``commit`` did so far, to undo it or finish it."""

    def __init__(self) -> None:
        self.folders: dict[tuple[str, tuple[str, ...]], int] = {}
        self.made: list[tuple[int, str]] = []
        self.temps: dict[Spot, str] = {}
        self.undo: list[tuple[Callable[..., object], tuple[object, ...], dict[str, int]]] = []
        self.backups: list[tuple[int, str]] = []

    def folder(self, spot: Spot, create: bool) -> int:
        key = (spot.base, spot.folders)
        if key not in self.folders:
            self.folders[key] = _open_folder(spot, create, self.made)
        return self.folders[key]

    def roll_back(self) -> list[str]:
        """Undo everything; the problems met on the way (best effort)."""
        problems = []
        for step, args, kwargs in reversed(self.undo):
            try:
                step(*args, **kwargs)
            except OSError as e:
                problems.append(str(e))
        for spot, temp in self.temps.items():
            _quietly(os.unlink, temp, dir_fd=self.folders[(spot.base, spot.folders)])
        for parent, name in reversed(self.made):
            _quietly(os.rmdir, name, dir_fd=parent)
        return problems

    def close(self, keep_backups: bool) -> None:
        if not keep_backups:
            for parent, backup in self.backups:
                _quietly(os.unlink, backup, dir_fd=parent)
        for fd in [*self.folders.values(), *(parent for parent, _ in self.made)]:
            _quietly(os.close, fd)


def _linked(name: str, backup: str, dirs: dict[str, int]) -> bool:
    try:
        os.link(name, backup, follow_symlinks=False, **dirs)
    except OSError:
        return False
    return True


def _swap_in(journal: _Journal, change: Change, parent: int) -> None:
    """Put ``change`` in place (a rename or two); record how to undo it."""
    name = change.spot.name
    try:
        st: os.stat_result | None = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if (st is None) != (change.stamp is None) or (st is not None and _stamp(st) != change.stamp):
        raise PatchError(f"{change.spot.shown!r} changed while the patch was being written.")
    dirs = {"src_dir_fd": parent, "dst_dir_fd": parent}
    if st is not None:  # keep the old file under a backup name until the end
        backup = _temp_name(name).replace(".patch-tmp", ".patch-old")
        # An updated file stays in place until the new one replaces it (a hard link keeps the
        # old one); a deleted one, or where links fail, is renamed away.
        if change.data is None or not _linked(name, backup, dirs):
            os.rename(name, backup, **dirs)
        journal.backups.append((parent, backup))
        journal.undo.append((os.replace, (backup, name), dirs))
    if change.data is not None:
        os.replace(journal.temps[change.spot], name, **dirs)
        del journal.temps[change.spot]
        if st is None:
            journal.undo.append((os.unlink, (name,), {"dir_fd": parent}))


def commit(changes: list[Change], check: Callable[[], None]) -> None:
    """Make every change, or none (``check`` raises to stop; it is called between steps).

    Raises:
        PatchCancelled: ``check`` stopped it; nothing was changed.
        PatchError: Nothing was changed (the message says why).
    """
    journal = _Journal()
    try:
        for change in changes:  # 1. the new contents, beside their targets
            check()
            parent = journal.folder(change.spot, create=change.data is not None)
            if change.data is not None:
                journal.temps[change.spot] = _write_temp(parent, change)
        for change in changes:  # 2. the swaps: renames only
            check()
            _swap_in(journal, change, journal.folders[(change.spot.base, change.spot.folders)])
    except BaseException as e:
        problems = journal.roll_back()
        journal.close(keep_backups=bool(problems))
        if not isinstance(e, Exception) or isinstance(e, PatchCancelled):
            raise
        left = f" Putting files back also failed: {'; '.join(problems)}." if problems else ""
        if isinstance(e, PatchError):
            raise PatchError(f"{e} Nothing was changed.{left}") from None
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PatchError(f"Writing the patch failed ({reason}); nothing was changed.{left}") from e
    journal.close(keep_backups=False)
