"""Running one command under a sandbox policy: confined, with an allowlisted environment, capped
output (head and tail kept) and a timeout that ends every process the command started.

When the command's main process ends, its output is read until the pipes close; whatever still
holds them after ``DRAIN_GRACE`` seconds (a background job) is killed, and so is the rest of
its process group. Inside the sandbox everything it started ends with it: a sandbox kept for
the next command kills all it left (``._box``), and a new sandbox's process namespace ends
with the command.
"""

from __future__ import annotations

import asyncio
import codecs
import errno
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from . import _devices, _shadow
from ._box import Ran, run_in_box
from ._env import scrubbed_env
from ._reap import kill_group, kill_tree
from ._seccomp import filter_fd
from .bwrap import MODES, SandboxMode, _wrap, confinement

__all__ = ["CommandResult", "SandboxPolicy", "run_sandboxed", "scrubbed_env"]

DEFAULT_MAX_OUTPUT = 20_000
"""Characters of stdout (and of stderr) kept per command: the first and the last half."""

DRAIN_GRACE = 0.5
"""Seconds the output may still come after the command's main process ended."""

_LAST_DRAIN = 1.0
"""Seconds to wait for the pipes to close once everything found was killed (a process that
escaped the search and still holds them cannot hang the call)."""


@dataclass(frozen=True)
class SandboxPolicy:
    """Where and how a command may act."""

    mode: SandboxMode = "workspace-write"
    """``read-only``, ``workspace-write`` or ``danger-full-access`` (no sandbox)."""

    workspace: Path = field(default_factory=Path.cwd)
    """The folder commands run in (and, in ``workspace-write``, may write)."""

    network_access: bool = False
    """Let sandboxed commands use the network."""

    allow_env: tuple[str, ...] = ()
    """Environment variables the command gets too, beyond the ordinary ones (see
    ``ALLOWED_ENV``), values as they are."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UserError(f"sandbox_mode must be one of {', '.join(MODES)}, got {self.mode!r}.")
        folder = Path(self.workspace).resolve()
        if not folder.is_dir():
            raise UserError(f"The sandbox workspace {str(folder)!r} is not a folder.")
        object.__setattr__(self, "workspace", folder)


@dataclass(frozen=True)
class CommandResult:
    """What one command did."""

    stdout: str
    stderr: str
    exit_code: int | None
    """None when it was killed by the timeout."""
    timed_out: bool = False
    duration: float = 0.0
    """Seconds."""
    cut: int = 0
    """Characters of output left out (the middle of a long output)."""
    sizes: tuple[int, int] = (0, 0)
    """Characters the command wrote to stdout and to stderr, before the cut."""
    notes: str = ""
    """What the sandbox itself said at the end of ``stderr`` (modules renamed, device nodes
    put back), one line each; not counted in ``sizes`` nor ever cut."""
    confinement: str = ""
    """What actually confined it, for its card: ``"bubblewrap /usr/bin/bwrap,
    workspace-write, no network"`` or ``"none (danger-full-access)"``."""
    renamed: tuple[str, ...] = ()
    """Modules it left named like installed ones (paths relative to the workspace), renamed
    afterwards to ``NAME.blocked``, as its ``stderr`` says (see ``._shadow``)."""


class _Capped:
    """Keeps the first and the last ``limit // 2`` characters of a stream."""

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text: str) -> None:
        self.total += len(text)
        room = self.half - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail = (self.tail + text)[-self.half :]

    def text(self) -> tuple[str, int]:
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return self.head + self.tail, 0
        return f"{self.head}{_cut_note(cut)}{self.tail}", cut


def _cut_note(cut: int) -> str:
    """What stands in the middle of a text for the ``cut`` characters left out there."""
    return f"\n… {cut:,} characters cut …\n"


class _Output(asyncio.SubprocessProtocol):
    """Collects a command's stdout and stderr; says when it exited and when both pipes
    closed (not the same moment: a background child may hold them)."""

    def __init__(self, max_output: int, on_output: Callable[[str], None] | None) -> None:
        self.sinks = {1: _Capped(max_output), 2: _Capped(max_output)}
        decoder = codecs.getincrementaldecoder("utf-8")  # a character may span two reads
        self.decoders = {fd: decoder(errors="replace") for fd in (1, 2)}
        self.on_output = on_output
        self.open = {1, 2}
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self._add(fd, self.decoders[fd].decode(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd in self.open:
            self._add(fd, self.decoders[fd].decode(b"", final=True))
            self.open.discard(fd)
        if not self.open:
            self.closed.set()

    def process_exited(self) -> None:
        self.exited.set()

    def _add(self, fd: int, text: str) -> None:
        if text and fd in self.sinks:
            self.sinks[fd].add(text)
            if self.on_output is not None:
                self.on_output(text)


async def _within(event: asyncio.Event, seconds: float) -> bool:
    """Whether ``event`` is set within ``seconds``."""
    try:
        await asyncio.wait_for(event.wait(), max(seconds, 0.0))
    except asyncio.TimeoutError:
        pass
    return event.is_set()


def _pipe_inodes(transport: asyncio.SubprocessTransport) -> list[int]:
    """The output pipes still open (one closed already has no writer left to find)."""
    inodes = []
    for fd in (1, 2):
        pipe = transport.get_pipe_transport(fd)
        handle = pipe.get_extra_info("pipe") if pipe is not None else None
        try:
            inodes.append(os.fstat(handle.fileno()).st_ino)  # type: ignore[union-attr]
        except (AttributeError, OSError, ValueError):  # none, or closed already
            continue
    return inodes


async def run_sandboxed(
    command: str | Sequence[str],
    policy: SandboxPolicy,
    *,
    timeout: float = 60.0,
    max_output: int = DEFAULT_MAX_OUTPUT,
    env: Mapping[str, str] | None = None,
    on_output: Callable[[str], None] | None = None,
) -> CommandResult:
    """Run ``command`` (a shell line, run by ``sh -c``, or an argv) under ``policy``;
    ``on_output`` gets stdout and stderr text as it comes. The call returns when the command
    ended (its leftovers killed, see the module docstring) or ``timeout`` ran out (all of it
    killed), never later.

    Raises:
        SandboxUnavailable: The policy needs bubblewrap and it is not installed.
    """
    argv = ["sh", "-c", command] if isinstance(command, str) else list(command)
    mode, network = policy.mode, policy.network_access
    environment = _environment(policy, env)
    started = time.monotonic()
    sandboxed = mode != "danger-full-access"
    since = _shadow.begin(policy.workspace) if mode == "workspace-write" else None
    if sandboxed:
        _devices.enter()
    restored: list[str] = []
    renamed: list[_shadow.Blocked] = []
    output = _Output(max_output, on_output)
    try:
        ran, incomplete = await _run(argv, policy, environment, output, timeout)
        if ran.errno == errno.E2BIG:
            return _too_long(command, mode, network, time.monotonic() - started)
        exit_code = _exit_code(ran, argv[0], output)
    finally:
        if sandboxed:  # everything it started has ended by now
            restored = _devices.leave()
        if since is not None:
            renamed = _shadow.block_planted(policy.workspace, since)
    stdout, cut_out = output.sinks[1].text()
    stderr, cut_err = output.sinks[2].text()
    said = _notes(restored, renamed)
    if said and stderr and not stderr.endswith("\n"):
        stderr += "\n"  # each note on a line of its own
    return CommandResult(
        stdout=stdout,
        stderr=stderr + said,
        exit_code=exit_code,
        timed_out=ran.timed_out,
        duration=time.monotonic() - started,
        cut=cut_out + cut_err,
        confinement=confinement(mode, network=network, incomplete=incomplete),
        renamed=tuple(b.path for b in renamed),
        sizes=(output.sinks[1].total, output.sinks[2].total),
        notes=said,
    )


def _environment(policy: SandboxPolicy, env: Mapping[str, str] | None) -> dict[str, str]:
    """The command's environment: ``env`` (else this process's) scrubbed to the allowlist,
    without ``TMPDIR`` in a sandbox (unless the policy allows it)."""
    environment = scrubbed_env(env if env is not None else os.environ, policy.allow_env)
    if policy.mode != "danger-full-access" and "TMPDIR" not in policy.allow_env:
        environment.pop("TMPDIR", None)  # the sandbox's /tmp is the private, writable one
    return environment


async def _run(
    argv: list[str],
    policy: SandboxPolicy,
    environment: dict[str, str],
    output: _Output,
    timeout: float,
) -> tuple[Ran, bool]:
    """Run ``argv`` to its end in a kept sandbox, else a fresh one (or none, as ``policy``
    says), its output going to ``output``: how it ended (``errno`` ``E2BIG`` when it is too
    long for the system to start), and whether the walk for nested ``.git`` stopped at its
    cap."""
    ran = None
    if policy.mode != "danger-full-access":
        plan, incomplete = _wrap(
            [], policy.mode, policy.workspace, network=policy.network_access, writable=()
        )
        ran = await run_in_box(tuple(plan), argv, environment, output, timeout)
    if ran is not None:
        return ran, incomplete
    try:
        transport, incomplete = await _start(argv, policy, environment, output)
    except OSError as e:
        if e.errno != errno.E2BIG:
            raise
        return Ran(exit_code=None, errno=errno.E2BIG), False
    timed_out = await _wait(transport, output, timeout)
    return Ran(None if timed_out else transport.get_returncode(), timed_out=timed_out), incomplete


def _exit_code(ran: Ran, program: str, output: _Output) -> int | None:
    """The command's exit code; when the sandbox could not start ``program`` (127) or was
    ended from outside, a line on its stderr says so."""
    if ran.errno:
        output.sinks[2].add(f"jupyter_agents: cannot run {program}: {os.strerror(ran.errno)}\n")
        return 127
    if ran.lost:
        output.sinks[2].add("[jupyter_agents: the sandbox was ended from outside.]\n")
    return ran.exit_code


def _notes(restored: list[str], renamed: list[_shadow.Blocked]) -> str:
    """What the sandbox says at the end of stderr, one line each: the device nodes it put
    back and the modules it renamed."""
    notes = [_devices.restored_note(restored)] if restored else []
    notes += [_shadow.blocked_note(renamed)] if renamed else []
    return "".join(f"{note}\n" for note in notes)


def _too_long(
    command: str | Sequence[str], mode: SandboxMode, network: bool, took: float
) -> CommandResult:
    """The result of a command longer than the system lets a program be given."""
    size = len(command) if isinstance(command, str) else sum(len(word) for word in command)
    return CommandResult(
        stdout="",
        stderr=(
            f"Not run: the command is {size:,} characters, more than the system lets a program "
            "be given. Write the script to a file in the workspace and run the file."
        ),
        exit_code=126,
        duration=took,
        confinement=confinement(mode, network=network),
    )


async def _start(
    argv: list[str], policy: SandboxPolicy, environment: dict[str, str], output: _Output
) -> tuple[asyncio.SubprocessTransport, bool]:
    """The command started under ``policy`` (a fresh sandbox, or none), its output going to
    ``output``, and whether the walk for nested ``.git`` stopped at its cap."""
    mode = policy.mode
    seccomp = filter_fd() if mode != "danger-full-access" else None
    try:
        wrapped, incomplete = _wrap(
            argv,
            mode,
            policy.workspace,
            network=policy.network_access,
            writable=(),
            seccomp=seccomp,
        )
        transport, _ = await asyncio.get_running_loop().subprocess_exec(
            lambda: output,
            *wrapped,
            cwd=policy.workspace,
            env=environment,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group and session: found, killed as one
            pass_fds=() if seccomp is None else (seccomp,),
        )
    finally:
        if seccomp is not None:
            os.close(seccomp)
    return transport, incomplete


async def _wait(transport: asyncio.SubprocessTransport, output: _Output, timeout: float) -> bool:
    """Wait for the command, then end what it left (see the module docstring); whether it
    timed out."""
    pid, pipes = transport.get_pid(), _pipe_inodes(transport)
    timed_out = False
    try:
        timed_out = not await _within(output.exited, timeout)
        if timed_out or not await _within(output.closed, DRAIN_GRACE):
            kill_tree(pid, pipes)
        else:
            kill_group(pid)  # background jobs that let go of the output
        await _within(output.closed, _LAST_DRAIN)
    finally:
        if not (output.exited.is_set() and output.closed.is_set()):  # cancelled, or stuck
            kill_tree(pid, pipes)
        transport.close()
    return timed_out
