"""Resuming after a crash in a real kernel (issue 41, point 3): an agent cell runs, one tool
call finishes and the next waits; the kernel process is killed with SIGKILL, restarted, set up
again, and ``%agent resume`` goes on from the last finished step. The tools count their runs
in a file: the finished call does not run again, and the run ends with the output an
uninterrupted run gives. A call running when the kernel died is asked about first."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from .conftest import kernel_value
from .frontend import Frontend
from .test_agent_cells import decide, start, waiting_for
from .test_runs_comm import TARGET, latest

pytestmark = pytest.mark.kernel

SETUP = '''
import os
os.chdir({work!r})
%load_ext jupyter_agents
from pathlib import Path
from jupyter_agents import tool
from jupyter_agents.testing import ScriptedModel, text, tool_call

def counted(name):
    with open("count", "a") as f:
        f.write(name + "\\n")

@tool
def fetch_rows() -> str:
    """Fetch the rows."""
    counted("fetch")
    return "42 rows"

@tool(needs_approval=True)
def write_report(rows: int) -> str:
    """Write the report."""
    counted("report")
    return "report written"

def respond(request):
    outputs = sum(
        1 for i in request.input if isinstance(i, dict) and i.get("type") == "function_call_output"
    )
    if outputs == 0:
        return tool_call("fetch_rows", {{}}, call_id="a1")
    if outputs == 1:
        return tool_call("write_report", {{"rows": 42}}, call_id="b1")
    return text("Done: 42 rows, and the report is written.")

%agent model ScriptedModel(respond=respond)
'''
CELL = "%%agent\nReport on the rows."
CELL_ID = "report-cell"
FINAL = "Done: 42 rows, and the report is written."


def counts(work: Path) -> tuple[int, int]:
    path = work / "count"
    words = path.read_text().split() if path.exists() else []
    return words.count("fetch"), words.count("report")


def report(fe: Frontend, comm: str, run_id: str) -> dict[str, Any]:
    """The newest report the runs comm sent of run ``run_id``."""
    found: dict[str, Any] = {}
    for data in fe.comm_messages(comm):
        runs = data.get("runs", []) if data.get("type") == "snapshot" else [data.get("run")]
        found = next((r for r in runs if r and r["id"] == run_id), found)
    return found


def final_output(fe: Frontend) -> Any:
    return kernel_value(fe, "__import__('jupyter_agents').last_result().final_output")


def test_a_killed_kernel_resumes_the_run_without_repeating_finished_calls(tmp_path: Path) -> None:
    fe = Frontend(env={"JUPYTER_AGENTS_APPROVAL_GRACE": "30"})
    try:
        banner = fe.run(SETUP.format(work=str(tmp_path)), timeout=60)
        assert banner["content"]["status"] == "ok"
        before = len(fe.run_widgets())
        fe.execute(CELL, cell_id=CELL_ID)
        comm = fe.widget(before)
        fe.hello(comm)
        waiting_for(fe, comm, "b1")  # fetch_rows ran; write_report waits for a person
        assert counts(tmp_path) == (1, 0)
        pid = fe.manager.provisioner.process.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)
        fe.restart()
        setup = fe.execute(SETUP.format(work=str(tmp_path)))
        assert fe.reply(setup, timeout=60)["content"]["status"] == "ok"
        said = fe.stdout(setup)
        assert "1 run was cut off by a kernel restart or crash" in said, said
        panel = fe.open_comm(TARGET)  # the runs panel lists it, with the id that resumes it
        listed = fe.wait_for(lambda: latest(fe, panel, CELL_ID), what="the cut-off run")
        assert listed["status"] == "cut off" and re.fullmatch("[0-9a-f]{32}", listed["resume"])

        resumed, comm = start(fe, "%agent resume")
        fe.hello(comm)
        assert fe.reply(resumed, timeout=30)["content"]["status"] == "ok"
        waiting_for(fe, comm, "b1")  # asked again: it never ran
        decide(fe, comm, "b1", True)
        fe.run("result = await _")
        assert kernel_value(fe, "result.final_output") == FINAL
        assert counts(tmp_path) == (1, 1)  # fetch_rows did not run again
        fe.wait_for(lambda: report(fe, panel, listed["id"])["status"] == "resumed", what="resumed")
        replayed = fe.state(comm)["blocks"]
        assert any(b.get("replayed") for b in replayed if b.get("call_id") == "a1"), replayed
        again = fe.execute("%agent resume")
        fe.reply(again)
        assert "no run to resume" in fe.stdout(again)  # the resumed run ended its journal

        plain = fe.execute("%%agent --new --approve auto\nReport on the rows.")  # not cut off
        assert fe.reply(plain, timeout=30)["content"]["status"] == "ok"
        assert final_output(fe) == FINAL  # the same output as the resumed run's
    finally:
        fe.close()
