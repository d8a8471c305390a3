"""Interrupting an ``%%agent`` cell in a real kernel tells the truth about its tools: a plain
function that cannot be stopped shows "still running in the background" (its card, the runs
comm) until it ends, then what it did; a killable tool is stopped with what it started."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jupyter_agents.notebook.saved import run_document

from .conftest import script
from .frontend import Frontend
from .test_agent_cells import tool_card
from .test_runs_comm import latest, runs_comm

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

TOOLS = '''
import subprocess, sys, threading
from jupyter_agents import tool

gate = threading.Event()

@tool
def write_file(path: str, content: str) -> str:
    """Write a file."""
    print("started")
    if not gate.wait(60):
        raise TimeoutError("never released")
    with open(path, "w") as f:
        f.write(content)
    return f"wrote {len(content)} characters to the file"

GRANDCHILD = """
import os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # like a program sh started in the background
pid_file, gate, marker = sys.argv[1:]
open(pid_file + ".tmp", "w").write(str(os.getpid()))
os.rename(pid_file + ".tmp", pid_file)
while not os.path.exists(gate):
    time.sleep(0.02)
open(marker, "w").write("side effect")
"""

@tool(killable=True)
def sync_files(pid_file: str, gate_file: str, marker: str) -> str:
    """Start a program and wait for it."""
    subprocess.run([sys.executable, "-c", GRANDCHILD, pid_file, gate_file, marker], check=True)
    return "synced"
'''


def start_cell(fe: Frontend, code: str, cell_id: str) -> tuple[str, str]:
    before = len(fe.run_widgets())
    msg_id = fe.execute(code, cell_id)
    comm = fe.widget(before)
    fe.hello(comm)
    return msg_id, comm


def display_id(fe: Frontend, cell: str) -> str:
    """The display id of the run's output (the widget, replaced by its final output)."""

    def found() -> str | None:
        for m in fe.outputs(cell):
            if m["msg_type"] == "display_data":
                shown = m["content"].get("transient", {}).get("display_id")
                if shown:
                    return str(shown)
        return None

    return str(fe.wait_for(found, what="the run's display"))


def card_shown(
    fe: Frontend, display: str, call_id: str, check: Callable[[dict[str, Any]], bool], what: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Wait until the run's output, as last updated, shows the card of ``call_id`` passing
    ``check``: that bundle and card (the newest card if none passes in time)."""
    last: list[Any] = []

    def newest() -> Any:
        for m in reversed(fe.iopub):
            content = m["content"]
            if (
                m["msg_type"] == "update_display_data"
                and content.get("transient", {}).get("display_id") == display
            ):
                document = run_document.decode(content["data"][run_document.MIME_TYPE])
                card = tool_card(document, call_id) or {}
                last[:] = [content["data"], card]
                return content["data"], card if check(card) else None
        return None

    try:
        fe.wait_for(lambda: (newest() or (None, None))[1], 20, what)
    except TimeoutError:
        if not last:
            raise
    return last[0], last[1]


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie waiting for its reaper does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting: {what}"
        time.sleep(0.02)  # polling another process's state: there is nothing to wait on


def test_an_interrupted_sync_tool_shows_in_the_background_until_it_ends(
    fe: Frontend, tmp_path: Path
) -> None:
    fe.run(TOOLS)
    target = tmp_path / "effect.txt"
    arguments = {"path": str(target), "content": "hello"}
    script(fe, f'[[tool_call("write_file", {arguments!r}, call_id="w1")], [text("done")]]')
    channel = runs_comm(fe)
    cell, comm = start_cell(fe, "%%agent\nWrite the file.", "bg-cell")
    fe.wait_for(
        lambda: "started" in ((tool_card(fe.state(comm), "w1") or {}).get("printed") or ""),
        what="the tool to start",
    )
    fe.interrupt()
    reply = fe.reply(cell)
    assert reply["content"]["ename"] == "AgentRunInterrupted"
    display = display_id(fe, cell)
    bundle, card = card_shown(
        fe, display, "w1", lambda c: c.get("status") != "running", "the final output"
    )
    assert card["status"] == "background", card  # not "cancelled": it goes on
    assert card["note"].startswith("the run was stopped, but a thread cannot be stopped")
    assert "1 still running in the background" in bundle["text/plain"]
    run = latest(fe, channel, "bg-cell")
    assert run is not None and run["status"] == "cancelled"
    assert run["background_calls"] == [{"call": "w1", "tool": "write_file"}]
    assert not target.exists()

    fe.run("gate.set()")  # the function goes on and does its side effect
    _bundle, card = card_shown(
        fe, display, "w1", lambda c: c.get("status") == "done", "the note of its end"
    )
    assert card["status"] == "done"
    assert card["note"] == (
        "finished in the background after the run was stopped: wrote 5 characters to the file"
    )
    assert target.read_text() == "hello"
    fe.wait_for(
        lambda: (latest(fe, channel, "bg-cell") or {}).get("background_calls") == [],
        what="the runs panel to hear it ended",
    )


def test_an_interrupted_killable_tool_is_stopped_with_what_it_started(
    fe: Frontend, tmp_path: Path
) -> None:
    fe.run(TOOLS)
    pid_file, gate, marker = tmp_path / "pid", tmp_path / "gate", tmp_path / "marker"
    arguments = {"pid_file": str(pid_file), "gate_file": str(gate), "marker": str(marker)}
    script(fe, f'[[tool_call("sync_files", {arguments!r}, call_id="k1")], [text("done")]]')
    cell, _comm = start_cell(fe, "%%agent\nSync the files.", "kill-cell")
    wait_until(pid_file.exists, 20, "the program to start")
    pid = int(pid_file.read_text())
    try:
        fe.interrupt()
        assert fe.reply(cell)["content"]["ename"] == "AgentRunInterrupted"
        wait_until(lambda: not running(pid), 5, "the program it started to end")
        gate.touch()  # what would let it do its side effect: nothing is left to do it
        assert not marker.exists()
        _bundle, card = card_shown(
            fe, display_id(fe, cell), "k1", lambda c: c.get("status") != "running", "the output"
        )
        assert card["status"] == "cancelled" and "note" not in card
    finally:
        if running(pid):
            os.kill(pid, 9)
