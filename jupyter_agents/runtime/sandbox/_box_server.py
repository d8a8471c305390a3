"""The process that stays inside a kept sandbox and runs its commands, one at a time.

Started by ``._box`` as the first process of a bubblewrap sandbox (``--as-pid-1``), with
only the standard library (``python -I -S -c`` with this file's text, read when the runtime
was imported: nothing a sandboxed command writes can change it). It reads requests from the
socket its parent passed as file descriptor ``CONTROL`` and for each:

1. starts the command (``posix_spawnp``: its own session, stdin ``/dev/null``, stdout and
   stderr the pipes that came with the request, the request's environment and umask);
2. waits for it, then kills every other process in the sandbox (``kill(-1, SIGKILL)``: in a
   process namespace it reaches all of them but this one, which commands cannot signal, trace
   or read, being the namespace's first process and not dumpable) and reaps them;
3. checks that its own settings that commands inherit are still the ones it started with
   (resource limits, nice value, CPU affinity, scheduling policy, I/O priority: a process may
   change these on another of the same user, and some, such as a lowered hard limit or a
   raised nice value, cannot be changed back without privilege), empties the sandbox's private
   scratch folders (``/tmp``, ``/dev/shm``, the hidden places) and checks that nothing else a
   command can leave behind changed (``/dev``, System V IPC objects, POSIX message queues):
   when anything changed or is left that it cannot empty, it says the sandbox is not clean
   and its parent ends it;
4. answers ``{"exit": N, "clean": bool}`` (``N`` as bubblewrap reports it: 128 + a signal's
   number) or ``{"errno": E}`` when the program could not be started.

It exits when its parent's end of the socket closes.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import socket
import sys
import time
from typing import Any

_PR_SET_DUMPABLE = 4
_WIPE_SECONDS = 1.0
"""Longer than this to empty the scratch folders and the sandbox is not reused."""


def _not_dumpable(libc: Any) -> None:
    """Commands run as the same user: without this they could trace this process or read its
    memory and file descriptors through ``/proc/1``."""
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")


_LIMITS = [getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")]
_IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)
"""``ioprio_get``'s number on this machine (elsewhere the I/O priority is not checked)."""


def _inherited(libc: Any) -> tuple[object, ...]:
    """What this process's children inherit from it that a command could have changed from
    outside (``prlimit``, ``setpriority``, ``sched_setaffinity``, ``sched_setscheduler`` and
    ``ioprio_set`` all accept another process of the same user)."""
    return (
        [resource.getrlimit(limit) for limit in _LIMITS],
        os.getpriority(os.PRIO_PROCESS, 0),
        os.sched_getaffinity(0),
        os.sched_getscheduler(0),
        os.sched_getparam(0).sched_priority,
        None if _IOPRIO_GET is None else libc.syscall(_IOPRIO_GET, 1, 0),  # this process's
    )


def _entries(folder: str) -> dict[str, tuple[int, str]]:
    """Each entry of ``folder``: its mode and, for a link, its target."""
    found = {}
    with os.scandir(folder) as listing:
        for entry in listing:
            mode = entry.stat(follow_symlinks=False).st_mode
            found[entry.name] = (mode, os.readlink(entry.path) if entry.is_symlink() else "")
    return found


def _mount_points() -> set[str]:
    """Every mount point in this sandbox and the folders on the way to each: kept, never
    emptied (the workspace may be mounted inside ``/tmp``)."""
    kept = set()
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
        for line in table:
            point = line.split()[4]
            for code in ("\\040", "\\011", "\\012", "\\134"):
                point = point.replace(code, chr(int(code[1:], 8)))
            while point not in kept and point != "/":
                kept.add(point)
                point = os.path.dirname(point)
    return kept


def _empty(dir_fd: int, path: str, kept: set[str], device: int, deadline: float) -> None:
    """Remove everything under the folder ``path``, open as ``dir_fd``, on its file system
    (``device``): links are removed, never followed; a folder without permissions gets them
    back first (it is this user's); mount points and the folders above them stay."""
    for entry in os.scandir(dir_fd):
        if time.monotonic() > deadline:
            raise TimeoutError("too much to empty")
        inside = f"{path}/{entry.name}"
        folder = entry.is_dir(follow_symlinks=False)
        here = entry.stat(follow_symlinks=False).st_dev == device
        if inside in kept:  # a mount point stays; a folder on the way to one is emptied
            if folder and here:
                _empty_folder(dir_fd, entry.name, inside, kept, device, deadline)
            continue
        if not here:
            raise OSError(f"{inside} is on another file system")
        if folder:
            os.chmod(entry.name, 0o700, dir_fd=dir_fd)
            _empty_folder(dir_fd, entry.name, inside, kept, device, deadline)
            os.rmdir(entry.name, dir_fd=dir_fd)
        else:
            os.unlink(entry.name, dir_fd=dir_fd)


def _empty_folder(
    dir_fd: int, name: str, path: str, kept: set[str], device: int, deadline: float
) -> None:
    """``_empty`` on the folder ``name`` in the folder open as ``dir_fd``."""
    child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        _empty(child, path, kept, device, deadline)
    finally:
        os.close(child)


def _ipc_left() -> bool:
    """Whether a System V shared memory segment, message queue or semaphore set exists."""
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as table:
                if len(table.read().splitlines()) > 1:
                    return True
        except FileNotFoundError:
            continue
    return False


class _Box:
    def __init__(self, channel: socket.socket, scratch: list[str], libc: Any) -> None:
        self.channel = channel
        self.libc = libc
        workspace = os.stat(".").st_dev  # never emptied, whatever the list says
        self.scratch = [
            folder
            for folder in scratch
            if os.path.isdir(folder) and os.stat(folder).st_dev != workspace
        ]
        self.modes = {folder: os.lstat(folder) for folder in self.scratch}
        self.inherited = _inherited(libc)
        self.kept = _mount_points()
        self.dev = _entries("/dev")
        self.null = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)

    def run(self, request: dict[str, Any], out: int, err: int) -> dict[str, Any]:
        os.environ.clear()  # posix_spawnp looks the program up in this process's PATH
        os.environ["PATH"] = request["env"].get("PATH", os.defpath)
        os.umask(request["umask"])
        try:
            pid = os.posix_spawnp(
                request["argv"][0],
                request["argv"],
                request["env"],
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, self.null, 0),
                    (os.POSIX_SPAWN_DUP2, out, 1),
                    (os.POSIX_SPAWN_DUP2, err, 2),
                ],
                setsid=True,
                setsigdef=(signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT),
            )
        except OSError as e:
            return {"errno": e.errno or 0}
        finally:
            os.close(out)
            os.close(err)
        self.channel.send(b'{"started": true}')
        status = os.waitpid(pid, 0)[1]
        self.end_all()
        code = os.waitstatus_to_exitcode(status)
        return {"exit": 128 - code if code < 0 else code, "clean": self.clean()}

    def end_all(self) -> None:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                return

    def clean(self) -> bool:
        deadline = time.monotonic() + _WIPE_SECONDS
        try:
            if _inherited(self.libc) != self.inherited:  # (nothing is left that could change it)
                return False
            for folder in self.scratch:
                now, then = os.lstat(folder), self.modes[folder]
                if (now.st_mode, now.st_dev) != (then.st_mode, then.st_dev):
                    return False
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
                try:
                    _empty(fd, folder.rstrip("/"), self.kept, then.st_dev, deadline)
                finally:
                    os.close(fd)
            return _entries("/dev") == self.dev and not _ipc_left()
        except (OSError, RecursionError, TimeoutError):
            return False


def main(control: int, scratch: list[str]) -> None:
    # The first process of a namespace ignores the signals it does not handle: Python's own
    # Ctrl-C handler would let commands end it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    libc = ctypes.CDLL(None, use_errno=True)
    _not_dumpable(libc)
    channel = socket.socket(fileno=control)
    channel.set_inheritable(False)
    box = _Box(channel, scratch, libc)
    channel.send(b'{"ready": true}')
    while True:
        message, ancillary, _, _ = channel.recvmsg(
            1 << 20, socket.CMSG_SPACE(8), socket.MSG_CMSG_CLOEXEC
        )
        if not message:
            return
        fds = [
            int.from_bytes(data[i : i + 4], sys.byteorder)
            for level, kind, data in ancillary
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
            for i in range(0, len(data) - len(data) % 4, 4)
        ]
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return
        channel.send(json.dumps(box.run(json.loads(message), *fds)).encode())
