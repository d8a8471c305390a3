"""Ending every process a command left behind, outside the sandbox too.

Inside bubblewrap the command has its own process namespace: when it ends, everything it
started ends with it. Outside (``danger-full-access``, approved escalations) a command's
children can outlive it: a background job keeps its process group, ``setsid`` leaves the group
and the session, and an orphan's parent becomes ``init``. ``kill_tree`` finds them by what
they cannot shed while they matter to us: the command's process group or session, or an open
end of the command's output pipes (the reason a finished command's call would not return);
and their descendants.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Collection

__all__ = ["kill_group", "kill_tree"]

_ROUNDS = 5


def kill_group(leader: int) -> None:
    """SIGKILL the process group ``leader`` started (its background jobs), if any is left."""
    try:
        os.killpg(leader, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_tree(leader: int, pipes: Collection[int] = ()) -> None:
    """SIGKILL what the command ``leader`` started: its process group and session, whatever
    holds one of the ``pipes`` (inode numbers of its output pipes), and their descendants;
    again until nothing is found (a process forked meanwhile is found the next round)."""
    kill_group(leader)
    for _ in range(_ROUNDS):
        found = _left_behind(leader, pipes)
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _left_behind(leader: int, pipes: Collection[int]) -> set[int]:
    me = os.getpid()
    parents: dict[int, int] = {}
    found: set[int] = set()
    wanted = {f"pipe:[{inode}]" for inode in pipes}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        pid = int(name)
        fields = _stat(pid)
        if fields is None or fields[0] == "Z":  # gone, or dead and waiting to be reaped
            continue
        parents[pid] = int(fields[1])
        group, session = int(fields[2]), int(fields[3])
        if leader in (group, session) or (wanted and _holds(pid, wanted)):
            found.add(pid)
    grew = True
    while grew:  # descendants of what was found (a setsid child whose parent still runs)
        more = {pid for pid, parent in parents.items() if parent in found} - found
        found |= more
        grew = bool(more)
    return found


def _stat(pid: int) -> list[str] | None:
    """State, parent, process group and session of ``pid``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            line = f.read().decode(errors="replace")
    except OSError:
        return None
    return line.rsplit(")", 1)[-1].split()[:4]


def _holds(pid: int, wanted: set[str]) -> bool:
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:  # another user's process, or gone
        return False
    for fd in names:
        try:
            if os.readlink(f"{folder}/{fd}") in wanted:
                return True
        except OSError:
            continue
    return False
