"""Running one command under a sandbox policy: confined, with a scrubbed environment, capped
output (head and tail kept) and a timeout that kills the whole process tree."""

from __future__ import annotations

import asyncio
import codecs
import os
import re
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from .bwrap import MODES, SandboxMode, bwrap_argv

__all__ = ["CommandResult", "SandboxPolicy", "run_sandboxed", "scrubbed_env"]

SECRET_NAMES = re.compile(
    r"(_KEY|_TOKEN|_SECRET|_PASSWORD|^OPENAI_.*|^AWS_.*|^GITHUB_TOKEN)$", re.I
)
"""Environment variables a command does not get unless allowed: they usually hold secrets."""

DEFAULT_MAX_OUTPUT = 20_000
"""Characters of stdout (and of stderr) kept per command: the first and the last half."""


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
    """Secret-looking environment variables the command may still see."""

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


def scrubbed_env(env: Mapping[str, str], allow: Sequence[str] = ()) -> dict[str, str]:
    """``env`` without secret-looking variables, except those in ``allow``."""
    return {k: v for k, v in env.items() if k in allow or not SECRET_NAMES.search(k)}


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
        return f"{self.head}\n… {cut:,} characters cut …\n{self.tail}", cut


async def _pump(
    stream: asyncio.StreamReader | None,
    sink: _Capped,
    on_output: Callable[[str], None] | None,
) -> None:
    if stream is None:
        return
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")  # a character may span reads
    while True:
        chunk = await stream.read(65536)
        text = decoder.decode(chunk, final=not chunk)
        if text:
            sink.add(text)
            if on_output is not None:
                on_output(text)
        if not chunk:
            return


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
    ``on_output`` gets stdout and stderr text as it comes.

    Raises:
        SandboxUnavailable: The policy needs bubblewrap and it is not installed.
    """
    argv = ["sh", "-c", command] if isinstance(command, str) else list(command)
    wrapped = bwrap_argv(argv, policy.mode, policy.workspace, network=policy.network_access)
    environment = scrubbed_env(env if env is not None else os.environ, policy.allow_env)
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        *wrapped,
        cwd=policy.workspace,
        env=environment,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # its own process group: a timeout kills all of it
    )
    out, err = _Capped(max_output), _Capped(max_output)
    pumps = asyncio.gather(
        _pump(process.stdout, out, on_output), _pump(process.stderr, err, on_output)
    )
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(pumps), timeout)
        await process.wait()
    except asyncio.TimeoutError:
        timed_out = True
    finally:
        if process.returncode is None:
            _kill_group(process.pid)
            await process.wait()
        await pumps
    stdout, cut_out = out.text()
    stderr, cut_err = err.text()
    return CommandResult(
        stdout=stdout,
        stderr=stderr,
        exit_code=None if timed_out else process.returncode,
        timed_out=timed_out,
        duration=time.monotonic() - started,
        cut=cut_out + cut_err,
    )


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
