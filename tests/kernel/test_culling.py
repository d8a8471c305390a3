"""A run waiting for its person keeps the kernel from an idle-culling Jupyter server.

A real ``jupyter server`` culls idle kernels after a short ``cull_idle_timeout``; no browser is
connected (a frontend's websocket would spare both kernels). Two kernels start together: the
control one does nothing and is culled; the other runs an ``%%agent`` cell waiting for an
approval, driven straight over ZMQ as JupyterLab would, and outlives the timeout several times
over, until its run ends: then it is culled too.

Why a waiting cell looks idle at all: the server skips a kernel whose state is busy (unless
``cull_busy``), but it takes the state from the last status message answering a request it
tracks. JupyterLab >= 4.4 sends comms on a subshell per comm target, and opens that subshell
(``create_subshell_request``, on the control channel) when the target's first comm opens: for
the run's widget, while the cell runs. That request's busy/idle leaves the kernel "idle" for the
server (and JupyterLab's status bar) while the run waits; the test sends it the same way.
"""

from __future__ import annotations

import contextlib
import datetime
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

from ..e2e.lab import LabServer, _kill_group, _server_env, _wait_until_up, free_port
from .frontend import Frontend
from .test_agent_cells import decide, waiting_for

pytestmark = pytest.mark.kernel

CULL_AFTER = 3
"""Seconds of inactivity after which the server culls a kernel."""

SETUP = '''
%load_ext jupyter_agents
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

@tool(needs_approval=True)
def send_email(to: str) -> str:
    """Send an email."""
    return f"sent to {to}"

demo = ScriptedModel([[tool_call("send_email", {"to": "ana@example.com"}, call_id="e1")],
                      [text("Sent.")]])
%agent model demo
'''


@contextlib.contextmanager
def culling_server() -> Iterator[tuple[LabServer, Path]]:
    """``jupyter server`` culling kernels idle for :data:`CULL_AFTER` s (checked every second);
    its kernels send activity every second while a run is live. Yields it and its runtime dir
    (the kernels' connection files)."""
    work = Path(tempfile.mkdtemp(prefix="ja-cull-"))
    root = work / "root"
    root.mkdir()
    port, token = free_port(), secrets.token_hex(16)
    env = _server_env(work)
    env["JUPYTER_AGENTS_ACTIVITY_INTERVAL"] = "1"
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "server",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--allow-root",
        f"--MappingKernelManager.cull_idle_timeout={CULL_AFTER}",
        "--MappingKernelManager.cull_interval=1",
    ]
    log_path = work / "server.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        server = LabServer(root=root, base=f"http://127.0.0.1:{port}", token=token, log=log_path)
        try:
            _wait_until_up(proc, server, 60)
            yield server, work / "runtime"
        finally:
            _kill_group(proc)
            shutil.rmtree(work, ignore_errors=True)


def kernel_ids(server: LabServer) -> set[str]:
    return {k["id"] for k in server.api("GET", "kernels")}


def idle_for(server: LabServer, kernel_id: str) -> float:
    """Seconds since the server last saw activity on the kernel."""
    (kernel,) = [k for k in server.api("GET", "kernels") if k["id"] == kernel_id]
    last = datetime.datetime.fromisoformat(kernel["last_activity"].replace("Z", "+00:00"))
    return (datetime.datetime.now(datetime.timezone.utc) - last).total_seconds()


def wait_culled(server: LabServer, kernel_id: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while kernel_id in kernel_ids(server):
        assert time.monotonic() < deadline, f"kernel {kernel_id} was not culled"
        time.sleep(0.25)  # polling the server's list: there is nothing to wait on


def hello_on_a_subshell(fe: Frontend, comm: str) -> None:
    """What JupyterLab >= 4.4 does when a run's widget opens: make a subshell for the widget
    comms (the kernel answers it busy, then idle), and say hello on it."""
    fe.kc.control_channel.send(fe.kc.session.msg("create_subshell_request", {}))
    reply = fe.kc.control_channel.get_msg(timeout=20)
    content = {"comm_id": comm, "data": {"method": "custom", "content": {"type": "hello"}}}
    msg = fe.kc.session.msg("comm_msg", content)
    msg["header"]["subshell_id"] = reply["content"]["subshell_id"]
    fe.kc.shell_channel.send(msg)


def frontend_for(runtime: Path, kernel_id: str) -> Frontend:
    client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel_id}.json"))
    client.load_connection_file()
    return Frontend(client=client)


def test_a_run_waiting_for_approval_is_not_culled_and_an_idle_kernel_is() -> None:
    with culling_server() as (server, runtime):
        running: Any = server.api("POST", "kernels", {"name": "python3"})["id"]
        fe = frontend_for(runtime, running)
        try:
            fe.run(SETUP, timeout=60)
            control = server.api("POST", "kernels", {"name": "python3"})["id"]
            before = len(fe.run_widgets())
            cell = fe.execute("%%agent\nEmail Ana.")
            comm = fe.widget(before)
            hello_on_a_subshell(fe, comm)  # JupyterLab shows the run: it waits for the person
            waiting_for(fe, comm, "e1")
            waiting_since = time.monotonic()
            state = {k["id"]: k["execution_state"] for k in server.api("GET", "kernels")}
            assert state[running] == "idle"  # what the server believes while the cell runs

            wait_culled(server, control, 30)  # idle: culled (so the test can fail)
            while time.monotonic() - waiting_since < 3 * CULL_AFTER:
                assert running in kernel_ids(server), "the kernel of a waiting run was culled"
                assert idle_for(server, running) < CULL_AFTER
                time.sleep(0.25)  # polling the server's list: there is nothing to wait on

            decide(fe, comm, "e1", True)  # the person comes back: the run goes on and ends
            assert fe.reply(cell)["content"]["status"] == "ok"
            wait_culled(server, running, 30)  # nothing live: culled like any idle kernel
        finally:
            fe.close()
