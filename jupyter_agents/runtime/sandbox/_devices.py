"""The host's device nodes inside a sandbox, kept as they were.

bubblewrap's ``--dev`` shows a few of the host's own device nodes (``/dev/null``, ...). Their
owner is root, so a command run as root can change their modes even without capabilities (an
owner needs none), and ``chmod 000 /dev/null`` inside would break every program of the host's
other users. bubblewrap 0.8 cannot bind them read-only without making them unusable (its
read-only binds add ``nodev``), so instead, when this process is root, their modes are read
before sandboxed commands and put back after them, and the command's result says so: a
repair after the command, not a prevention (while it runs, the change is visible). (Other
users do not own them and cannot change them; ownership needs a capability the sandbox drops.)
"""

from __future__ import annotations

import os
import threading

__all__ = ["DEVICE_NODES", "enter", "leave", "restored_note"]

DEVICE_NODES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
"""The nodes ``bwrap --dev`` binds from the host."""

_lock = threading.Lock()
_active = 0
_modes: dict[str, int] = {}
"""The nodes' permission bits when the first of the sandboxed commands running now began."""


def enter() -> None:
    """A sandboxed command begins: when it is the only one, read the nodes' modes (only as
    root; other users cannot change them)."""
    global _active
    if os.geteuid() != 0:
        return
    with _lock:
        _active += 1
        if _active == 1:
            _modes.clear()
            for node in DEVICE_NODES:
                try:
                    _modes[node] = os.stat(node).st_mode & 0o7777
                except OSError:
                    continue


def leave() -> list[str]:
    """A sandboxed command ended (with everything it started): when it was the last one
    running, put back every node whose mode changed; the nodes put back. (With commands in
    parallel, the modes read before the first are the ones restored after the last, so one
    command cannot make another's repair undo itself.)"""
    global _active
    if os.geteuid() != 0:
        return []
    restored: list[str] = []
    with _lock:
        _active = max(0, _active - 1)
        if _active:
            return []
        for node, mode in _modes.items():
            try:
                if os.stat(node).st_mode & 0o7777 != mode:
                    os.chmod(node, mode)
                    restored.append(node)
            except OSError:
                continue
    return restored


def restored_note(nodes: list[str]) -> str:
    """What a command's output says when it changed the host's device nodes."""
    return (
        f"[jupyter_agents: the command changed the permissions of {', '.join(nodes)} on the "
        "host; they were put back. Do not change device files.]"
    )
