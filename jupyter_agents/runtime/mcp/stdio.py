"""MCP servers started as child processes that speak over stdin and stdout.

The child's stderr goes to a per-server log file, not to ``sys.stderr``: under ipykernel
``sys.stderr`` is a stream with no file descriptor, which a child process cannot inherit. It
goes through a pipe, copied to the file by a thread that keeps the file under
``LOG_LIMIT`` bytes (the newest output), so a server that floods stderr cannot fill the
disk. The log can be read while the server runs (``MCPServerStdio.stderr_log``) and its end
is shown with every error. Where ``setpriv`` exists the child is started with a parent-death
signal, so even a killed kernel leaves no server behind.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import re
import shutil
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, BinaryIO, TextIO, TypedDict, cast

from mcp.client.stdio import StdioServerParameters, stdio_client

from ..errors import UserError
from .server import MCPServer

__all__ = ["MCPServerStdio", "MCPServerStdioParams"]

DRAIN_SECONDS = 2.0
"""How long a stopped server's stderr may take to reach its log."""

LOG_LIMIT = 4 * 1024 * 1024
"""Bytes of a server's stderr kept in its log file: past this, the older half is dropped."""

_log_dir: Path | None = None
logger = logging.getLogger("jupyter_agents.mcp")


class MCPServerStdioParams(TypedDict, total=False):
    """How to start a stdio server (the SDK's names)."""

    command: str
    """The program, e.g. ``"python"`` or ``"node"``."""
    args: list[str]
    """Its arguments."""
    env: dict[str, str]
    """Extra environment variables. The child gets only a few safe variables (``PATH``,
    ``HOME``, ...) plus these, never the notebook's secrets."""
    cwd: str | Path
    """The working directory."""
    encoding: str
    """The encoding of messages (``utf-8``)."""
    encoding_error_handler: str
    """``strict``, ``ignore`` or ``replace``."""


class MCPServerStdio(MCPServer):
    """A local MCP server started as a child process (``params={"command", "args", "env",
    "cwd"}``); the other options are ``MCPServer``'s."""

    def __init__(
        self, params: MCPServerStdioParams, *, name: str | None = None, **options: Any
    ) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("command"), str):
            raise UserError(
                "MCPServerStdio needs params={'command': PROGRAM, 'args': [...]}, "
                f"got {params!r}."
            )
        args = params.get("args") or []
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise UserError("MCPServerStdio: params['args'] must be a list of strings.")
        self.params = params
        super().__init__(name or _default_name(params["command"], list(args)), **options)
        self._log_path: Path | None = None
        self._pump: _LogPump | None = None

    @property
    def log_path(self) -> Path | None:
        """The file the server's stderr goes to (None before the first start)."""
        return self._log_path

    def stderr_log(self, max_chars: int = 100_000) -> str:
        """What the server wrote to stderr (the end of it, at most ``max_chars``)."""
        if self._log_path is None or not self._log_path.exists():
            return ""
        pump = self._pump
        held = pump.lock if pump is not None else contextlib.nullcontext()
        # (the pump never shows a half-cut file: it cuts it under the same lock)
        with held, open(self._log_path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - max_chars))
            return f.read().decode("utf-8", "replace")

    @property
    def stderr_bytes(self) -> int:
        """Bytes the server has written to stderr since it last started."""
        return self._pump.seen if self._pump is not None else 0

    def stderr_tail(self, max_lines: int = 40) -> str | None:
        lines = self.stderr_log(16_000).splitlines()[-max_lines:]
        return "\n".join(lines) or None

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        params = self.params
        command, args = params["command"], list(params.get("args") or [])
        guard = shutil.which("setpriv")
        if guard is not None:  # the child dies with this process, even when it is killed
            command, args = guard, ["--pdeathsig", "KILL", "--", command, *args]
        parameters = StdioServerParameters(
            command=command,
            args=args,
            env=params.get("env"),
            cwd=params.get("cwd"),
            encoding=params.get("encoding", "utf-8"),
            encoding_error_handler=cast(Any, params.get("encoding_error_handler", "strict")),
        )
        path = self._log_path = _log_file(self.name)
        if path.exists() and path.stat().st_size > 0:
            with open(path, "a", encoding="utf-8") as log:
                log.write("--- started again ---\n")
        read_end, write_end = os.pipe()
        pump = self._pump = _LogPump(read_end, path)
        pump.start()
        try:
            with open(write_end, "w", encoding="utf-8", errors="replace") as errlog:
                async with stdio_client(parameters, errlog=cast(TextIO, errlog)) as streams:
                    errlog.close()  # the child has its copy: the pipe ends when the child's does
                    yield streams
        finally:
            # The server's last words (why it crashed) reach the log before anyone reads it
            # for the error; a grandchild still holding the pipe only delays this a moment.
            await asyncio.to_thread(pump.join, DRAIN_SECONDS)


class _LogPump(threading.Thread):
    """Copies a server's stderr from a pipe to its log file, keeping the file's last
    ``LOG_LIMIT`` bytes; ends when every writer (the server, its children) is gone."""

    def __init__(self, fd: int, path: Path) -> None:
        super().__init__(name=f"mcp stderr {path.name}", daemon=True)
        self._fd = fd
        self._path = path
        self.seen = 0
        """Bytes read so far."""
        self.lock = threading.Lock()
        """Held while the file is written or cut (readers take it to see whole output)."""

    def run(self) -> None:
        try:
            with open(self._path, "a+b") as log:
                while chunk := os.read(self._fd, 65536):
                    self.seen += len(chunk)
                    with self.lock:
                        log.write(chunk)
                        log.flush()
                        if log.tell() > LOG_LIMIT:
                            _keep_newest(log, LOG_LIMIT // 2)
        except OSError:
            logger.debug("stopped copying the stderr of %s", self._path.name, exc_info=True)
        finally:
            os.close(self._fd)


def _keep_newest(log: BinaryIO, size: int) -> None:
    """Drop all but the last ``size`` bytes of ``log`` (from a line start when one is near)."""
    log.seek(-size, os.SEEK_END)
    tail = log.read()
    newline = tail.find(b"\n", 0, 4096)
    if newline >= 0:
        tail = tail[newline + 1 :]
    log.seek(0)
    log.truncate()
    log.write(b"--- earlier output dropped (the log keeps the newest) ---\n" + tail)
    log.flush()


def _default_name(command: str, args: list[str]) -> str:
    """A readable name from the command: the module of ``python -m X``, else the script or
    program name."""
    if "-m" in args[:-1]:
        return args[args.index("-m") + 1]
    program = Path(command).stem
    if program.startswith(("python", "node", "npx", "uvx", "deno", "bun")):
        script = next((a for a in args if not a.startswith("-")), None)
        if script is not None:
            program = (
                Path(script).stem if Path(script).stem != "index" else Path(script).parent.name
            )
    return program or "stdio"


def _log_file(name: str) -> Path:
    global _log_dir
    if _log_dir is None:
        _log_dir = Path(tempfile.mkdtemp(prefix="jupyter_agents-mcp-"))
        atexit.register(shutil.rmtree, _log_dir, True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80] or "server"
    return _log_dir / f"{safe}.stderr.log"
