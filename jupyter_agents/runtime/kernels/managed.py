"""``ManagedKernel``: one Jupyter kernel for a tool, started on first use and reused.

The kernel runs in its work folder under a sandbox policy (bubblewrap, like shell commands; its
sockets are Unix sockets in a private folder, so it needs no network). A call that runs out of
time interrupts the kernel; a kernel that does not answer the interrupt, or that died, is
restarted and the result says its state was lost. No kernel outlives this process: clean
shutdown at exit, and bubblewrap (or ipykernel's parent polling, unsandboxed) ends the kernel
if this process is killed.
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from ..background_loop import on_background_loop, run_on_background_loop
from ..errors import UserError
from ..sandbox import (
    SandboxPolicy,
    SandboxUnavailable,
    _devices,
    _shadow,
    find_bwrap,
    scrubbed_env,
)
from ..sandbox.bwrap import bwrap_argv, seccomp_fd
from ..tools.outputs import ToolOutput, ToolOutputText
from .outputs import Collected, strip_ansi

__all__ = ["KernelResult", "ManagedKernel"]

Status = Literal["ok", "error", "timeout", "died"]


@dataclass(frozen=True)
class KernelResult:
    """What one execution did."""

    output: str | list[ToolOutput]
    """Text, or text and images, in the order the kernel sent them."""
    status: Status
    """``ok``, ``error`` (the code raised), ``timeout`` (interrupted) or ``died``."""
    error: str | None = None
    """``ename: evalue`` when the code raised."""
    restarted: bool = False
    """The kernel was restarted during or before this call: earlier state is gone."""
    duration: float = 0.0


_live: weakref.WeakSet[ManagedKernel] = weakref.WeakSet()


class ManagedKernel:
    """A kernel in ``work_dir`` under ``policy`` (see the module docstring)."""

    def __init__(
        self,
        policy: SandboxPolicy,
        *,
        kernel_name: str = "python3",
        startup_timeout: float = 60.0,
        interrupt_grace: float = 5.0,
        max_output: int = 20_000,
    ) -> None:
        self.policy = policy
        self.kernel_name = kernel_name
        self.startup_timeout = startup_timeout
        self.interrupt_grace = interrupt_grace
        self.max_output = max_output
        self._km: Any = None
        self._kc: Any = None
        self._dir: Path | None = None
        self._log: IO[bytes] | None = None
        self._seccomp: int | None = None  # the sandbox's system-call filter, read at each start
        self._lock: asyncio.Lock | None = None  # made on the kernels' loop

    @property
    def pid(self) -> int | None:
        """The kernel's process (bubblewrap's, when sandboxed), while it runs."""
        process = getattr(getattr(self._km, "provisioner", None), "process", None)
        return getattr(process, "pid", None)

    async def run(
        self, code: str, timeout: float, on_output: Callable[[str], None] | None = None
    ) -> KernelResult:
        """Run ``code``; ``on_output`` gets printed text as it comes."""
        return await on_background_loop(self._run(code, timeout, on_output))

    async def shutdown(self) -> None:
        """Stop the kernel (the next call starts a new one)."""
        await on_background_loop(self._shutdown())

    def kill(self) -> None:
        """Kill the kernel's process group at once (from any thread; used at exit)."""
        pid = self.pid
        if pid is not None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)

    # -- on the kernels' loop --------------------------------------------------------------

    async def _run(
        self, code: str, timeout: float, on_output: Callable[[str], None] | None
    ) -> KernelResult:
        watched = self.policy.mode != "danger-full-access"
        workspace = self.policy.workspace
        since = _shadow.begin(workspace) if self.policy.mode == "workspace-write" else None
        if watched:  # the host's device nodes, put back if the code changed them
            _devices.enter()
        restored: list[str] = []
        renamed: list[_shadow.Blocked] = []
        try:
            result = await self._execute(code, timeout, on_output)
        finally:
            if watched:
                restored = _devices.leave()
            if since is not None:  # modules it left where Python would import them
                renamed = _shadow.block_planted(workspace, since)
        notes = [_devices.restored_note(restored)] if restored else []
        notes += [_shadow.blocked_note(renamed)] if renamed else []
        if not notes:
            return result
        note = "\n".join(notes)
        output = result.output
        shown = f"{output}\n{note}" if isinstance(output, str) else [*output, ToolOutputText(note)]
        return dataclasses.replace(result, output=shown)

    async def _execute(
        self, code: str, timeout: float, on_output: Callable[[str], None] | None
    ) -> KernelResult:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one execution at a time, in call order
            started = time.monotonic()
            restarted = False
            if self._km is None:
                await self._start()
            elif not await self._km.is_alive():
                await self._restart()
                restarted = True
            collected = Collected(self.max_output)
            msg_id = self._kc.execute(code, store_history=True, allow_stdin=False)
            try:
                status = await self._collect(msg_id, collected, timeout, on_output)
            except asyncio.CancelledError:
                await self._km.interrupt_kernel()  # the run was stopped: stop the code too
                raise
            if status == "timeout":
                await self._km.interrupt_kernel()
                settled = await self._collect(msg_id, collected, self.interrupt_grace, on_output)
                if settled in ("timeout", "died"):
                    await self._restart()
                    restarted = True
            elif status == "died":
                await self._restart()
                restarted = True
            return KernelResult(
                collected.result(),
                status,
                collected.error,
                restarted,
                time.monotonic() - started,
            )

    async def _collect(
        self,
        msg_id: str,
        collected: Collected,
        timeout: float,
        on_output: Callable[[str], None] | None,
    ) -> Status:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            try:
                msg = await self._kc.get_iopub_msg(timeout=min(remaining, 0.5))
            except queue.Empty:
                if not await self._km.is_alive():
                    return "died"
                continue
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                collected.text(content.get("text", ""))
                if on_output is not None:
                    on_output(content.get("text", ""))
            elif kind in ("execute_result", "display_data"):
                collected.data(content.get("data", {}))
            elif kind == "error":
                traceback = content.get("traceback") or []
                collected.failed(content.get("ename", ""), content.get("evalue", ""), traceback)
                if on_output is not None:
                    on_output(strip_ansi("\n".join(traceback)) + "\n")
            elif kind == "status" and content.get("execution_state") == "idle":
                return "error" if collected.error else "ok"

    async def _start(self) -> None:
        try:
            from jupyter_client.manager import AsyncKernelManager
        except ImportError:
            raise UserError(
                "The code interpreter needs jupyter_client and ipykernel: "
                "pip install 'jupyter-agents[lab]'."
            ) from None
        sandboxed = self.policy.mode != "danger-full-access"
        if sandboxed and find_bwrap() is None:
            raise SandboxUnavailable(
                f"The code interpreter's sandbox ({self.policy.mode}) needs bubblewrap, which is "
                "not installed: apt-get install bubblewrap (or choose "
                "sandbox_mode='danger-full-access')."
            )
        folder = self._dir = Path(tempfile.mkdtemp(prefix="jupyter_agents-kernel-"))
        policy = self.policy
        seccomp: int | None = None  # made just before the kernel starts (nothing to leak)

        class Manager(AsyncKernelManager):
            def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
                command = super().format_kernel_cmd(extra_arguments)
                if not sandboxed:
                    return list(command)
                # Inside its own process namespace the kernel's parent is bubblewrap's init,
                # so ipykernel's parent polling would stop it at once: bubblewrap ends it instead.
                command = [*command, "--IPKernelApp.parent_handle=0"]
                if seccomp is not None:
                    os.lseek(seccomp, 0, os.SEEK_SET)  # each start and restart reads it whole
                return bwrap_argv(
                    command,
                    policy.mode,
                    policy.workspace,
                    network=policy.network_access,
                    writable=[folder],
                    seccomp=seccomp,
                )

        km = Manager(
            kernel_name=self.kernel_name,
            transport="ipc",
            ip=str(folder / "kernel"),
            connection_file=str(folder / "kernel.json"),
        )
        spec = km.kernel_spec
        if spec is None:
            raise UserError(f"No Jupyter kernel named {self.kernel_name!r} is installed.")
        spec.interrupt_mode = "message"  # bubblewrap does not pass signals on
        env = scrubbed_env(os.environ, policy.allow_env)
        if sandboxed and "TMPDIR" not in policy.allow_env:
            env.pop("TMPDIR", None)  # the sandbox's private /tmp is the writable one
        env.update(
            IPYTHONDIR=str(folder / "ipython"),
            MPLCONFIGDIR=str(folder / "matplotlib"),
            JUPYTER_RUNTIME_DIR=str(folder),
        )
        self._km = km
        _live.add(self)
        # The kernel's own chatter goes to a log, not the cell (open while restarts need it).
        self._log = (folder / "kernel.log").open("ab")
        seccomp = self._seccomp = seccomp_fd() if sandboxed else None
        inherit = {} if seccomp is None else {"pass_fds": (seccomp,)}
        await km.start_kernel(
            cwd=str(policy.workspace),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            **inherit,
        )
        await self._connect()

    async def _connect(self) -> None:
        self._kc = self._km.client()
        self._kc.start_channels()
        try:
            await self._kc.wait_for_ready(timeout=self.startup_timeout)
        except RuntimeError as e:
            await self._shutdown()
            raise UserError(f"The code interpreter's kernel did not start: {e}") from None

    async def _restart(self) -> None:
        if self._kc is not None:
            self._kc.stop_channels()
        await self._km.restart_kernel(now=True)
        await self._connect()

    async def _shutdown(self) -> None:
        km, kc = self._km, self._kc
        self._km = self._kc = None
        if kc is not None:
            kc.stop_channels()
        if km is not None:
            try:
                await km.shutdown_kernel(now=True)
            except Exception:  # already gone
                pass
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self._close_seccomp()
        _live.discard(self)

    def _close_seccomp(self) -> None:
        if self._seccomp is not None:
            os.close(self._seccomp)
            self._seccomp = None


@atexit.register
def _stop_all_kernels() -> None:
    """No kernel outlives this process: ask each to stop, then kill what is left."""
    for session in list(_live):
        try:
            run_on_background_loop(session._shutdown(), timeout=5)
        except Exception:
            session.kill()
