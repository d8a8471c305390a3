"""MCP in a real kernel: a server added in one cell, called from a %%agent cell (approval clicked
through the widget's comm), removed in a third; a failing server's stderr shown; and no server
process left after the kernel shuts down."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from jupyter_agents.notebook.view.card_parts import output_of

from ..mcp.conftest import DEMO, alive, children_of
from .conftest import SETUP, script
from .frontend import Frontend
from .test_agent_cells import decide, final_state, shown_card, start, tool_card, waiting_for

pytestmark = pytest.mark.kernel


def servers_of(fe: Frontend) -> list[int]:
    """Live processes running the demo server under the kernel."""
    pid = fe.km.provisioner.pid  # type: ignore[union-attr]
    found = []
    for child in children_of(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if str(DEMO).encode() in command and alive(child):
            found.append(child)
    return found


def printed(fe: Frontend, code: str, expected: str) -> str:
    """Run a cell and wait until its printed output holds ``expected``; returns that output."""
    msg_id = fe.execute(code)
    assert fe.reply(msg_id, timeout=60)["content"]["status"] == "ok"
    return str(
        fe.wait_for(lambda: expected in fe.stdout(msg_id) and fe.stdout(msg_id), what=expected)
    )


def test_add_call_and_remove_across_cells() -> None:
    fe = Frontend(env={"JUPYTER_AGENTS_APPROVAL_GRACE": "10"})
    try:
        fe.run(SETUP, timeout=60)
        printed(fe, f"%agent mcp add demo -- python {DEMO}", "MCP server 'demo' is connected")
        [server] = servers_of(fe)
        script(
            fe,
            """[
            [tool_call("mcp__demo__read_note", {"name": "todo"}, call_id="r1"),
             tool_call("mcp__demo__delete_note", {"name": "todo"}, call_id="d1")],
            [text("Read it and deleted it.")],
        ]""",
        )
        cell, comm = start(fe, "%%agent\nRead the todo note, then delete it.")
        fe.hello(comm)
        card = waiting_for(fe, comm, "d1")  # destructive: asks; read-only: ran
        assert card["origin"] == "demo › delete_note" and card["badge"] == "destructive"
        read = fe.wait_for(
            lambda: (c := tool_card(fe.state(comm), "r1")) and c.get("status") == "done" and c,
            what="the read-only call done, without asking",
        )
        assert output_of(read) == "the note todo says hi" and "approval" not in read
        assert read["badge"] == "read-only"
        decide(fe, comm, "d1", True)
        assert fe.reply(cell)["content"]["status"] == "ok"
        state = final_state(fe, comm)
        assert output_of(shown_card(state, "d1")) == "deleted todo"
        printed(fe, "%agent mcp list", "demo: connected; approval destructive;")
        fe.run("%agent mcp remove demo")
        deadline = time.monotonic() + 10
        while alive(server) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(server)
        printed(fe, "%agent mcp list", "No MCP servers")
    finally:
        fe.close()


def test_a_failing_server_shows_its_stderr() -> None:
    fe = Frontend()
    try:
        fe.run("%load_ext jupyter_agents", timeout=60)
        code = "import sys; sys.stderr.write('boom: missing config file\\n'); sys.exit(2)"
        shown = printed(
            fe, f'%agent mcp add broken -- python -c "{code}"', "MCP server 'broken' could not"
        )
        assert "boom: missing config file" in shown
        printed(fe, "%agent mcp log broken", "boom: missing config file")
    finally:
        fe.close()


def test_no_server_is_left_after_the_kernel_shuts_down() -> None:
    fe = Frontend()
    try:
        fe.run("%load_ext jupyter_agents", timeout=60)
        fe.run(f"%agent mcp add demo -- {sys.executable} {DEMO}", timeout=60)
        [server] = servers_of(fe)
    finally:
        fe._stop.set()
        fe.kc.stop_channels()
        fe.manager.shutdown_kernel(now=False)  # a shutdown request, as JupyterLab sends
    deadline = time.monotonic() + 15
    while alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(server)
