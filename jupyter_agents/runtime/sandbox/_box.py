"""Sandboxes kept alive between commands: the mounts and namespaces are made once per plan,
and each command then costs about what an unconfined one does.

Setting up a bubblewrap sandbox (its mounts, its network and process namespaces) costs several
milliseconds per command. A kept sandbox is one bubblewrap run whose first process is
``._box_server``, which starts the commands sent to it one at a time and, after each, kills
every process it left, empties the private scratch folders and checks that nothing else was
left (see there); when anything was, the sandbox is ended instead of being reused. So a
command finds what a fresh sandbox would give it: an empty ``/tmp``, no process but its own,
nothing in System V or POSIX IPC.

A sandbox is reused only for the same plan: the bubblewrap options are planned again before
every command (a ``git clone`` that made a new ``.git`` makes a new plan, so a new sandbox), and
the plan is the key; nor once anything it mounted over was removed or replaced outside it (a
``.git`` or a workspace made again is not the one it holds). Commands that run at the same time
get sandboxes of their own. A timeout or a cancelled call ends the whole sandbox (with
everything in it). When a sandbox cannot be started (a machine where the server does not run
in it), commands of that plan get a fresh sandbox each, as before.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ._seccomp import filter_fd

__all__ = ["Ran", "kept_processes", "run_in_box"]

MAX_REQUEST = 64 * 1024
"""Bytes of command line and environment sent to a kept sandbox; a larger command gets a
fresh sandbox (where the system's own limit applies)."""

IDLE_BOXES = 4
"""Kept sandboxes waiting for a command, at most (the least recently used ends first)."""

_READY_SECONDS = 10.0
_SOURCE = Path(__file__).with_name("_box_server.py").read_text(encoding="utf-8")
"""The server's text, read once, when the runtime is imported: a command that edits the file
later (in an editable install inside the workspace) changes nothing."""


class _Sink(Protocol):
    closed: asyncio.Event

    def pipe_data_received(self, fd: int, data: bytes) -> None: ...
    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None: ...
    def process_exited(self) -> None: ...


@dataclass(frozen=True)
class Ran:
    """How a command sent to a kept sandbox ended."""

    exit_code: int | None
    timed_out: bool = False
    errno: int = 0
    """Set when the program could not be started (``E2BIG``: too long for the system)."""
    lost: bool = False
    """The sandbox ended before the command did (killed from outside)."""


class _Box:
    def __init__(
        self,
        key: tuple[str, ...],
        process: subprocess.Popen[bytes],
        channel: socket.socket,
        held: list[tuple[str, int | None]],
    ) -> None:
        self.key = key
        self.process = process
        self.channel = channel
        self.held = held

    def alive(self) -> bool:
        return self.process.poll() is None

    def end(self) -> None:
        """End the sandbox and everything in it (its first process dies with bubblewrap)."""
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.wait(5)
        self.channel.close()
        _release(self.held)
        self.held = []


_lock = threading.Lock()
_idle: list[_Box] = []
_unusable: set[tuple[str, ...]] = set()
_starter = ThreadPoolExecutor(1, thread_name_prefix="jupyter_agents-sandbox")
"""Sandboxes start from this long-lived thread: bubblewrap's ``--die-with-parent`` follows
the thread that started it, and a run's own thread may end before the sandbox should."""


def _forget() -> None:
    """In a forked copy of this process: the kept sandboxes are the parent's. Close this copy's
    ends (so they still end with the parent) and start afresh, with a thread of its own."""
    global _lock, _starter
    for box in _idle:
        box.channel.close()
        _release(box.held)
    _idle.clear()
    _unusable.clear()
    _lock = threading.Lock()
    _starter = ThreadPoolExecutor(1, thread_name_prefix="jupyter_agents-sandbox")


os.register_at_fork(after_in_child=_forget)


def kept_processes() -> set[int]:
    """The bubblewrap processes of the kept sandboxes waiting for a command (children of this
    process that stay between commands)."""
    with _lock:
        return {box.process.pid for box in _idle}


def _take(key: tuple[str, ...]) -> _Box | None:
    stale: list[_Box] = []
    found = None
    with _lock:
        for box in list(_idle):
            if not box.alive():
                _idle.remove(box)
                stale.append(box)
            elif box.key == key and found is None:
                _idle.remove(box)
                if _unchanged(box.held):
                    found = box
                else:
                    stale.append(box)
    for box in stale:
        box.end()
    return found


def _give_back(box: _Box) -> None:
    ended: list[_Box] = []
    with _lock:
        _idle.append(box)
        while len(_idle) > IDLE_BOXES:
            ended.append(_idle.pop(0))
    for old in ended:
        old.end()


def _start(plan: tuple[str, ...]) -> _Box | None:
    """A new kept sandbox for ``plan`` (the bubblewrap options up to ``--chdir DIR --``),
    ready for its first command, or None when it does not start."""
    held = _hold(
        [place for _, place in _mounts(plan)]
    )  # before bubblewrap mounts them: a change in between shows
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    seccomp = filter_fd()
    options = list(plan[:-3])  # without "--chdir DIR --"
    scratch = _scratch(options)
    options += ["--as-pid-1", "--mqueue", "/dev/mqueue"]
    if seccomp is not None:
        options += ["--seccomp", str(seccomp)]
    code = f"{_SOURCE}\nmain({theirs.fileno()}, {scratch!r})\n"
    argv = [*options, *plan[-3:], sys.executable, "-I", "-S", "-c", code]
    passed = [theirs.fileno()] + ([seccomp] if seccomp is not None else [])
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=passed,
            env={"PATH": os.defpath},
            start_new_session=True,
        )
    except OSError:
        ours.close()
        _release(held)
        return None
    finally:
        theirs.close()
        if seccomp is not None:
            os.close(seccomp)
    box = _Box(plan, process, ours, held)
    ours.settimeout(_READY_SECONDS)
    try:
        ready = ours.recv(64)
    except OSError:
        ready = b""
    if ready != b'{"ready": true}':
        box.end()
        return None
    ours.setblocking(False)
    return box


_BINDS = ("--bind", "--ro-bind", "--dev-bind")


def _mounts(options: Sequence[str]) -> list[tuple[str, str]]:
    """Each mount in bubblewrap ``options``: its option and the place it mounts on."""
    found = []
    for i, word in enumerate(options):
        if word in _BINDS:
            found.append((word, options[i + 2]))
        elif word == "--tmpfs":
            found.append((word, options[i + 1]))
    return found


def _scratch(options: list[str]) -> list[str]:
    """The sandbox's private folders, emptied after each command: each new ``--tmpfs`` that no
    later bind covers (a folder the person chose is never among them), ``/dev/shm`` and the
    message queues."""
    mounts = _mounts(options)
    scratch = [
        place
        for i, (kind, place) in enumerate(mounts)
        if kind == "--tmpfs"
        and not any(
            later in _BINDS and Path(place).is_relative_to(bound)  # (a folder is inside itself)
            for later, bound in mounts[i + 1 :]
        )
    ]
    return [*scratch, "/dev/shm", "/dev/mqueue"]


def _hold(places: list[str]) -> list[tuple[str, int | None]]:
    """Each place with a descriptor that holds what is there now (None: nothing is)."""
    held: list[tuple[str, int | None]] = []
    for place in places:
        try:
            held.append((place, os.open(place, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)))
        except OSError:
            held.append((place, None))
    return held


def _release(held: list[tuple[str, int | None]]) -> None:
    for _, fd in held:
        if fd is not None:
            os.close(fd)


def _unchanged(held: list[tuple[str, int | None]]) -> bool:
    """Whether every place still holds what it held when the sandbox started. A folder or
    file removed and made again outside (``rm -rf .git && git init``, a new workspace, a
    rewritten ``.npmrc``) is not the one the sandbox mounted over, and its mount no longer
    covers it. (The descriptors keep the old ones' inode numbers from being reused.)"""
    for place, fd in held:
        try:
            now = os.lstat(place)
        except OSError:
            if fd is None:
                continue
            return False
        if fd is None:
            return False
        then = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (then.st_dev, then.st_ino) or then.st_nlink == 0:
            return False
    return True


def _umask() -> int:
    """This process's umask, read without changing it (``os.umask`` would, for a moment)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022


class _Pipe(asyncio.Protocol):
    def __init__(self, sink: _Sink, fd: int) -> None:
        self.sink, self.fd = sink, fd

    def data_received(self, data: bytes) -> None:
        self.sink.pipe_data_received(self.fd, data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.sink.pipe_connection_lost(self.fd, exc)


async def run_in_box(
    plan: tuple[str, ...],
    argv: list[str],
    env: dict[str, str],
    sink: _Sink,
    timeout: float,
) -> Ran | None:
    """Run ``argv`` in a kept sandbox planned as ``plan`` (the bubblewrap options up to
    ``--chdir DIR --``), its output to ``sink``; None when no kept sandbox can take it (the
    caller starts a fresh one)."""
    request = json.dumps({"argv": argv, "env": env, "umask": _umask()}).encode()
    if len(request) > MAX_REQUEST or plan in _unusable:
        return None
    loop = asyncio.get_running_loop()
    box = _take(plan)
    if box is None:
        box = await loop.run_in_executor(_starter, _start, plan)
        if box is None:
            _unusable.add(plan)
            return None
    deadline = loop.time() + timeout  # for the whole command, start and end
    readers, writers = zip(os.pipe(), os.pipe(), strict=True)
    try:
        try:
            fds = array.array("i", writers)
            box.channel.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        finally:
            for fd in writers:
                os.close(fd)
        started = await _answer(box, deadline)
    except BaseException as e:  # timed out, cancelled (Stop), or it ended while idle
        for fd in readers:
            os.close(fd)
        box.end()  # everything in it ends with it
        if isinstance(e, asyncio.TimeoutError):  # (before OSError: in Python 3.11 it is one)
            return Ran(None, timed_out=True)
        if isinstance(e, OSError):  # nothing ran
            return None
        raise
    if not started or "errno" in started:
        for fd in readers:
            os.close(fd)
        if not started:  # it ended before starting the command: nothing ran
            box.end()
            return None
        _give_back(box)
        return Ran(None, errno=int(str(started["errno"])))
    pipes = [await _connect(sink, fd, r) for fd, r in zip((1, 2), readers, strict=True)]
    try:
        return await _await_end(box, sink, deadline)
    finally:
        await _closed(sink)
        for transport in pipes:
            transport.close()


async def _connect(sink: _Sink, fd: int, reader: int) -> asyncio.BaseTransport:
    """Read the pipe ``reader`` into ``sink`` as the command's ``fd``."""
    pipe = open(reader, "rb", buffering=0)  # noqa: SIM115 (the transport closes it)
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(lambda: _Pipe(sink, fd), pipe)
    return transport


async def _answer(box: _Box, deadline: float) -> dict[str, object]:
    """The server's next answer ({} when it ended instead); raises ``TimeoutError``."""
    loop = asyncio.get_running_loop()
    answer = await asyncio.wait_for(
        loop.sock_recv(box.channel, 4096), max(deadline - loop.time(), 0)
    )
    return dict(json.loads(answer)) if answer else {}


async def _await_end(box: _Box, sink: _Sink, deadline: float) -> Ran:
    try:
        ended = await _answer(box, deadline)
    except asyncio.TimeoutError:
        box.end()
        return Ran(None, timed_out=True)
    except BaseException:
        box.end()  # cancelled (Stop): everything in it ends with it
        raise
    sink.process_exited()
    if not ended:
        box.end()
        return Ran(137, lost=True)
    if ended.get("clean"):
        _give_back(box)
    else:
        box.end()
    return Ran(int(str(ended["exit"])))


async def _closed(sink: _Sink) -> None:
    """Wait (briefly) for both pipes to close: every process that held them has ended."""
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(sink.closed.wait(), 1.0)
