"""Real MCP servers for the tests: the demo server (stdio, Streamable HTTP, SSE), the PyPI
servers mcp-server-time and mcp-server-git, and @modelcontextprotocol/server-everything from
npm (installed by ``.ci/run`` into ``tests/mcp/node``)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jupyter_agents.runtime.sandbox._box import kept_processes

from ..prerequisites import fail_or_skip

HERE = Path(__file__).parent
DEMO = HERE / "servers" / "demo_server.py"
NODE_DIR = HERE / "node"
EVERYTHING = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, deadline: float) -> None:
    """Wait until ``port`` accepts connections; fail with the server's stderr if it never does."""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling a port, not synchronising with our own code
    process.kill()
    pytest.fail(f"the server on port {port} did not start; its stderr:\n{log.read_text()}")


@pytest.fixture
def demo_command() -> list[str]:
    """The demo server over stdio."""
    return [sys.executable, str(DEMO)]


@pytest.fixture
def start_server() -> Iterator[Callable[[list[str], int], str]]:
    """Start ``argv`` (which serves HTTP on ``port``) and wait for it; stopped at teardown."""
    started: list[subprocess.Popen[bytes]] = []
    logs = Path(tempfile.mkdtemp(prefix="mcp-test-logs-"))

    def start(argv: list[str], port: int) -> str:
        log = logs / f"{port}.log"
        with open(log, "wb") as errors:  # the child keeps its own descriptor
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
            )
        started.append(process)
        wait_for_port(port, process, log, time.monotonic() + 30)
        return f"http://127.0.0.1:{port}"

    yield start
    for process in started:
        process.terminate()
    for process in started:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    shutil.rmtree(logs, ignore_errors=True)


@pytest.fixture
def demo_http_url(start_server: Callable[[list[str], int], str]) -> str:
    port = free_port()
    base = start_server(
        [sys.executable, str(DEMO), "--transport", "streamable-http", "--port", str(port)], port
    )
    return f"{base}/mcp"


@pytest.fixture
def demo_sse_url(start_server: Callable[[list[str], int], str]) -> str:
    port = free_port()
    base = start_server(
        [sys.executable, str(DEMO), "--transport", "sse", "--port", str(port)], port
    )
    return f"{base}/sse"


def _everything() -> Path:
    entry = EVERYTHING / "dist" / "index.js"
    if not entry.exists() or shutil.which("node") is None:
        message = "server-everything is not installed: cd tests/mcp/node && npm ci"
        fail_or_skip(message)
    return entry


@pytest.fixture
def everything_command() -> list[str]:
    """@modelcontextprotocol/server-everything over stdio."""
    return [str(shutil.which("node")), str(_everything()), "stdio"]


@pytest.fixture
def everything_http_url(start_server: Callable[[list[str], int], str]) -> str:
    entry = _everything()
    port = free_port()
    argv = [str(shutil.which("node")), str(entry), "streamableHttp"]
    os.environ["PORT"] = str(port)
    try:
        base = start_server(argv, port)
    finally:
        del os.environ["PORT"]
    return f"{base}/mcp"


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A git repository with one commit and one changed file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "notes.txt").write_text("first\n")
    subprocess.run(["git", "-C", str(repo), "add", "notes.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "first note"], check=True, env=env)
    (repo / "notes.txt").write_text("first\nsecond\n")
    return repo


def children_of(pid: int) -> list[int]:
    """Live child processes of ``pid`` (from /proc), without the sandboxes kept for the next
    shell command (they stay by design)."""
    kept = kept_processes()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z" and int(entry.name) not in kept:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
